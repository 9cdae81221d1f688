"""CONV_2D and DEPTHWISE_CONV_2D on int8 NHWC tensors, as TFLite Micro's reference kernels compute them.

Taps that fall in the implicit padding are skipped (TFLite's SAME puts the odd padding row or column after
the image, so only the padding before it is a parameter). Weights are int8 and symmetric, per tensor or per
output channel; the bias is optional int32.

With constant weights (and bias) the lowering picks a fast variant, bit-exact with the reference: the input
zero point is folded into the bias at generation time (bias + input_offset * sum of the taps), so the inner
loops are plain int8 dot products. A tap in the padding then adds zero_point * tap, cancelling its share.
  fg_conv2d_pointwise_s8     1x1 filter, stride 1: two pixels x four channels per inner loop (blocking.py)
  fg_conv2d_folded_s8        any other convolution, the same loop (fg_depthwise_conv2d_one_channel_s8: a
                             depthwise one of one input channel, any depth multiplier, as that convolution)
  fg_depthwise_conv2d_3x3_s8 3x3 depthwise, depth_multiplier 1 (filter repacked as [channel][9 taps])
Other depthwise convolutions, and non-constant weights, use the reference kernels. With int16 activations (16x8)
fg_conv2d_s16 / fg_depthwise_conv2d_s16 run them (ops/convolution/weighted_16x8.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.convolution.blocking import GROUP as BLOCK
from firmware_gen.ops.convolution.blocking import blocked_filter
from firmware_gen.ops.convolution.weighted_16x8 import call_16x8, check_depthwise_16x8, is_16x8
from firmware_gen.ops.geometry import Window2D, window_2d
from firmware_gen.ops.overlap import OutputOverlap, window_overlap
from firmware_gen.ops.support.requantize import (
    OutputStage,
    bias_tensor,
    constant_operands,
    convolution_multipliers,
    folded_bias,
    output_stage,
    weights_tensor,
)
from firmware_gen.ops.support.tensor_checks import activation_per_tensor, same_activation_dtype, unsupported


@dataclass(frozen=True)
class ConvShapes:
    source: Tensor
    weights: Tensor
    result: Tensor
    window: Window2D
    out_channels: int


def conv_window(graph: Graph, op: Operator, source: Tensor, filter_hw: tuple[int, int]) -> Window2D:
    """The window geometry from the operator's options, after checking them."""
    options = op.options
    padding = options.get("padding")
    if padding not in ("SAME", "VALID"):
        raise unsupported(graph, op, f"padding {padding} is not supported (SAME, VALID)")
    sizes = {name: options.get(name, 1) for name in ("stride_h", "stride_w", "dilation_h", "dilation_w")}
    bad = [f"{name}={value}" for name, value in sizes.items() if value < 1]
    if bad:
        raise unsupported(graph, op, f"invalid {', '.join(bad)}")
    window = window_2d(padding, source.shape[1:3], filter_hw, (sizes["stride_h"], sizes["stride_w"]),
                       (sizes["dilation_h"], sizes["dilation_w"]))
    if window.out_h < 1 or window.out_w < 1:
        raise unsupported(graph, op, f"the {filter_hw[0]}x{filter_hw[1]} filter (dilation {sizes['dilation_h']}x"
                                     f"{sizes['dilation_w']}) does not fit in input {source.describe()} with "
                                     f"VALID padding")
    return window


def _activations(graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
    if len(op.inputs) not in (2, 3) or len(op.outputs) != 1:
        raise unsupported(graph, op, "expected input, weights, optional bias and one output")
    source = activation_per_tensor(graph, op, op.inputs[0], "input")
    result = activation_per_tensor(graph, op, op.outputs[0], "output")
    same_activation_dtype(graph, op, source, result)
    for role, tensor in (("input", source), ("output", result)):
        if len(tensor.shape) != 4:
            raise unsupported(graph, op, f"{role} {tensor.describe()} is not 4-D NHWC")
    return source, result


def _check_output_shape(graph: Graph, op: Operator, shapes: ConvShapes) -> None:
    window = shapes.window
    expected = (shapes.source.shape[0], window.out_h, window.out_w, shapes.out_channels)
    if tuple(shapes.result.shape) != expected:
        raise unsupported(graph, op, f"output {shapes.result.describe()} should be {list(expected)} for this "
                                     f"input, filter and window")


def conv2d_shapes(graph: Graph, op: Operator) -> ConvShapes:
    """CONV_2D operands, checked: filter [out_c, fh, fw, in_c] quantized along axis 0."""
    source, result = _activations(graph, op)
    weights = graph.tensors[op.inputs[1]] if op.inputs[1] >= 0 else None
    if weights is None or len(weights.shape) != 4:
        raise unsupported(graph, op, "the filter must be a 4-D [out_channels, height, width, in_channels] tensor")
    out_channels, filter_h, filter_w, filter_depth = weights.shape
    if filter_depth != source.shape[3]:
        raise unsupported(graph, op, f"filter {weights.describe()} has {filter_depth} input channels for input "
                                     f"{source.describe()}; grouped convolution is not supported")
    weights_tensor(graph, op, op.inputs[1], 0, out_channels)
    shapes = ConvShapes(source, weights, result, conv_window(graph, op, source, (filter_h, filter_w)), out_channels)
    _check_output_shape(graph, op, shapes)
    bias_tensor(graph, op, out_channels)
    return shapes


def depthwise_shapes(graph: Graph, op: Operator) -> ConvShapes:
    """DEPTHWISE_CONV_2D operands, checked: filter [1, fh, fw, in_c * depth_multiplier] quantized along axis 3."""
    source, result = _activations(graph, op)
    weights = graph.tensors[op.inputs[1]] if op.inputs[1] >= 0 else None
    if weights is None or len(weights.shape) != 4 or weights.shape[0] != 1:
        raise unsupported(graph, op, "the filter must be a 4-D [1, height, width, out_channels] tensor")
    _, filter_h, filter_w, out_channels = weights.shape
    in_channels = source.shape[3]
    multiplier = op.options.get("depth_multiplier", 1)
    if out_channels != in_channels * multiplier:
        raise unsupported(graph, op, f"filter {weights.describe()} has {out_channels} output channels; input "
                                     f"{source.describe()} with depth_multiplier {multiplier} needs "
                                     f"{in_channels * multiplier}")
    weights_tensor(graph, op, op.inputs[1], 3, out_channels)
    shapes = ConvShapes(source, weights, result, conv_window(graph, op, source, (filter_h, filter_w)), out_channels)
    _check_output_shape(graph, op, shapes)
    if is_16x8(source):  # its bias types first: narrower than bias_tensor's
        check_depthwise_16x8(graph, op, filter_w)
    bias_tensor(graph, op, out_channels)
    return shapes


def window_fields(window: Window2D) -> dict[str, int]:
    return {
        "filter_h": window.filter_h,
        "filter_w": window.filter_w,
        "stride_h": window.stride_h,
        "stride_w": window.stride_w,
        "dilation_h": window.dilation_h,
        "dilation_w": window.dilation_w,
        "pad_top": window.pad_top,
        "pad_left": window.pad_left,
    }


def conv_output_stage(graph: Graph, op: Operator, shapes: ConvShapes) -> OutputStage:
    source, result = shapes.source, shapes.result
    multipliers, shifts = convolution_multipliers(source.quantization.scale, shapes.weights.quantization.scales,
                                                  result.quantization.scale)
    return output_stage(graph, op, source, result, multipliers, shifts)


def _call_16x8(graph: Graph, op: Operator, shapes: ConvShapes, function: str, params_type: str,
               geometry: dict[str, int], placeholders: dict[str, object],
               interleave: bool = False) -> KernelCall:
    multipliers, shifts = convolution_multipliers(shapes.source.quantization.scale,
                                                  shapes.weights.quantization.scales, shapes.result.quantization.scale)
    return call_16x8(graph, op, function, params_type, {**geometry, **window_fields(shapes.window)}, placeholders,
                     multipliers, shifts, interleave)


def _channel_taps_3x3(shapes: ConvShapes) -> ConstTable:
    """[1, 3, 3, channels] -> [channels, 9]: each channel's taps contiguous for the kernel's inner loop."""
    return ConstTable("channel_taps", "int8_t", np.asarray(shapes.weights.data, np.int8).reshape(9, -1).T.ravel())


def _depthwise_16x8_call(graph: Graph, op: Operator, shapes: ConvShapes, geometry: dict[str, int]) -> KernelCall:
    """fg_depthwise_conv2d_s16; a constant 3x3 filter of depth multiplier 1 travels only repacked (channel_taps)."""
    shape = (shapes.window.filter_h, shapes.window.filter_w, geometry["depth_multiplier"])
    repacked = _channel_taps_3x3(shapes) if shape == (3, 3, 1) and constant_operands(graph, op) else None
    call = _call_16x8(graph, op, shapes, "fg_depthwise_conv2d_s16", "fg_depthwise_conv2d_params", geometry,
                      {"channel_taps": TableRef(repacked.suffix) if repacked else 0, "folded_bias": 0, "packed": 0})
    if repacked:
        call.tables.append(repacked)
        call.inputs[1] = -1
    return call


def _reference_call(graph: Graph, op: Operator, shapes: ConvShapes, function: str, params_type: str,
                    geometry: dict[str, int]) -> KernelCall:
    stage = conv_output_stage(graph, op, shapes)
    bias = op.inputs[2] if len(op.inputs) > 2 else -1
    return KernelCall(function, params_type, {**geometry, **window_fields(shapes.window), **stage.fields},
                      inputs=[op.inputs[0], op.inputs[1], bias], outputs=[op.outputs[0]], tables=stage.tables)


def _blocked_window_fits(window: Window2D, in_channels: int) -> bool:
    """fg_conv2d_folded_s8 gathers border windows on the stack (FG_CONV_GATHER_TAPS, FG_CONV_MAX_ROWS)."""
    return window.filter_h <= 16 and window.filter_h * window.filter_w * in_channels <= 576


def conv2d_variant(graph: Graph, op: Operator, window: Window2D, in_channels: int) -> str:
    """The C function that runs this CONV_2D."""
    if not constant_operands(graph, op):
        return "fg_conv2d_s8"
    if (window.filter_h, window.filter_w, window.stride_h, window.stride_w) == (1, 1, 1, 1):
        return "fg_conv2d_pointwise_s8"
    return "fg_conv2d_folded_s8" if _blocked_window_fits(window, in_channels) else "fg_conv2d_s8"


def depthwise_variant(graph: Graph, op: Operator, window: Window2D, depth_multiplier: int, in_channels: int) -> str:
    """The C function that runs this DEPTHWISE_CONV_2D. With one input channel it is a CONV_2D whose output channels
    are the depth multiplier's (filter [1, h, w, m] read as [m, h, w, 1])."""
    if not constant_operands(graph, op):
        return "fg_depthwise_conv2d_s8"
    if in_channels == 1 and _blocked_window_fits(window, 1):
        return "fg_depthwise_conv2d_one_channel_s8"
    if (window.filter_h, window.filter_w, depth_multiplier) == (3, 3, 1):
        return "fg_depthwise_conv2d_3x3_s8"
    return "fg_depthwise_conv2d_s8"


def _folded_call(graph: Graph, op: Operator, shapes: ConvShapes, function: str, params_type: str,
                 geometry: dict[str, int], taps_per_channel: np.ndarray, extra: dict[str, object],
                 extra_tables: tuple[ConstTable, ...], inputs: list[int], bias_multiple: int = 1) -> KernelCall:
    """A variant call: the bias (folded) and the repacked filter travel in params tables; the filter input is not
    passed (-1), so that its constant is not emitted."""
    stage = conv_output_stage(graph, op, shapes)
    bias = folded_bias(graph, op, shapes.source, taps_per_channel, bias_multiple)
    params = {**geometry, **window_fields(shapes.window), **stage.fields, "folded_bias": TableRef(bias.suffix),
              **extra}
    return KernelCall(function, params_type, params, inputs=inputs, outputs=[op.outputs[0]],
                      tables=[*stage.tables, bias, *extra_tables])


def _blocked_conv_call(graph: Graph, op: Operator, shapes: ConvShapes, function: str, geometry: dict[str, int],
                       taps: np.ndarray) -> KernelCall:
    """fg_conv2d_pointwise_s8 / fg_conv2d_folded_s8: `taps` is [out_c, filter_h, filter_w * in_c]."""
    table, blocked = blocked_filter(taps)
    return _folded_call(graph, op, shapes, function, "fg_conv2d_params", geometry, taps.reshape(taps.shape[0], -1),
                        {"blocked": blocked}, (table,), inputs=[op.inputs[0], -1], bias_multiple=BLOCK)


class Conv2DKernel:
    opcode = "CONV_2D"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        conv2d_shapes(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        shapes = conv2d_shapes(graph, op)
        window = shapes.window
        return shapes.result.num_elements * window.filter_h * window.filter_w * shapes.source.shape[3]

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        shapes = conv2d_shapes(graph, op)
        batches, in_h, in_w, in_c = shapes.source.shape
        geometry = {"batches": batches, "in_h": in_h, "in_w": in_w, "in_c": in_c,
                    "out_h": shapes.window.out_h, "out_w": shapes.window.out_w, "out_c": shapes.out_channels}
        if is_16x8(shapes.source):
            return _call_16x8(graph, op, shapes, "fg_conv2d_s16", "fg_conv2d_params", geometry,
                              {"folded_bias": 0, "blocked": (0,), "packed": 0}, interleave=True)
        function = conv2d_variant(graph, op, shapes.window, in_c)
        if function == "fg_conv2d_s8":
            return _reference_call(graph, op, shapes, function, "fg_conv2d_params", geometry)
        taps = np.asarray(shapes.weights.data).reshape(shapes.out_channels, shapes.window.filter_h, -1)
        return _blocked_conv_call(graph, op, shapes, function, geometry, taps)

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        shapes = conv2d_shapes(graph, op)
        return window_overlap(op, shapes.source, shapes.result, shapes.window)


class DepthwiseConv2DKernel:
    opcode = "DEPTHWISE_CONV_2D"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        depthwise_shapes(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        shapes = depthwise_shapes(graph, op)
        return shapes.result.num_elements * shapes.window.filter_h * shapes.window.filter_w

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        shapes = depthwise_shapes(graph, op)
        batches, in_h, in_w, in_c = shapes.source.shape
        geometry = {"batches": batches, "in_h": in_h, "in_w": in_w, "in_c": in_c,
                    "out_h": shapes.window.out_h, "out_w": shapes.window.out_w,
                    "depth_multiplier": shapes.out_channels // in_c}
        if is_16x8(shapes.source):
            return _depthwise_16x8_call(graph, op, shapes, geometry)
        function = depthwise_variant(graph, op, shapes.window, geometry["depth_multiplier"], in_c)
        if function == "fg_depthwise_conv2d_s8":
            return _reference_call(graph, op, shapes, function, "fg_depthwise_conv2d_params", geometry)
        if function == "fg_depthwise_conv2d_one_channel_s8":  # [1, h, w, m] -> [m, h, w * 1]
            taps = np.moveaxis(np.asarray(shapes.weights.data), 3, 0).reshape(shapes.out_channels,
                                                                            shapes.window.filter_h, -1)
            conv_geometry = {"batches": batches, "in_h": in_h, "in_w": in_w, "in_c": 1, "out_h": shapes.window.out_h,
                             "out_w": shapes.window.out_w, "out_c": shapes.out_channels}
            return _blocked_conv_call(graph, op, shapes, function, conv_geometry, taps)
        repacked = _channel_taps_3x3(shapes)
        return _folded_call(graph, op, shapes, function, "fg_depthwise_conv2d_params", geometry,
                            repacked.values.reshape(shapes.out_channels, 9),
                            {"channel_taps": TableRef(repacked.suffix)}, (repacked,), inputs=[op.inputs[0]])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        shapes = depthwise_shapes(graph, op)
        return window_overlap(op, shapes.source, shapes.result, shapes.window)


KERNELS = [Conv2DKernel(), DepthwiseConv2DKernel()]
