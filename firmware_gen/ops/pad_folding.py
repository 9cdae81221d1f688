"""PAD folded into the convolution that reads it.

Keras pads a stride-2 depthwise or convolution explicitly (ZeroPadding2D, then a VALID window: MobileNetV2,
EfficientNet), so the converter writes a PAD whose output lives beside its input: the pool's peak in MobileNetV2.
When the padded tensor's only reader is a VALID CONV_2D or DEPTHWISE_CONV_2D, the PAD pads with the reader's input
zero point (a padded tap then adds nothing, as a tap the kernels skip) and the padding is exactly what SAME would
give that window on the unpadded input (the same output size and rows before; rows after that no window reads do
not matter), the reader runs with SAME on the PAD's input and the PAD is gone: same bytes out, one tensor and one
copy fewer. Anything else is left as it is.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.geometry import window_2d

READERS = ("CONV_2D", "DEPTHWISE_CONV_2D")


def _pad_value(graph: Graph, pad: Operator) -> int | None:
    output = graph.tensors[pad.outputs[0]]
    if pad.opcode == "PAD" and len(pad.inputs) == 2:
        return output.quantization.zero_point if output.quantization else None
    if (pad.opcode == "PADV2" and len(pad.inputs) == 3 and pad.inputs[2] >= 0
            and graph.tensors[pad.inputs[2]].is_constant):
        value = np.asarray(graph.tensors[pad.inputs[2]].data).ravel()
        return int(value[0]) if value.size == 1 else None
    return None


def _spatial_padding(graph: Graph, pad: Operator) -> tuple[int, int] | None:
    """(rows before, columns before) of a PAD of an int8 NHWC tensor that pads only rows and columns with the
    zero point it shares with its input, else None."""
    if len(pad.outputs) != 1 or len(pad.inputs) < 2 or min(pad.inputs[:2]) < 0:
        return None  # malformed: left for the PAD's own check to refuse
    if not graph.tensors[pad.inputs[1]].is_constant:
        return None
    source, output = graph.tensors[pad.inputs[0]], graph.tensors[pad.outputs[0]]
    paddings = np.asarray(graph.tensors[pad.inputs[1]].data)
    if source.dtype != DType.INT8 or len(source.shape) != 4 or paddings.shape != (4, 2) or (paddings < 0).any():
        return None
    if paddings[0].any() or paddings[3].any() or source.quantization != output.quantization:
        return None
    if source.quantization is None or source.quantization.per_channel:
        return None
    if _pad_value(graph, pad) != output.quantization.zero_point:
        return None
    return int(paddings[1][0]), int(paddings[2][0])


def _same_on_unpadded(graph: Graph, pad: Operator, reader: Operator, before: tuple[int, int]) -> bool:
    """Whether SAME on the PAD's input gives the reader's output size and padding before."""
    options = reader.options
    if options.get("padding") != "VALID" or len(reader.inputs) < 2 or reader.inputs[0] != pad.outputs[0]:
        return False
    if reader.inputs[1] < 0 or len(reader.outputs) != 1 or reader.outputs[0] < 0:
        return False  # malformed: left for the reader's own check to refuse
    filter_shape, out_shape = graph.tensors[reader.inputs[1]].shape, graph.tensors[reader.outputs[0]].shape
    strides = (options.get("stride_h", 1), options.get("stride_w", 1))
    dilations = (options.get("dilation_h", 1), options.get("dilation_w", 1))
    if len(filter_shape) != 4 or len(out_shape) != 4 or min(*strides, *dilations, *filter_shape[1:3]) < 1:
        return False
    filter_hw = (filter_shape[1], filter_shape[2])  # OHWI and 1HWM alike
    window = window_2d("SAME", tuple(graph.tensors[pad.inputs[0]].shape[1:3]), filter_hw, strides, dilations)
    out_hw = tuple(out_shape[1:3])
    return (window.out_h, window.out_w) == out_hw and (window.pad_top, window.pad_left) == before


def fold_pads(graph: Graph) -> Graph:
    """The graph with every PAD that its one reader can do itself (the module's docstring) folded into it; the
    graph itself when none folds."""
    readers: dict[int, list[Operator]] = {}
    for op in graph.operators:
        for index in set(op.inputs):
            readers.setdefault(index, []).append(op)
    folded: dict[int, Operator] = {}  # the reader's index -> the reader on the PAD's input
    dropped: set[int] = set()
    for pad in (op for op in graph.operators if op.opcode in ("PAD", "PADV2")):
        before = _spatial_padding(graph, pad)
        if before is None:
            continue
        users = readers.get(pad.outputs[0], [])
        if len(users) != 1 or pad.outputs[0] in graph.outputs:
            continue
        reader = folded.get(users[0].index, users[0])
        if reader.opcode in READERS and _same_on_unpadded(graph, pad, reader, before):
            folded[reader.index] = dataclasses.replace(reader, inputs=(pad.inputs[0], *reader.inputs[1:]),
                                                       options={**reader.options, "padding": "SAME"})
            dropped.add(pad.index)
    if not dropped:
        return graph
    operators = [folded.get(op.index, op) for op in graph.operators if op.index not in dropped]
    return dataclasses.replace(graph, operators=operators)
