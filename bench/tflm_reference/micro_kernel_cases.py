"""Cases whose int8 Eval is code of TFLM's micro kernel .cc files rather than a reference/*.h function: the case
calls the .cc's own helper, or the invoke of its registration, compiled from --tflm-src (harness.TFLM_SOURCES),
with the parameters its Prepare would set (activations_common.cc, squared_difference.cc, gather.cc,
mirror_pad.cc, elementwise.cc, elu.cc, cast.cc, pack.cc, split.cc, split_v.cc, unpack.cc, gather_nd.cc,
zeros_like.cc)."""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.ops.activation.activation_tables import elu_table
from firmware_gen.ops.support.fixedpoint import quantize_multiplier, round_half_away
from tflm_reference.elementwise_cases import INT8_RANGE, _fields, two_input_rescale
from tflm_reference.model import SHAPE, BenchModel, io, shape_expr

TF_LITE_TYPES = {"int8": "kTfLiteInt8", "int16": "kTfLiteInt16", "int32": "kTfLiteInt32"}


def invoked(m: BenchModel, op_data: str, inputs: list[int], outputs: list[int], builtin: str = "",
            registration: str = "TFLMRegistration") -> str:
    """The state of a case timed as `registration.invoke(&context, &node)`: op_data declares `data`, the node's
    user_data (the .cc's OpData lives in its anonymous namespace: a struct of the same members stands in for
    it), builtin declares `options`, its builtin_data; every tensor is a TfLiteEvalTensor of the shim's over the
    harness's data array, its dims a TfLiteIntArray of ints (as TFLM points into the flatbuffer's)."""
    lines = [op_data, builtin, f"{registration} registration;", "TfLiteContext context = {};"]
    for t in (*inputs, *outputs):
        tensor = m.builder.tensors[t]
        shape = tensor.shape or (1,)
        lines.append(f"int dims{t}[] = {{{len(shape)}, {', '.join(map(str, shape))}}};")
        lines.append(f"TfLiteEvalTensor e{t} = {{{{.raw = t{t}}}, reinterpret_cast<TfLiteIntArray*>(dims{t}), "
                     f"{TF_LITE_TYPES[tensor.dtype]}}};")
    for name, tensors in (("inputs", inputs), ("outputs", outputs)):
        lines.append(f"TfLiteEvalTensor* const {name}[] = {{{', '.join(f'&e{t}' for t in tensors)}}};")
    user_data = "&data" if op_data else "nullptr"
    builtin_data = "&options" if builtin else "nullptr"
    lines.append(f"TfLiteNode node = {{inputs, {len(inputs)}, outputs, {len(outputs)}, {user_data}, "
                 f"{builtin_data}}};")
    return "\n".join(line for line in lines if line)


INVOKE = "registration.invoke(&context, &node);"


def add_squared_difference(m: BenchModel, label: str, second: int) -> None:
    """SquaredDifferenceEval (squared_difference.cc): ElementWise or BroadcastBinaryFunction4DSlow of add.h over
    the .cc's SquaredDifference, ArithmeticParams as its PrepareQuantized sets them (left shift 7)."""
    out = m.tensor(SHAPE, (0.5, -128))
    (s1, z1), (s2, z2), (so, zo) = m.quant(m.x), m.quant(second), m.quant(out)
    left_shift = 7
    twice_max, input_fields = two_input_rescale(s1, s2)
    mo, sho = quantize_multiplier(twice_max * twice_max / float(np.float32(1 << 2 * left_shift) * np.float32(so)))
    op_data = "struct {\n  bool requires_broadcast;\n  tflite::ArithmeticParams arithmetic_params;\n} data;"
    setup = (f"registration = tflite::Register_SQUARED_DIFFERENCE();\n  data.requires_broadcast = "
             f"{'true' if m.shape(m.x) != m.shape(second) else 'false'};\n  "
             "tflite::ArithmeticParams& params = data.arithmetic_params;\n"
             + _fields(input1_offset=-z1, input2_offset=-z2, output_offset=zo, left_shift=left_shift,
                       **input_fields, output_multiplier=mo, output_shift=sho) + "\n  " + INT8_RANGE)
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


def add_gather(m: BenchModel, axis: int, indices: np.ndarray) -> None:
    """gather.cc's Eval: Gather<int8_t, int32_t>, a memcpy of each index's inner block (no OpData)."""
    coords = m.builder.constant(f"gather_axis{axis}", indices.astype(np.int32))
    shape = list(m.shape(m.x))
    shape[axis] = len(indices)
    out = m.tensor(tuple(shape), m.quant(m.x))
    builtin = f"TfLiteGatherParams options = {{{axis}, 0}};"
    state = invoked(m, "", [m.x, coords], [out], builtin)
    m.add(f"GATHER axis {axis} ({len(indices)} indices)", "GATHER", [m.x, coords], out,
          (state, "registration = tflite::Register_GATHER();", INVOKE), {"axis": axis, "batch_dims": 0})


def add_mirror_pad(m: BenchModel, mode: str) -> None:
    """mirror_pad.cc's MirrorPadEval, OpDataMirrorPad as MirrorPadPrepare sets it (offset 1 for REFLECT, 0 for
    SYMMETRIC, its two scratch buffers of input_dims ints)."""
    pads = ((0, 0), (1, 1), (1, 1), (0, 0))
    paddings = m.builder.constant(f"mirror_paddings_{mode.lower()}", np.array(pads, np.int32))
    out_shape = tuple(d + left + right for d, (left, right) in zip(m.shape(m.x), pads, strict=True))
    out = m.tensor(out_shape, m.quant(m.x))
    op_data = ("struct {\n  int input_dims;\n  int output_size;\n  int offset;\n"
               "  int output_dims_num_elements_buffer_index;\n  int input_dims_num_elements_buffer_index;\n} data;")
    setup = ("registration = tflite::Register_MIRROR_PAD();\n  context.GetScratchBuffer = BenchScratchBuffer;\n  "
             f"data = {{{len(out_shape)}, {int(np.prod(out_shape))}, {1 if mode == 'REFLECT' else 0}, 0, 1}};")
    m.add(f"MIRROR_PAD {mode} 1 on H and W", "MIRROR_PAD", [m.x, paddings], out,
          (invoked(m, op_data, [m.x, paddings], [out]), setup, INVOKE), {"mode": mode})


ABS_RSQRT_OP_DATA = ("struct {\n  int32_t multiplier;\n  int shift;\n  int input_offset;\n  int output_offset;\n"
                     "  bool needs_rescale;\n  TfLiteQuantizationType input_quantization_type;\n"
                     "  TfLiteType input_type;\n} data;")


def add_abs_rsqrt(m: BenchModel, opcode: str) -> None:
    """elementwise.cc's AbsEval / RsqrtEval: EvalImplQuantized<int8_t> over AbsEvalQuantized / RsqrtEvalQuantized
    (RSQRT checks every input against the zero point first), OpDataAbsRsqrt as PrepareAbsRsqrt sets it. RSQRT
    reads an input of zero point -128 (TFLM fails on values below the zero point)."""
    source = m.x
    if opcode == "RSQRT":
        source = m.builder.input("rsqrt_in", SHAPE, "int8", scale=0.02, zero_point=-128)
    out = m.tensor(SHAPE, (0.03, -128))
    (si, zi), (so, zo) = m.quant(source), m.quant(out)
    if opcode == "ABS":
        multiplier, shift = quantize_multiplier(si / so)
    else:
        multiplier, shift = quantize_multiplier(1.0 / (math.sqrt(si) * so))
    setup = (f"registration = tflite::Register_{opcode}();\n  "
             f"data = {{{multiplier}, {shift}, {zi}, {zo}, {'true' if si != so else 'false'}, "
             "kTfLiteAffineQuantization, kTfLiteInt8};")
    m.add(opcode, opcode, [source], out, (invoked(m, ABS_RSQRT_OP_DATA, [source], [out]), setup, INVOKE))


def add_elu(m: BenchModel) -> None:
    """elu.cc's EluEval: EvalUsingLookupTable over OpData's 256 bytes. Its Prepare fills them in float32
    (PopulateLookupTable); the case takes them from firmware-gen's elu_table, the same float32 computation,
    whose bytes the ELU property test holds equal to TFLM's."""
    out = m.tensor(SHAPE, (0.04, -100))
    table = elu_table(m.quant(m.x), m.quant(out))
    setup = ("registration = tflite::micro::Register_ELU();\n  const int8_t table[256] = {"
             + ", ".join(str(int(v)) for v in table) + "};\n  std::memcpy(data.table, table, sizeof(table));")
    m.add("ELU", "ELU", [m.x], out,
          (invoked(m, "struct {\n  int8_t table[256];\n} data;", [m.x], [out]), setup, INVOKE))


def add_cast(m: BenchModel, narrowing: bool) -> None:
    """cast.cc's Eval: copyToTensor, a std::transform of static_casts (no OpData, no parameters); int8 -> int16, or
    int16 (a model input of its own) -> int8."""
    source = m.builder.input("cast_in16", SHAPE, "int16") if narrowing else m.x
    out = m.builder.tensor(f"t{len(m.builder.tensors)}", SHAPE, "int8") if narrowing else m.tensor(SHAPE, None,
                                                                                                    "int16")
    types = ("int16", "int8") if narrowing else ("int8", "int16")
    m.add(f"CAST {types[0]} -> {types[1]}", "CAST", [source], out,
          (invoked(m, "", [source], [out], registration="TfLiteRegistration"),
           "registration = tflite::Register_CAST();", INVOKE),
          {"in_data_type": types[0], "out_data_type": types[1]})


def add_pack(m: BenchModel, axis: int) -> None:
    """pack.cc's Eval: PackImpl<int8_t>, an element loop per copy_size run of each input (no OpData); x and a second
    input packed along axis 3 (runs of 16 bytes) or 4 (single bytes)."""
    scale, zero_point = m.quant(m.x)
    other = m.builder.input(f"pack_x2_{axis}", SHAPE, "int8", scale=scale, zero_point=zero_point)
    out = m.tensor((*SHAPE[:axis], 2, *SHAPE[axis:]), (scale, zero_point))
    builtin = f"TfLitePackParams options = {{2, {axis}}};"
    m.add(f"PACK 2 inputs, axis {axis}", "PACK", [m.x, other], out,
          (invoked(m, "", [m.x, other], [out], builtin, registration="TfLiteRegistration"),
           "registration = tflite::ops::micro::Register_PACK();", INVOKE), {"values_count": 2, "axis": axis})


AXIS_NAMES = {1: "H", 2: "W", 3: "C"}


def add_split(m: BenchModel, axis: int) -> None:
    """split.cc's SplitEval: SplitImpl<int8_t>, an element loop per output run; 4 outputs along the axis, compared
    on the first."""
    axis_tensor = m.builder.constant(f"split_axis_{axis}", np.array([axis], np.int32))
    shape = tuple(4 if d == axis else n for d, n in enumerate(SHAPE))
    outs = [m.tensor(shape, m.quant(m.x)) for _ in range(4)]
    m.add(f"SPLIT 4 ways along {AXIS_NAMES[axis]}", "SPLIT", [axis_tensor, m.x], outs[0],
          (invoked(m, "", [axis_tensor, m.x], outs), "registration = tflite::micro::Register_SPLIT();", INVOKE),
          {"num_splits": 4}, tuple(outs[1:]))


def add_split_v(m: BenchModel) -> None:
    """split_v.cc's SplitVEval: SplitImpl<int8_t>, an element loop per output run; sizes 3, 5 and 8 along C,
    compared on the first output."""
    sizes = (3, 5, 8)
    size_splits = m.builder.constant("split_v_sizes", np.array(sizes, np.int32))
    axis = m.builder.constant("split_v_axis", np.array([3], np.int32))
    outs = [m.tensor((1, 16, 16, size), m.quant(m.x)) for size in sizes]
    m.add("SPLIT_V 3, 5, 8 along C", "SPLIT_V", [m.x, size_splits, axis], outs[0],
          (invoked(m, "", [m.x, size_splits, axis], outs), "registration = tflite::Register_SPLIT_V();", INVOKE),
          {"num_splits": len(sizes)}, tuple(outs[1:]))


def add_unpack(m: BenchModel, axis: int) -> None:
    """unpack.cc's UnpackEval: UnpackImpl<int8_t>, an element loop per run; x unpacked along the axis into 16
    outputs, compared on the first."""
    outs = [m.tensor((1, 16, 16), m.quant(m.x)) for _ in range(16)]
    builtin = f"TfLiteUnpackParams options = {{16, {axis}}};"
    m.add(f"UNPACK 16 along {AXIS_NAMES[axis]}", "UNPACK", [m.x], outs[0],
          (invoked(m, "", [m.x], outs, builtin), "registration = tflite::micro::Register_UNPACK();", INVOKE),
          {"num": 16, "axis": axis}, tuple(outs[1:]))


def add_zeros_like(m: BenchModel) -> None:
    """zeros_like.cc's Eval: resetZeros<int8_t>, an element loop. On our side the operator runs only when its output
    is a graph output (it is folded otherwise), as here."""
    out = m.tensor(SHAPE, m.quant(m.x))
    m.add("ZEROS_LIKE", "ZEROS_LIKE", [m.x], out,
          (invoked(m, "", [m.x], [out], registration="TfLiteRegistration"),
           "registration = tflite::Register_ZEROS_LIKE();", INVOKE))


def add_gather_nd(m: BenchModel) -> None:
    """gather_nd.cc's Eval: GatherNd<int8_t, int32_t>, a memcpy per slice; the 256 pixels of x in a shuffled order,
    each a slice of 16 channels."""
    rng = np.random.default_rng(5)
    pixels = rng.permutation(256)
    coords = np.stack([np.zeros(256, int), pixels // 16, pixels % 16], axis=1).astype(np.int32)
    indices = m.builder.constant("gather_nd_indices", coords)
    out = m.tensor((256, 16), m.quant(m.x))
    m.add("GATHER_ND 256 pixels", "GATHER_ND", [m.x, indices], out,
          (invoked(m, "", [m.x, indices], [out], registration="TfLiteRegistration"),
           "registration = tflite::Register_GATHER_ND();", INVOKE))


def add_micro_kernel_cases(m: BenchModel) -> None:
    add_relu(m)
    add_relu6(m)
    add_squared_difference(m, "SQUARED_DIFFERENCE", m.y)
    add_squared_difference(m, "SQUARED_DIFFERENCE (broadcast row)", m.row)
    add_gather(m, 1, np.random.default_rng(3).integers(0, 16, 16))
    add_gather(m, 3, np.random.default_rng(4).integers(0, 16, 16))
    add_mirror_pad(m, "REFLECT")
    add_mirror_pad(m, "SYMMETRIC")
    add_abs_rsqrt(m, "ABS")
    add_abs_rsqrt(m, "RSQRT")
    add_elu(m)
    add_cast(m, narrowing=False)
    add_cast(m, narrowing=True)
    add_pack(m, 3)
    add_pack(m, 4)
    add_split(m, 3)
    add_split(m, 1)
    add_split_v(m)
    add_unpack(m, 2)
    add_unpack(m, 3)
    add_gather_nd(m)
    add_zeros_like(m)
