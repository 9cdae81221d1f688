"""4-bit weights (TFLite's INT4 tensors), as TFLite Micro runs them: constant, symmetric weights of CONV_2D and
DEPTHWISE_CONV_2D (per tensor or per output channel) and FULLY_CONNECTED (per tensor only: TFLM refuses per-channel
4-bit FULLY_CONNECTED), with int8 activations.

The weights stay packed in flash as the file packs them (nibbles, element 2i in the low nibble of byte i: ceil(n / 2)
bytes), in the table `packed_weights`; the kernels (support/weights_s4.h) read them in place and unpack them in
registers (no layer needs a buffer for its unpacked filter). CONV_2D and FULLY_CONNECTED read each output channel's
row from a byte boundary, four rows against one load of the inputs (fg_dot4_s4): when a row's tap count is odd each
row gets a zero nibble at its end (out_channels / 2 bytes more than TFLite's packing), else the bytes are TFLite's.
The depthwise filter is TFLite's packing as it is (a tap's channels are consecutive nibbles). The input zero point is
folded into the bias at generation time, as in the int8 variants; a tap in the padding adds zero point x tap,
cancelling its share. These are the portable kernels' layouts: the ISA variants (ops/variants: mve_4bit, dsp_4bit,
armv7m_4bit, armv6m, armv7m) repack the nibbles at generation time into the order of their inner loops, as many bytes
but for padding to their groups of channels or taps."""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.nibbles import pack_int4
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.convolution.conv2d import conv2d_shapes, conv_output_stage, depthwise_shapes, window_fields
from firmware_gen.ops.fully_connected.fully_connected import fully_connected_shapes
from firmware_gen.ops.support.requantize import folded_bias, fully_connected_multiplier, output_stage

FILTER_INPUT = 1  # the only operand TFLM takes in 4 bits
OPERATORS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


def uses_int4(graph: Graph, op: Operator) -> bool:
    return any(i >= 0 and graph.tensors[i].dtype is DType.INT4 for i in (*op.inputs, *op.outputs))


def int4_refusal(graph: Graph, op: Operator) -> str | None:
    """Why this operator's 4-bit tensor cannot be compiled (None: it can, or it has none)."""
    if not uses_int4(graph, op):
        return None
    where = f"{graph.name}: {op.describe()}"
    positions = [n for n, i in enumerate(op.inputs) if i >= 0 and graph.tensors[i].dtype is DType.INT4]
    if op.opcode not in OPERATORS or positions != [FILTER_INPUT] or any(
            graph.tensors[i].dtype is DType.INT4 for i in op.outputs):
        return (f"{where} has a 4-bit (int4) operand; TensorFlow Lite Micro, and firmware-gen, take int4 only as the "
                f"weights of {', '.join(OPERATORS[:-1])} and {OPERATORS[-1]}")
    weights = graph.tensors[op.inputs[FILTER_INPUT]]
    if op.opcode == "FULLY_CONNECTED" and weights.quantization and weights.quantization.per_channel:
        return (f"{where}: weights {weights.describe()} are 4-bit with per-channel scales, which TensorFlow Lite "
                "Micro refuses for FULLY_CONNECTED (per-tensor 4-bit weights only)")
    source = graph.tensors[op.inputs[0]]
    if source.dtype is not DType.INT8:
        return (f"{where}: 4-bit weights with {source.dtype} activations are not supported (TensorFlow Lite Micro "
                "runs 4-bit weights with int8 activations only)")
    return None


def _packed(weights: np.ndarray) -> ConstTable:
    return ConstTable("packed_weights", "uint8_t", np.frombuffer(pack_int4(weights), np.uint8))


def _packed_rows(taps: np.ndarray) -> ConstTable:
    """[channels, taps] -> each channel's row from a byte boundary (a zero nibble after an odd count)."""
    return _packed(np.pad(taps, ((0, 0), (0, taps.shape[1] % 2))))


def lower_int4(graph: Graph, op: Operator) -> KernelCall:
    """The call of a CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED whose weights are 4-bit (int4_refusal passed)."""
    return {"CONV_2D": _conv2d, "DEPTHWISE_CONV_2D": _depthwise, "FULLY_CONNECTED": _fully_connected}[op.opcode](
        graph, op)


def _call(function: str, params_type: str, params: dict[str, object], op: Operator,
          tables: list[ConstTable]) -> KernelCall:
    return KernelCall(function, params_type, params, inputs=[op.inputs[0], -1], outputs=[op.outputs[0]],
                      tables=tables)


def _conv2d(graph: Graph, op: Operator) -> KernelCall:
    shapes = conv2d_shapes(graph, op)
    weights = np.asarray(shapes.weights.data)
    batches, in_h, in_w, in_c = shapes.source.shape
    stage = conv_output_stage(graph, op, shapes)
    taps = weights.reshape(shapes.out_channels, -1)
    bias, packed = folded_bias(graph, op, shapes.source, taps), _packed_rows(taps)
    params = {"batches": batches, "in_h": in_h, "in_w": in_w, "in_c": in_c, "out_h": shapes.window.out_h,
              "out_w": shapes.window.out_w, "out_c": shapes.out_channels, **window_fields(shapes.window),
              **stage.fields, "folded_bias": TableRef(bias.suffix), "blocked": (0,), "packed": TableRef(packed.suffix)}
    return _call("fg_conv2d_s4", "fg_conv2d_params", params, op, [*stage.tables, bias, packed])


def _depthwise(graph: Graph, op: Operator) -> KernelCall:
    shapes = depthwise_shapes(graph, op)
    weights = np.asarray(shapes.weights.data)
    batches, in_h, in_w, in_c = shapes.source.shape
    stage = conv_output_stage(graph, op, shapes)
    taps = weights.reshape(-1, shapes.out_channels).T
    bias, packed = folded_bias(graph, op, shapes.source, taps), _packed(weights)
    params = {"batches": batches, "in_h": in_h, "in_w": in_w, "in_c": in_c, "out_h": shapes.window.out_h,
              "out_w": shapes.window.out_w, "depth_multiplier": shapes.out_channels // in_c,
              **window_fields(shapes.window), **stage.fields, "channel_taps": 0, "folded_bias": TableRef(bias.suffix),
              "packed": TableRef(packed.suffix)}
    return _call("fg_depthwise_conv2d_s4", "fg_depthwise_conv2d_params", params, op, [*stage.tables, bias, packed])


def _fully_connected(graph: Graph, op: Operator) -> KernelCall:
    shapes = fully_connected_shapes(graph, op)
    weights = np.asarray(shapes.weights.data)
    multipliers, shifts = fully_connected_multiplier(shapes.source.quantization.scale,
                                                     shapes.weights.quantization.scale,
                                                     shapes.result.quantization.scale)
    stage = output_stage(graph, op, shapes.source, shapes.result, multipliers, shifts)
    bias, packed = folded_bias(graph, op, shapes.source, weights), _packed_rows(weights)
    params = {"batches": shapes.batches, "accum_depth": shapes.accum_depth, "out_depth": shapes.out_depth,
              **stage.fields, "folded_bias": TableRef(bias.suffix), "blocked": (0,), "paired_weights": 0,
              "packed": TableRef(packed.suffix)}
    return _call("fg_fully_connected_s4", "fg_fully_connected_params", params, op, [*stage.tables, bias, packed])
