"""MIRROR_PAD of int8 tensors, REFLECT (the edge is not repeated) and SYMMETRIC (it is), by constant paddings,
through per-dimension maps of mirrored input offsets computed here (fg_mirror_pad_s8)."""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.layout import MAX_RANK, padded, row_major_strides
from firmware_gen.ops.support.operands import constant_ints, operand, require_arity, require_dtype, unsupported

MODES = {"REFLECT": 1, "SYMMETRIC": 0}  # how far the mirror stands from the edge


def mirrored_index(position: int, before: int, size: int, shift: int) -> int:
    """The input coordinate that output coordinate `position` of a dimension padded by `before` copies."""
    inside = position - before
    if inside < 0:
        return -inside - 1 + shift
    if inside >= size:
        return 2 * size - 1 - shift - inside
    return inside


class MirrorPadKernel:
    opcode = "MIRROR_PAD"
    is_alias = False

    def _paddings(self, graph: Graph, op: Operator) -> np.ndarray:
        shape = operand(graph, op, 0).shape
        paddings = constant_ints(graph, op, 1, "paddings")
        if paddings.shape != (len(shape), 2):
            raise unsupported(graph, op, f"paddings have shape {list(paddings.shape)}, expected [{len(shape)}, 2]")
        shift = MODES[op.options.get("mode", "REFLECT")]
        limit = np.asarray(shape)[:, None] - shift
        if (paddings < 0).any() or (paddings > limit).any():
            raise unsupported(graph, op, f"paddings {paddings.tolist()} exceed what mode {op.options.get('mode')} "
                                         f"allows for {list(shape)}")
        return paddings

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {2})
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        require_dtype(graph, op, source, (DType.INT8,))
        require_dtype(graph, op, output, (DType.INT8,))
        if op.options.get("mode", "REFLECT") not in MODES:
            raise unsupported(graph, op, f"option mode = {op.options.get('mode')}; supported: {', '.join(MODES)}")
        if not 1 <= len(source.shape) <= MAX_RANK:
            raise unsupported(graph, op, f"{source.describe()} has more than {MAX_RANK} dimensions")
        paddings = self._paddings(graph, op)
        expected = tuple(int(n + b + a) for n, (b, a) in zip(source.shape, paddings, strict=True))
        if tuple(output.shape) != expected:
            raise unsupported(graph, op, f"{output.describe()} should have shape {list(expected)}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        paddings = self._paddings(graph, op)
        shift = MODES[op.options.get("mode", "REFLECT")]
        strides = row_major_strides(source.shape)
        maps, starts = [], []
        for d, size in enumerate(source.shape):
            starts.append(sum(len(m) for m in maps))
            maps.append([mirrored_index(p, int(paddings[d, 0]), size, shift) * strides[d]
                         for p in range(output.shape[d])])
        return KernelCall(function="fg_mirror_pad_s8", params_type="fg_mirror_pad_params",
                          params={"rank": len(source.shape), "output_shape": padded(output.shape),
                                  "map_start": padded(starts), "source_offsets": TableRef("source_offsets")},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]],
                          tables=[ConstTable("source_offsets", "int32_t",
                                             np.array([o for m in maps for o in m], dtype=np.int32))])


KERNELS = [MirrorPadKernel()]
