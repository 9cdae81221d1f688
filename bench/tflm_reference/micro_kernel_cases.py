"""Cases whose int8 Eval is code of TFLM's micro kernel .cc files rather than a reference/*.h function: the case
calls the .cc's own helper (compiled from --tflm-src, see harness.TFLM_SOURCES) with the parameters its Prepare
would set (activations_common.cc)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.fixedpoint import quantize_multiplier, round_half_away
from tflm_reference.elementwise_cases import _fields
from tflm_reference.model import SHAPE, BenchModel, io, shape_expr


def add_relu(m: BenchModel) -> None:
    """ReluEval's int8 path: tflite::ReluQuantized (activations_common.cc), ReluOpData as CalculateReluOpData sets
    it (the scale ratio is a float32 division)."""
    out = m.tensor(SHAPE, (0.04, -128))
    (si, zi), (so, zo) = m.quant(m.x), m.quant(out)
    multiplier, shift = quantize_multiplier(float(np.float32(si) / np.float32(so)))
    setup = "tflite::ReluParams& params = data.params;\n" + _fields(
        output_multiplier=multiplier, output_shift=shift, quantized_activation_min=max(-128, zo),
        quantized_activation_max=127, input_offset=zi, output_offset=zo)
    call = f"tflite::ReluQuantized(data, {shape_expr(m, m.x)}, {shape_expr(m, out)}, t{m.x}, t{out});"
    m.add("RELU", "RELU", [m.x], out, ("tflite::ReluOpData data;", setup, call))


def add_relu6(m: BenchModel) -> None:
    """Relu6Eval's int8 path: Relu6Quantized<int8_t>(zero, six, ...) of activations.h, Relu6OpData as
    Relu6Prepare sets it (FloatToQuantizedType of 6.0f on the input's quantization)."""
    out = m.tensor(SHAPE, m.quant(m.x))
    si, zi = m.quant(m.x)
    six = min(max(round_half_away(float(np.float32(6.0) / np.float32(si))) + zi, -128), 127)
    state = "tflite::Relu6OpData<int8_t> data;"
    setup = f"data.six = {six};\n  data.zero = {zi};"
    call = f"tflite::Relu6Quantized<int8_t>(data.zero, data.six, {io(m, m.x, out)});"
    m.add("RELU6", "RELU6", [m.x], out, (state, setup, call))


def add_micro_kernel_cases(m: BenchModel) -> None:
    add_relu(m)
    add_relu6(m)
