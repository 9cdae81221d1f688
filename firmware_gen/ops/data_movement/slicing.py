"""SLICE and STRIDED_SLICE of int8 tensors by constant begin, end (size) and strides: a strided gather with an
offset (the TRANSPOSE kernel, fg_transpose_s8), computed as TFLM computes it.

STRIDED_SLICE follows TFLM's clamping: a negative begin or end counts from the end of its axis; begin_mask and
end_mask take the whole axis in the stride's direction; shrink_axis_mask takes one element and drops the axis;
TFLM ignores ellipsis_mask, new_axis_mask and offset (its shape check leaves them out), and writes nothing for a
shrunk axis with a negative stride: a model that relies on them computes something other than TensorFlow meant
there, and is refused rather than imitated.
"""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.data_movement.transpose import strided_gather
from firmware_gen.ops.support.layout import Walk, row_major_strides
from firmware_gen.ops.support.operands import constant_ints, moved_element_bytes, operand, require_arity, unsupported

MAX_SLICE_RANK = 5  # TFLM's reference slices pad shapes to 5 dimensions
_MASKS = {"begin": "begin_mask", "end": "end_mask", "shrink": "shrink_axis_mask"}


def _clamp(value: int, stride: int, size: int) -> int:
    return min(max(value, 0), size) if stride > 0 else min(max(value, -1), size - 1)


def _axis_walk(size: int, begin: int, end: int, stride: int, masks: dict[str, bool], offset: bool,
               ) -> tuple[int, int]:
    """(first index, element count) of one axis of a STRIDED_SLICE, as TFLM's StartForAxis/EndForAxis work them."""
    start = _clamp(begin + size if begin < 0 else begin, stride, size)
    if masks["begin"]:
        start = 0 if stride > 0 else size - 1
    if masks["shrink"]:
        return start, 1
    stop = end + start if offset else end
    stop = _clamp(stop + size if stop < 0 else stop, stride, size)
    if masks["end"]:
        stop = size if stride > 0 else -1
    return start, max(0, math.ceil((stop - start) / stride))


class _SliceBase:
    is_alias = False
    num_inputs = 0

    def _walk(self, graph: Graph, op: Operator) -> tuple[Walk, int, list[int]]:
        """The gather walk over the input, its offset, and the output shape it produces."""
        raise NotImplementedError

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {self.num_inputs})
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        moved_element_bytes(graph, op, source, output)
        if not 1 <= len(source.shape) <= MAX_SLICE_RANK:
            raise unsupported(graph, op, f"{source.describe()} has {len(source.shape)} dimensions; "
                                         f"1 to {MAX_SLICE_RANK} are supported")
        _, _, shape = self._walk(graph, op)
        if tuple(output.shape) != tuple(shape) or 0 in shape:
            raise unsupported(graph, op, f"{output.describe()}: the slice has shape {shape}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        walk, offset, _ = self._walk(graph, op)
        return strided_gather(walk, offset, op.inputs[0], op.outputs[0], operand(graph, op, 0).dtype.itemsize)


class SliceKernel(_SliceBase):
    opcode = "SLICE"
    num_inputs = 3

    def _walk(self, graph: Graph, op: Operator) -> tuple[Walk, int, list[int]]:
        shape = operand(graph, op, 0).shape
        begin = constant_ints(graph, op, 1, "begin").ravel()
        size = constant_ints(graph, op, 2, "size").ravel()
        if len(begin) != len(shape) or len(size) != len(shape):
            raise unsupported(graph, op, f"begin {begin.tolist()} and size {size.tolist()} need {len(shape)} entries")
        size = np.where(size == -1, np.asarray(shape) - begin, size)
        if (begin < 0).any() or (size < 0).any() or (begin + size > np.asarray(shape)).any():
            raise unsupported(graph, op, f"begin {begin.tolist()} with size {size.tolist()} leaves the input "
                                         f"shape {list(shape)}")
        strides = row_major_strides(shape)
        return ([(int(n), s) for n, s in zip(size, strides, strict=True)],
                int(np.dot(begin, strides)), [int(n) for n in size])


class StridedSliceKernel(_SliceBase):
    opcode = "STRIDED_SLICE"
    num_inputs = 4

    def _walk(self, graph: Graph, op: Operator) -> tuple[Walk, int, list[int]]:
        for option in ("ellipsis_mask", "new_axis_mask", "offset"):
            if op.options.get(option, 0):
                raise unsupported(graph, op, f"option {option} = {op.options[option]}: TFLM ignores it, so its "
                                             "result is not what TensorFlow means; not supported")
        shape = operand(graph, op, 0).shape
        begin, end, steps = (constant_ints(graph, op, p, what).ravel()
                             for p, what in ((1, "begin"), (2, "end"), (3, "strides")))
        if not len(begin) == len(end) == len(steps) == len(shape):
            raise unsupported(graph, op, f"begin, end and strides need {len(shape)} entries each")
        if (steps == 0).any():
            raise unsupported(graph, op, f"strides {steps.tolist()} contain 0")
        strides = row_major_strides(shape)
        walk: Walk = []
        offset, out_shape = 0, []
        for axis, size in enumerate(shape):
            masks = {name: bool(op.options.get(option, 0) >> axis & 1) for name, option in _MASKS.items()}
            if masks["shrink"] and not -size <= begin[axis] < size and not masks["begin"]:
                raise unsupported(graph, op, f"shrink_axis_mask: begin {begin[axis]} is outside axis {axis}")
            if masks["shrink"] and steps[axis] < 0:
                raise unsupported(graph, op, f"shrink_axis_mask with stride {steps[axis]} on axis {axis}: TFLM "
                                             "writes no element there; not supported")
            start, count = _axis_walk(size, int(begin[axis]), int(end[axis]), int(steps[axis]), masks,
                                      bool(op.options.get("offset", False)))
            offset += start * strides[axis]
            walk.append((count, int(steps[axis]) * strides[axis]))
            if not masks["shrink"]:
                out_shape.append(count)
        return walk, offset, out_shape


KERNELS = [SliceKernel(), StridedSliceKernel()]
