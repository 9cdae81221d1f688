"""TRANSPOSE_CONV on int8 NHWC tensors, and its 16x8 form, as TFLite Micro's reference kernels compute them.

Inputs: output shape (int32 [4], which TFLM ignores: the output tensor's shape rules), filter [out_c, fh, fw, in_c]
(int8, symmetric, per tensor or per output channel along axis 0), input, optional int32 bias. The padding is the
one a CONV_2D from the output back to the input would have (TFLite's ComputePaddingHeightWidth with the output's
height and width as its input size).

TFLM scatters every input pixel into an int32 scratch accumulator the size of the output, then requantizes it. Our
kernel gathers instead: each output value sums the (input, tap) pairs that the scatter would have added to it, in
a register, then goes through the same output stage (ops/support/requantize.py). The int32 sums are the same integers,
so
the outputs are bit-exact, and no scratch buffer is needed (none in the plan, none hidden in the kernel).

16x8 (int16 activations, zero point 0): TFLM scatters into an int64 scratch buffer with an int64 bias (or none) and
scales with the 64-bit multiply; fg_transpose_conv2d_s16 gathers the same sums and takes the bias as the other 16x8
kernels do (ops/convolution/weighted_16x8.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.weighted_16x8 import check_int64_bias, is_16x8, wide_bias
from firmware_gen.ops.geometry import output_size, padding_before
from firmware_gen.ops.overlap import OutputOverlap, forward_raster_bytes
from firmware_gen.ops.support.requantize import bias_tensor, convolution_multipliers, output_stage, weights_tensor
from firmware_gen.ops.support.tensor_checks import activation_per_tensor, same_activation_dtype, unsupported

OUTPUT_SHAPE, FILTER, INPUT, BIAS = 0, 1, 2, 3


@dataclass(frozen=True)
class TransposeConvShapes:
    source: Tensor
    weights: Tensor
    result: Tensor
    stride: tuple[int, int]
    pad: tuple[int, int]  # top, left


def transpose_conv_shapes(graph: Graph, op: Operator) -> TransposeConvShapes:
    """The operands and geometry, checked against each other and against what TFLM accepts."""
    if len(op.inputs) not in (3, 4) or len(op.outputs) != 1:
        raise unsupported(graph, op, "expected output shape, filter, input, optional bias and one output")
    source = activation_per_tensor(graph, op, op.inputs[INPUT], "input")
    result = activation_per_tensor(graph, op, op.outputs[0], "output")
    same_activation_dtype(graph, op, source, result)
    if op.inputs[FILTER] < 0 or len(graph.tensors[op.inputs[FILTER]].shape) != 4:
        raise unsupported(graph, op, "the filter must be a 4-D [out_channels, height, width, in_channels] tensor")
    weights = weights_tensor(graph, op, op.inputs[FILTER], 0, graph.tensors[op.inputs[FILTER]].shape[0])
    if len(source.shape) != 4 or len(result.shape) != 4:
        raise unsupported(graph, op, f"input {source.describe()}, filter {weights.describe()} and output "
                                     f"{result.describe()} must all be 4-D (NHWC, OHWI)")
    out_c, filter_h, filter_w, in_c = weights.shape
    if in_c != source.shape[3] or out_c != result.shape[3] or source.shape[0] != result.shape[0]:
        raise unsupported(graph, op, f"filter {weights.describe()} does not connect input {source.describe()} to "
                                     f"output {result.describe()}")
    _check_output_shape_operand(graph, op, result)
    padding = op.options.get("padding")
    if padding not in ("SAME", "VALID"):
        raise unsupported(graph, op, f"option padding={padding} is not supported (SAME, VALID)")
    stride = (op.options.get("stride_h", 1), op.options.get("stride_w", 1))
    if min(stride) < 1:
        raise unsupported(graph, op, f"option stride_h={stride[0]}, stride_w={stride[1]}: strides must be >= 1")
    pad = tuple(padding_before(size, taps, step, 1, output_size(padding, size, taps, step))
                for size, taps, step in zip(result.shape[1:3], (filter_h, filter_w), stride, strict=True))
    if is_16x8(source):  # its bias types first: narrower than bias_tensor's
        check_int64_bias(graph, op, BIAS)
    bias_tensor(graph, op, out_c, BIAS, source)
    return TransposeConvShapes(source, weights, result, stride, pad)


def _check_output_shape_operand(graph: Graph, op: Operator, result: Tensor) -> None:
    """TFLM ignores the output-shape operand; a constant one that contradicts the output tensor is refused."""
    shape = graph.tensors[op.inputs[OUTPUT_SHAPE]] if op.inputs[OUTPUT_SHAPE] >= 0 else None
    if shape is not None and shape.is_constant and shape.data is not None:
        values = [int(v) for v in np.asarray(shape.data).ravel()]
        if values != list(result.shape):
            raise unsupported(graph, op, f"output shape operand {values} differs from output {result.describe()}")


def _first_row_read(out_index: np.ndarray, pad: int, taps: int, stride: int) -> np.ndarray:
    """The lowest input row (or column) an output row reads: ceil((out + pad - taps + 1) / stride), at least 0."""
    return np.maximum(-((taps - 1 - out_index - pad) // stride), 0)


class TransposeConvKernel:
    opcode = "TRANSPOSE_CONV"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        transpose_conv_shapes(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        shapes = transpose_conv_shapes(graph, op)
        out_c, filter_h, filter_w, _ = shapes.weights.shape
        return shapes.source.num_elements * filter_h * filter_w * out_c

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        shapes = transpose_conv_shapes(graph, op)
        batches, in_h, in_w, in_c = shapes.source.shape
        out_c, filter_h, filter_w, _ = shapes.weights.shape
        multipliers, shifts = convolution_multipliers(shapes.source.quantization.scale,
                                                      shapes.weights.quantization.scales,
                                                      shapes.result.quantization.scale)
        stage = output_stage(graph, op, shapes.source, shapes.result, multipliers, shifts)
        params = {"batches": batches, "in_h": in_h, "in_w": in_w, "in_c": in_c, "out_h": shapes.result.shape[1],
                  "out_w": shapes.result.shape[2], "out_c": out_c, "filter_h": filter_h, "filter_w": filter_w,
                  "stride_h": shapes.stride[0], "stride_w": shapes.stride[1], "pad_top": shapes.pad[0],
                  "pad_left": shapes.pad[1], **stage.fields}
        if is_16x8(shapes.source):
            tables, params["wide"] = wide_bias(graph, op, BIAS)
            return KernelCall("fg_transpose_conv2d_s16", "fg_transpose_conv2d_params", params,
                              inputs=[op.inputs[INPUT], op.inputs[FILTER]], outputs=[op.outputs[0]],
                              tables=[*stage.tables, *tables])
        bias = op.inputs[BIAS] if len(op.inputs) > BIAS else -1
        return KernelCall("fg_transpose_conv2d_s8", "fg_transpose_conv2d_params", params,
                          inputs=[op.inputs[INPUT], op.inputs[FILTER], bias], outputs=[op.outputs[0]],
                          tables=stage.tables)

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        """The gather kernel stores output pixels in raster order; pixel (y, x) reads input rows and columns from
        _first_row_read on (an output that reads nothing is bounded by the same formula from below)."""
        shapes = transpose_conv_shapes(graph, op)
        batches, in_h, in_w, in_c = shapes.source.shape
        _, out_h, out_w, out_c = shapes.result.shape
        _, filter_h, filter_w, _ = shapes.weights.shape
        rows = np.minimum(_first_row_read(np.arange(out_h), shapes.pad[0], filter_h, shapes.stride[0]), in_h - 1)
        cols = np.minimum(_first_row_read(np.arange(out_w), shapes.pad[1], filter_w, shapes.stride[1]), in_w - 1)
        image = (rows[:, None] * in_w + cols[None, :]).ravel()
        low = (np.arange(batches)[:, None] * in_h * in_w + image[None, :]).ravel()
        allowed = forward_raster_bytes(low, in_c * shapes.source.dtype.itemsize,
                                       out_c * shapes.result.dtype.itemsize, shapes.result.nbytes)
        return [OutputOverlap(op.inputs[INPUT], op.outputs[0], allowed)] if allowed > 0 else []


KERNELS = [TransposeConvKernel()]
