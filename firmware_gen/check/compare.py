"""Byte-for-byte comparison of what the generated C computed with what TFLM computed, tensor by tensor."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import Graph, Tensor


@dataclass
class Mismatch:
    tensor: int
    name: str
    op_index: int
    opcode: str
    shape: list[int]
    differing_elements: int
    max_abs_diff: float
    invocation: int = -1  # which invocation of a sequence (-1: a single one)


def compare_tensor(tensor: Tensor, ours: bytes, theirs: np.ndarray) -> tuple[int, float]:
    expected = np.ascontiguousarray(theirs, dtype=tensor.dtype.numpy_type).ravel()
    actual = np.frombuffer(ours, dtype=tensor.dtype.numpy_type)
    if actual.size != expected.size:
        return max(actual.size, expected.size), float("inf")
    differing = actual.tobytes() != expected.tobytes()
    if not differing:
        return 0, 0.0
    diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    return int(np.count_nonzero(actual != expected)), float(np.nanmax(diff))


def compare_layers(graph: Graph, ours: dict[int, bytes], oracle: dict[int, np.ndarray],
                   per_patch: frozenset[int] = frozenset()) -> list[Mismatch]:
    """Every operator output, in schedule order, against TFLM's preserved tensors; the tensors `per_patch` (the
    intermediates of a patch stage, which exist one patch at a time and never whole) are left out."""
    mismatches = []
    for op in graph.operators:
        for index in op.outputs:
            if index in per_patch:
                continue
            tensor = graph.tensors[index]
            count, max_diff = compare_tensor(tensor, ours[index], oracle[index])
            if count:
                mismatches.append(Mismatch(index, tensor.name, op.index, op.opcode, list(tensor.shape), count,
                                           max_diff))
    return mismatches
