"""Row-major layout arithmetic for the data-movement kernels: strides and coalesced strided walks.

A walk is a list of (size, stride) dimensions in row-major order. Coalescing drops dimensions of size 1 and
merges neighbours that are contiguous in the buffer walked, so kernels loop over as few dimensions as possible.
"""

from __future__ import annotations

from collections.abc import Sequence

Walk = list[tuple[int, int]]  # (size, stride in elements) per dimension, outermost first

MAX_RANK = 6  # FG_MAX_RANK in runtime_c/include/fg/support/nd_walk.h


def row_major_strides(shape: Sequence[int]) -> list[int]:
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * int(shape[d + 1])
    return strides


def coalesce(walk: Walk) -> Walk:
    result: Walk = []
    for size, stride in walk:
        if size == 1:
            continue
        if result and result[-1][1] == size * stride:
            outer_size, _ = result.pop()
            result.append((outer_size * size, stride))
        else:
            result.append((size, stride))
    return result


def padded(values: Sequence[int], length: int = MAX_RANK, fill: int = 0) -> tuple[int, ...]:
    """A fixed-size C array initializer."""
    if len(values) > length:
        raise ValueError(f"{len(values)} values do not fit in {length}")
    return tuple(int(v) for v in values) + (fill,) * (length - len(values))


def walk_params(walk: Walk, prefix: str) -> dict[str, int | tuple[int, ...]]:
    """<prefix>rank, <prefix>shape, <prefix>strides: the fields of one walk in a params struct."""
    return {f"{prefix}rank": len(walk), f"{prefix}shape": padded([s for s, _ in walk]),
            f"{prefix}strides": padded([t for _, t in walk])}
