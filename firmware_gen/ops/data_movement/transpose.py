"""TRANSPOSE of int8 tensors by a constant permutation, up to rank 5 (as TFLM; the kernel walks up to 6), and the
strided gather its kernel performs, which the slicing, reversing and broadcasting operators lower to as well."""

from __future__ import annotations

import math
from collections.abc import Sequence

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.layout import Walk, coalesce, row_major_strides, walk_params
from firmware_gen.ops.support.operands import (
    constant_ints,
    moved_element_bytes,
    moved_function,
    operand,
    require_arity,
    require_same_elements,
    unsupported,
)

MAX_TRANSPOSE_RANK = 5  # TFLM fails to prepare rank 6, so nothing could be checked against it


class TransposeKernel:
    opcode = "TRANSPOSE"
    is_alias = False

    def _permutation(self, graph: Graph, op: Operator) -> list[int]:
        perm = [int(p) for p in constant_ints(graph, op, 1, "permutation").ravel()]
        rank = len(operand(graph, op, 0).shape)
        if sorted(perm) != list(range(rank)):
            raise unsupported(graph, op, f"{perm} is not a permutation of the {rank} input dimensions")
        return perm

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {2})
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        moved_element_bytes(graph, op, source, output)
        if len(source.shape) > MAX_TRANSPOSE_RANK:
            raise unsupported(graph, op, f"{source.describe()} has more than {MAX_TRANSPOSE_RANK} dimensions")
        perm = self._permutation(graph, op)
        expected = tuple(source.shape[p] for p in perm)
        if tuple(output.shape) != expected:
            raise unsupported(graph, op, f"{output.describe()} should have shape {list(expected)}")
        require_same_elements(graph, op, source, output)

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source = operand(graph, op, 0)
        return permuted_copy_call(source.shape, self._permutation(graph, op), op.inputs[0], op.outputs[0],
                                  source.dtype.itemsize)


def permuted_copy_call(shape: Sequence[int], perm: Sequence[int], source: int, result: int,
                       element_bytes: int = 1) -> KernelCall:
    """fg_transpose_s8 writing the int8 tensor `source`, read as `shape`, permuted by `perm` into `result` (also
    DEPTH_TO_SPACE and SPACE_TO_DEPTH, which are permutations of a 6-D view)."""
    strides = row_major_strides(shape)
    return strided_gather([(shape[p], strides[p]) for p in perm], 0, source, result, element_bytes)


def strided_gather(walk: Walk, offset: int, source: int, output: int, element_bytes: int = 1) -> KernelCall:
    """The call of fg_transpose_s8 that writes `output` in order from input elements offset + sum(i_d * stride_d)
    over `walk` (the output's dimensions with their input strides, which may be negative or zero). Wider elements:
    fg_transpose_s16, the same walk over bytes (each element one more dimension of element_bytes bytes)."""
    if element_bytes > 1:
        walk = [*((size, stride * element_bytes) for size, stride in walk), (element_bytes, 1)]
        offset *= element_bytes
    walk = coalesce(walk)
    row = walk.pop()[0] if walk and walk[-1][1] == 1 else 1
    rows = math.prod(size for size, _ in walk)
    return KernelCall(function=moved_function("fg_transpose_s8", element_bytes), params_type="fg_transpose_params",
                      params={**walk_params(walk, ""), "row": row, "rows": rows, "offset": int(offset)},
                      inputs=[source], outputs=[output])


KERNELS = [TransposeKernel()]
