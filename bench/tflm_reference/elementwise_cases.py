"""Element-wise cases: binary arithmetic (same shapes and a broadcast row) and activations. The parameters are
computed as TFLM Micro's Prepare computes them (sub_common.cc, leaky_relu_common.cc, prelu_common.cc,
hard_swish_common.cc, tanh.cc, logistic_common.cc)."""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.ops.support.fixedpoint import quantize_multiplier, round_half_away
from tflm_reference.model import SHAPE, BenchModel, io

INT8_RANGE = "params.quantized_activation_min = -128;\n  params.quantized_activation_max = 127;"


def _fields(**values: int) -> str:
    return "\n".join(f"  params.{name} = {value};" for name, value in values.items())


def two_input_rescale(s1: float, s2: float) -> tuple[float, dict[str, int]]:
    """The rescale of TFLM's two-input Prepare (sub_common.cc, squared_difference.cc): twice the larger input
    scale, and each input's multiplier and shift as ArithmeticParams fields."""
    twice_max = 2 * max(s1, s2)
    m1, sh1 = quantize_multiplier(s1 / twice_max)
    m2, sh2 = quantize_multiplier(s2 / twice_max)
    return twice_max, {"input1_multiplier": m1, "input1_shift": sh1, "input2_multiplier": m2, "input2_shift": sh2}


def add_sub(m: BenchModel, label: str, second: int) -> None:
    out = m.tensor(SHAPE, (0.06, -2))
    (s1, z1), (s2, z2), (so, zo) = m.quant(m.x), m.quant(second), m.quant(out)
    left_shift = 20
    twice_max, input_fields = two_input_rescale(s1, s2)
    mo, sho = quantize_multiplier(twice_max / ((1 << left_shift) * so))
    setup = _fields(left_shift=left_shift, input1_offset=-z1, input2_offset=-z2, output_offset=zo, **input_fields,
                    output_multiplier=mo, output_shift=sho) + "\n  " + INT8_RANGE
    broadcast = m.shape(m.x) != m.shape(second)
    function = "BroadcastQuantSubSlow" if broadcast else "Sub"
    call = f"tflite::reference_ops::{function}(params, {io(m, m.x, second, out)});"
    m.add(label, "SUB", [m.x, second], out, ("tflite::ArithmeticParams params;", setup, call))


def add_max_min(m: BenchModel, opcode: str, second: int) -> None:
    out = m.tensor(SHAPE, m.quant(m.x))
    # TFLM's MaximumOp / MinimumOp, passed as a function pointer the way maximum_minimum.cc passes them
    compare = ">" if opcode == "MAXIMUM" else "<"
    state = f"int8_t op(int8_t a, int8_t b) {{ return a {compare} b ? a : b; }}"
    call = f"tflite::reference_ops::MaximumMinimumBroadcastSlow({io(m, m.x, second, out)}, &op);"
    suffix = " (broadcast row)" if m.shape(m.x) != m.shape(second) else ""
    m.add(opcode + suffix, opcode, [m.x, second], out, (state, "", call))


def add_leaky_relu(m: BenchModel) -> None:
    alpha = 0.1
    out = m.tensor(SHAPE, (0.04, 0))
    (si, zi), (so, zo) = m.quant(m.x), m.quant(out)
    ma, sa = quantize_multiplier(si * float(np.float32(alpha)) / so)
    mi, shi = quantize_multiplier(si / so)
    setup = _fields(input_offset=zi, output_offset=zo, output_multiplier_alpha=ma, output_shift_alpha=sa,
                    output_multiplier_identity=mi, output_shift_identity=shi)
    call = f"tflite::reference_ops::QuantizeLeakyRelu(params, {io(m, m.x, out)});"
    m.add("LEAKY_RELU", "LEAKY_RELU", [m.x], out, ("tflite::LeakyReluParams params;", setup, call),
          {"alpha": alpha})


def add_prelu(m: BenchModel) -> None:
    alpha = m.builder.constant("alpha", (np.arange(16, dtype=np.int8) - 8).reshape(1, 1, 16), scale=0.02,
                               zero_point=0)
    out = m.tensor(SHAPE, (0.03, 0))
    (si, zi), (sa, za), (so, zo) = m.quant(m.x), m.quant(alpha), m.quant(out)
    m1, sh1 = quantize_multiplier(si / so)
    m2, sh2 = quantize_multiplier(si * sa / so)
    setup = _fields(input_offset=-zi, alpha_offset=-za, output_offset=zo, output_multiplier_1=m1,
                    output_shift_1=sh1, output_multiplier_2=m2, output_shift_2=sh2)
    call = f"tflite::reference_ops::BroadcastPrelu4DSlow(params, {io(m, m.x, alpha, out)});"
    m.add("PRELU (per-channel alpha)", "PRELU", [m.x, alpha], out, ("tflite::PreluParams params;", setup, call))


def add_hard_swish(m: BenchModel) -> None:
    out = m.tensor(SHAPE, (0.04, -10))
    (si, zi), (so, zo) = m.quant(m.x), m.quant(out)
    hires_input_scale = (1.0 / 128.0) * si
    output_multiplier, output_exponent = quantize_multiplier(hires_input_scale / so)
    reluish_multiplier, reluish_exponent = quantize_multiplier(hires_input_scale / (3.0 / 32768.0))
    setup = (_fields(input_zero_point=zi, output_zero_point=zo, output_multiplier_exponent=output_exponent,
                     reluish_multiplier_exponent=reluish_exponent)
             + f"\n  tflite::DownScaleInt32ToInt16Multiplier({output_multiplier}, "
               "&params.output_multiplier_fixedpoint_int16);"
             + f"\n  tflite::DownScaleInt32ToInt16Multiplier({reluish_multiplier}, "
               "&params.reluish_multiplier_fixedpoint_int16);")
    call = f"tflite::reference_ops::HardSwish<int8_t>(params, {io(m, m.x, out)});"
    m.add("HARD_SWISH", "HARD_SWISH", [m.x], out, ("tflite::HardSwishParams params;", setup, call))


def sigmoid_family_params(input_scale: float) -> tuple[int, int, int]:
    """(input_multiplier, input_left_shift, input_range_radius) of TFLM's int8 Tanh and Logistic Prepare."""
    input_integer_bits = 4
    fraction, left_shift = math.frexp(input_scale * (1 << (31 - input_integer_bits)))
    multiplier = round_half_away(fraction * (1 << 31))
    max_input_rescaled = (((1 << input_integer_bits) - 1) * (1 << (31 - input_integer_bits))
                          / (1 << left_shift))
    return multiplier, left_shift, math.floor(max_input_rescaled)


def add_tanh_logistic(m: BenchModel, opcode: str) -> None:
    out = m.tensor(SHAPE, (1 / 128, 0) if opcode == "TANH" else (1 / 256, -128))
    (si, zi) = m.quant(m.x)
    multiplier, left_shift, radius = sigmoid_family_params(si)
    if opcode == "TANH":
        call = (f"tflite::reference_integer_ops::Tanh({zi}, {radius}, {multiplier}, {left_shift}, "
                f"{io(m, m.x, out)});")
    else:
        call = (f"tflite::reference_integer_ops::Logistic({zi}, {radius}, {multiplier}, {left_shift}, "
                f"{int(np.prod(SHAPE))}, t{m.x}, t{out});")
    m.add(opcode, opcode, [m.x], out, ("", "", call))


def add_neg(m: BenchModel) -> None:
    """NEG on float32, the only type TFLM's neg.cc takes (reference_ops::Negate)."""
    source = m.builder.input("neg_in", SHAPE, "float32")
    out = m.tensor(SHAPE, None, "float32")
    m.add("NEG float32", "NEG", [source], out, ("", "", f"tflite::reference_ops::Negate({io(m, source, out)});"))


def add_elementwise_cases(m: BenchModel) -> None:
    add_sub(m, "SUB", m.y)
    add_sub(m, "SUB (broadcast row)", m.row)
    add_max_min(m, "MAXIMUM", m.y)
    add_max_min(m, "MAXIMUM", m.row)
    add_max_min(m, "MINIMUM", m.y)
    add_max_min(m, "MINIMUM", m.row)
    add_leaky_relu(m)
    add_prelu(m)
    add_hard_swish(m)
    add_tanh_logistic(m, "TANH")
    add_tanh_logistic(m, "LOGISTIC")
    add_neg(m)
