"""Cases whose int8 Eval is code of TFLM's micro kernel .cc files rather than a reference/*.h function: the case
calls the .cc's own helper, or the invoke of its registration, compiled from --tflm-src (harness.TFLM_SOURCES),
with the parameters its Prepare would set (activations_common.cc, squared_difference.cc)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.fixedpoint import quantize_multiplier, round_half_away
from tflm_reference.elementwise_cases import INT8_RANGE, _fields
from tflm_reference.model import SHAPE, BenchModel, io, shape_expr

TF_LITE_TYPES = {"int8": "kTfLiteInt8", "int16": "kTfLiteInt16", "int32": "kTfLiteInt32"}


def invoked(m: BenchModel, op_data: str, inputs: list[int], outputs: list[int]) -> str:
    """The state of a case timed as `registration.invoke(&context, &node)`: op_data declares `data`, the node's
    user_data (the .cc's OpData lives in its anonymous namespace: a struct of the same members stands in for
    it), and every tensor is a TfLiteEvalTensor of the shim's, over the harness's data and dims arrays."""
    lines = [op_data, "TFLMRegistration registration;", "TfLiteContext context = {};"]
    for t in (*inputs, *outputs):
        tensor = m.builder.tensors[t]
        lines.append(f"TfLiteEvalTensor e{t} = {{{{t{t}}}, {len(tensor.shape)}, d{t}, "
                     f"{TF_LITE_TYPES[tensor.dtype]}}};")
    for name, tensors in (("inputs", inputs), ("outputs", outputs)):
        lines.append(f"TfLiteEvalTensor* const {name}[] = {{{', '.join(f'&e{t}' for t in tensors)}}};")
    lines.append(f"TfLiteNode node = {{inputs, {len(inputs)}, outputs, {len(outputs)}, &data}};")
    return "\n".join(lines)


INVOKE = "registration.invoke(&context, &node);"


def add_squared_difference(m: BenchModel, label: str, second: int) -> None:
    """SquaredDifferenceEval (squared_difference.cc): ElementWise or BroadcastBinaryFunction4DSlow of add.h over
    the .cc's SquaredDifference, ArithmeticParams as its PrepareQuantized sets them (left shift 7)."""
    out = m.tensor(SHAPE, (0.5, -128))
    (s1, z1), (s2, z2), (so, zo) = m.quant(m.x), m.quant(second), m.quant(out)
    left_shift = 7
    twice_max = 2.0 * max(s1, s2)
    m1, sh1 = quantize_multiplier(s1 / twice_max)
    m2, sh2 = quantize_multiplier(s2 / twice_max)
    mo, sho = quantize_multiplier(twice_max * twice_max / float(np.float32(1 << 2 * left_shift) * np.float32(so)))
    op_data = "struct {\n  bool requires_broadcast;\n  tflite::ArithmeticParams arithmetic_params;\n} data;"
    setup = (f"registration = tflite::Register_SQUARED_DIFFERENCE();\n  data.requires_broadcast = "
             f"{'true' if m.shape(m.x) != m.shape(second) else 'false'};\n  "
             "tflite::ArithmeticParams& params = data.arithmetic_params;\n"
             + _fields(input1_offset=-z1, input2_offset=-z2, output_offset=zo, left_shift=left_shift,
                       input1_multiplier=m1, input1_shift=sh1, input2_multiplier=m2, input2_shift=sh2,
                       output_multiplier=mo, output_shift=sho) + "\n  " + INT8_RANGE)
    m.add(label, "SQUARED_DIFFERENCE", [m.x, second], out, (invoked(m, op_data, [m.x, second], [out]), setup, INVOKE))


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
    add_squared_difference(m, "SQUARED_DIFFERENCE", m.y)
    add_squared_difference(m, "SQUARED_DIFFERENCE (broadcast row)", m.row)
