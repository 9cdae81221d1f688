"""TFLite Micro's greedy planner: largest buffers first, each at the lowest offset that is free while it is live."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from firmware_gen.planner.buffers import BufferInfo, Offsets, OverlapAllowance, Separations


def order(buffers: Sequence[BufferInfo]) -> list[int]:
    return sorted(range(len(buffers)), key=lambda i: (-buffers[i].footprint, buffers[i].first, i))


def plan(buffers: Sequence[BufferInfo], overlaps: Iterable[OverlapAllowance] = ()) -> Offsets:
    return Separations(buffers, overlaps).first_fit(order(buffers))
