"""TFLite Micro's greedy planner: largest buffers first, each at the lowest offset that is free while it is live."""

from __future__ import annotations

from collections.abc import Sequence

from firmware_gen.planner.buffers import BufferInfo, Offsets, first_fit_in_order


def plan(buffers: Sequence[BufferInfo]) -> Offsets:
    order = sorted(range(len(buffers)), key=lambda i: (-buffers[i].footprint, buffers[i].first, i))
    return first_fit_in_order([buffers[i] for i in order])
