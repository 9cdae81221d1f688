"""ADD_N, ARG_MAX, ARG_MIN, QUANTIZE and the data-movement cases, parameters as TFLM Micro's Prepare computes them
(add_n.cc, arg_min_max.cc, depth_to_space.cc, space_to_depth.cc, resize_nearest_neighbor.cc, resize_bilinear.cc,
pad.cc, concatenation.cc, slice.cc, broadcast_to.cc, fill.cc, space_to_batch_nd.cc, batch_to_space_nd.cc, reverse.cc,
quantize_common.cc)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from tflm_reference.elementwise_cases import INT8_RANGE, _fields
from tflm_reference.model import SHAPE, BenchModel, io, shape_expr


def add_add_n(m: BenchModel) -> None:
    out = m.tensor(SHAPE, (0.15, 3))
    (si, zi), (so, zo) = m.quant(m.x), m.quant(out)
    left_shift = 20
    twice_max = 2 * si
    mi, shi = quantize_multiplier(si / twice_max)
    mo, sho = quantize_multiplier(twice_max / ((1 << left_shift) * so))
    setup = _fields(left_shift=left_shift, input1_offset=-zi, output_offset=zo, input1_multiplier=mi,
                    input1_shift=shi, output_multiplier=mo, output_shift=sho) + "\n  " + INT8_RANGE
    state = f"tflite::ArithmeticParams params;\nconst int8_t* const inputs[3] = {{t{m.x}, t{m.x}, t{m.x}}};"
    call = f"tflite::reference_ops::AddN(params, {shape_expr(m, m.x)}, 3, inputs, t{out});"
    m.add("ADD_N (3 inputs)", "ADD_N", [m.x, m.x, m.x], out, (state, setup, call))


def add_arg_min_max(m: BenchModel, opcode: str, axis: int = 3) -> None:
    axis_tensor = m.builder.constant(f"{opcode.lower()}_axis_{axis}", np.array([axis], np.int32))
    out = m.tensor(tuple(n for d, n in enumerate(SHAPE) if d != axis), None, "int32")
    # arg_min_max.cc passes reference_ops::GreaterFn<T1> (ARG_MAX) or LessFn<T1> (ARG_MIN), plain `lhs > rhs` /
    # `lhs < rhs` functions
    state = f"bool compare(int8_t lhs, int8_t rhs) {{ return lhs {'>' if opcode == 'ARG_MAX' else '<'} rhs; }}"
    call = (f"tflite::reference_ops::ArgMinMax({shape_expr(m, m.x)}, t{m.x}, t{axis_tensor}, {shape_expr(m, out)}, "
            f"t{out}, compare);")
    m.add(f"{opcode} axis {axis}", opcode, [m.x, axis_tensor], out, (state, "", call), {"output_type": "int32"})


def add_block_moves(m: BenchModel) -> None:
    for opcode, shape, function, params in (
            ("DEPTH_TO_SPACE", (1, 32, 32, 4), "DepthToSpace", "DepthToSpaceParams"),
            ("SPACE_TO_DEPTH", (1, 8, 8, 64), "SpaceToDepth", "SpaceToDepthParams")):
        out = m.tensor(shape, m.quant(m.x))
        call = f"tflite::reference_ops::{function}(params, {io(m, m.x, out)});"
        m.add(f"{opcode} block 2", opcode, [m.x], out,
              (f"tflite::{params} params;", "params.block_size = 2;", call), {"block_size": 2})


def add_resizes(m: BenchModel) -> None:
    """2x up-sampling; TFLM's int8 RESIZE_BILINEAR runs ResizeBilinearInteger (half-pixel centers, and align
    corners)."""
    for opcode, function, params, align_corners, half_pixel in (
            ("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighbor", "ResizeNearestNeighborParams", False, False),
            ("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighbor", "ResizeNearestNeighborParams", False, True),
            ("RESIZE_BILINEAR", "ResizeBilinearInteger", "ResizeBilinearParams", False, True),
            ("RESIZE_BILINEAR", "ResizeBilinearInteger", "ResizeBilinearParams", True, False)):
        size = m.builder.constant(f"{opcode.lower()}_size_{int(align_corners)}{int(half_pixel)}",
                                  np.array([32, 32], np.int32))
        out = m.tensor((1, 32, 32, 16), m.quant(m.x))
        setup = (f"params.align_corners = {str(align_corners).lower()};\n  "
                 f"params.half_pixel_centers = {str(half_pixel).lower()};")
        call = (f"tflite::reference_ops::{function}(params, {shape_expr(m, m.x)}, t{m.x}, "
                f"{shape_expr(m, size)}, t{size}, {shape_expr(m, out)}, t{out});")
        label = f"{opcode} 2x" + (" half-pixel" if half_pixel else "") + (" align-corners" if align_corners else "")
        m.add(label, opcode, [m.x, size], out, (f"tflite::{params} params;", setup, call),
              {"align_corners": align_corners, "half_pixel_centers": half_pixel})


def add_concatenation(m: BenchModel) -> None:
    out = m.tensor((1, 16, 16, 32), m.quant(m.x))
    # TFLM's Eval gathers the input shapes and data pointers on every call, as this does (and the firmware's startup
    # runs no C++ constructors: no RuntimeShape may be a global)
    call = (f"const int8_t* const inputs[2] = {{t{m.x}, t{m.x}}};\n  const tflite::RuntimeShape shape = "
            f"{shape_expr(m, m.x)};\n  const tflite::RuntimeShape* const shapes[2] = {{&shape, &shape}};\n  "
            f"tflite::reference_ops::Concatenation(params, shapes, inputs, {shape_expr(m, out)}, t{out});")
    m.add("CONCATENATION 2 inputs, axis 3", "CONCATENATION", [m.x, m.x], out,
          ("tflite::ConcatenationParams params;", "params.axis = 3;\n  params.inputs_count = 2;", call),
          {"axis": 3})


def add_requantize(m: BenchModel) -> None:
    out = m.tensor(SHAPE, (0.07, -9))
    (si, zi), (so, zo) = m.quant(m.x), m.quant(out)
    multiplier, shift = quantize_multiplier(si / so)
    call = (f"tflite::reference_ops::Requantize(t{m.x}, {int(np.prod(SHAPE))}, {multiplier}, {shift}, {zi}, {zo}, "
            f"t{out});")
    m.add("QUANTIZE int8 -> int8", "QUANTIZE", [m.x], out, ("", "", call))


def add_pad(m: BenchModel) -> None:
    paddings = m.builder.constant("paddings", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))
    out = m.tensor((1, 18, 18, 16), m.quant(m.x))
    lines = ["params.left_padding_count = 4;", "params.right_padding_count = 4;",
             "params.resizing_category = tflite::ResizingCategory::kImageStyle;"]
    for k, (left, right) in enumerate(((0, 0), (1, 1), (1, 1), (0, 0))):
        lines += [f"params.left_padding[{k}] = {left};", f"params.right_padding[{k}] = {right};"]
    state = f"tflite::PadParams params;\nconst int8_t pad_value = {m.quant(out)[1]};"
    call = f"tflite::reference_ops::PadImageStyle(params, {shape_expr(m, m.x)}, t{m.x}, &pad_value, " \
           f"{shape_expr(m, out)}, t{out});"
    m.add("PAD 1 on H and W", "PAD", [m.x, paddings], out, (state, "\n  ".join(lines), call))


MASKS = ("begin_mask", "ellipsis_mask", "end_mask", "new_axis_mask", "shrink_axis_mask")


def add_strided_slice(m: BenchModel, label: str, spec: tuple[tuple[int, ...], ...], out_shape: tuple[int, ...],
                      masks: dict[str, int] | None = None) -> None:
    """spec: begin, end, strides; strided_slice_common.cc's params (the masks as the options give them, resolved by
    strided_slice_logic.h in the reference StridedSlice; TFLM's Eval copies the inner run with WriteN)."""
    masks = masks or {}
    operands = [m.builder.constant(f"strided_slice_{name}_{len(m.cases)}", np.array(values, np.int32))
                for name, values in zip(("begin", "end", "strides"), spec, strict=True)]
    out = m.tensor(out_shape, m.quant(m.x))
    lines = ["params.start_indices_count = 4;", "params.stop_indices_count = 4;", "params.strides_count = 4;"]
    for k in range(4):
        lines += [f"params.{field}[{k}] = {values[k]};"
                  for field, values in zip(("start_indices", "stop_indices", "strides"), spec, strict=True)]
    lines += [f"params.{mask} = {masks.get(mask, 0)};" for mask in MASKS] + ["params.offset = false;"]
    call = f"tflite::reference_ops::StridedSlice(params, {io(m, m.x, out)});"
    m.add(f"STRIDED_SLICE {label}", "STRIDED_SLICE", [m.x, *operands], out,
          ("tflite::StridedSliceParams params;", "\n  ".join(lines), call), masks)


def add_slice(m: BenchModel) -> None:
    """x[0:1, 2:14, 3:13, 4:12]: slice.cc's Eval fills SliceParams for 5 dimensions (begin 0, size 1 in front of the
    input's 4) and calls reference_ops::Slice<int8_t> (slice.h: an Offset per element through a
    SequentialTensorWriter); firmware-gen runs its STRIDED_SLICE kernel."""
    begin, size = (0, 2, 3, 4), (1, 12, 10, 8)
    operands = [m.builder.constant(f"slice_{name}", np.array(values, np.int32))
                for name, values in (("begin", begin), ("size", size))]
    out = m.tensor(size, m.quant(m.x))
    lines = ["params.begin_count = 5;", "params.size_count = 5;", "params.begin[0] = 0;", "params.size[0] = 1;"]
    for k in range(4):
        lines += [f"params.begin[{k + 1}] = {begin[k]};", f"params.size[{k + 1}] = {size[k]};"]
    call = f"tflite::reference_ops::Slice<int8_t>(params, {io(m, m.x, out)});"
    m.add("SLICE [0:1,2:14,3:13,4:12]", "SLICE", [m.x, *operands], out,
          ("tflite::SliceParams params;", "\n  ".join(lines), call))


def add_broadcast_to(m: BenchModel) -> None:
    """A row of channels to x's shape (copies of 16 bytes), and a column (1, 16, 16, 1) to it (copies of one byte):
    broadcast_to.cc's Eval calls reference_ops::BroadcastTo<5> (broadcast_to.h: a memcpy per copied run)."""
    column = m.builder.input("broadcast_column", (1, 16, 16, 1), "int8", scale=0.02, zero_point=-7)
    for source in (m.row, column):
        target = m.builder.constant(f"broadcast_to_shape_{source}", np.array(SHAPE, np.int32))
        out = m.tensor(SHAPE, m.quant(source))
        call = (f"tflite::reference_ops::BroadcastTo<5>({shape_expr(m, source)}, "
                f"reinterpret_cast<const char*>(t{source}), {shape_expr(m, out)}, reinterpret_cast<char*>(t{out}), "
                "kTfLiteInt8);")
        m.add(f"BROADCAST_TO {m.shape(source)} -> x", "BROADCAST_TO", [source, target], out, ("", "", call))


def add_fill(m: BenchModel) -> None:
    """FILL of x's shape from a scalar that is a model input (a constant one is folded at generation time): fill.cc's
    Eval calls reference_ops::Fill<int8_t> (fill.h: an element loop)."""
    value = m.builder.input("fill_value", (), "int8", scale=0.1, zero_point=0)
    dims = m.builder.constant("fill_dims", np.array(SHAPE, np.int32))
    out = m.tensor(SHAPE, m.quant(value))
    call = f"tflite::reference_ops::Fill(tflite::RuntimeShape(), t{value}, {shape_expr(m, out)}, t{out});"
    m.add("FILL x's shape", "FILL", [dims, value], out, ("", "", call))


def add_space_batch(m: BenchModel) -> None:
    """Blocks 2x2: SPACE_TO_BATCH_ND of x padded by 1 (TFLM's int8 kernel pads with the raw value 0, output_offset
    0, as our property tests against the oracle confirm), and BATCH_TO_SPACE_ND of x seen as [4, 8, 8, 16] (a
    RESHAPE, a view on our side; TFLM reads the same bytes under that shape) with no crops."""
    block = m.builder.constant("space_batch_block", np.array([2, 2], np.int32))
    paddings = m.builder.constant("space_batch_paddings", np.array([[1, 1], [1, 1]], np.int32))
    out = m.tensor((4, 9, 9, 16), m.quant(m.x))
    call = (f"tflite::reference_ops::SpaceToBatchND(params, {shape_expr(m, m.x)}, t{m.x}, {shape_expr(m, block)}, "
            f"t{block}, {shape_expr(m, paddings)}, t{paddings}, {shape_expr(m, out)}, t{out});")
    m.add("SPACE_TO_BATCH_ND block 2x2, pad 1", "SPACE_TO_BATCH_ND", [m.x, block, paddings], out,
          ("tflite::SpaceToBatchParams params;", "params.output_offset = 0;", call))
    batched = m.tensor((4, 8, 8, 16), m.quant(m.x))
    m.builder.operator("RESHAPE", [m.x], [batched], {"new_shape": (4, 8, 8, 16)})
    crops = m.builder.constant("batch_space_crops", np.array([[0, 0], [0, 0]], np.int32))
    out = m.tensor(SHAPE, m.quant(m.x))
    call = (f"tflite::reference_ops::BatchToSpaceND({shape_expr(m, batched)}, t{m.x}, {shape_expr(m, block)}, "
            f"t{block}, {shape_expr(m, crops)}, t{crops}, {shape_expr(m, out)}, t{out});")
    m.add("BATCH_TO_SPACE_ND block 2x2", "BATCH_TO_SPACE_ND", [batched, block, crops], out, ("", "", call))


def add_reverse(m: BenchModel) -> None:
    """REVERSE_V2 along one axis: W (rows of channels moved whole) and C (each row reversed); reverse.cc passes
    the single axis in a std::array of 8."""
    for axis in (2, 3):
        axes = m.builder.constant(f"reverse_axis_{axis}", np.array([axis], np.int32))
        out = m.tensor(SHAPE, m.quant(m.x))
        state = "std::array<int32_t, 8> axes;"
        call = f"tflite::reference_ops::Reverse(axes, 1, {shape_expr(m, m.x)}, t{m.x}, t{out});"
        m.add(f"REVERSE_V2 axis {axis}", "REVERSE_V2", [m.x, axes], out, (state, f"axes[0] = {axis};", call))


def add_movement_cases(m: BenchModel) -> None:
    add_add_n(m)
    add_arg_min_max(m, "ARG_MAX")
    add_arg_min_max(m, "ARG_MIN")
    add_arg_min_max(m, "ARG_MAX", axis=1)
    add_block_moves(m)
    add_resizes(m)
    add_pad(m)
    add_concatenation(m)
    add_strided_slice(m, "[:,1:15:2,::2,4:12]", ((0, 1, 0, 4), (1, 15, 16, 12), (1, 2, 2, 1)), (1, 7, 8, 8))
    add_strided_slice(m, "[:,::-1,3,:] (masks)", ((0, 0, 3, 0), (0, 0, 4, 0), (1, -1, 1, 1)), (1, 16, 16),
                      {"begin_mask": 0b1011, "end_mask": 0b1011, "shrink_axis_mask": 0b0100})
    add_slice(m)
    add_broadcast_to(m)
    add_fill(m)
    add_space_batch(m)
    add_reverse(m)
    add_requantize(m)
