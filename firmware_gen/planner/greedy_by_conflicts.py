"""TVM's greedy-by-conflicts idea: place first the buffer that collides with the most bytes still unplaced.

The most contended buffers get the low, unfragmented offsets; each goes to the lowest offset free while it is live.
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware_gen.planner.buffers import BufferInfo, Offsets, conflicts, first_fit_in_order


def plan(buffers: Sequence[BufferInfo]) -> Offsets:
    neighbours = conflicts(buffers)
    unplaced = set(range(len(buffers)))
    order: list[BufferInfo] = []

    def contention(i: int) -> tuple[int, int, int]:
        pressure = sum(buffers[j].footprint for j in neighbours[i] if j in unplaced)
        return (pressure + buffers[i].footprint, buffers[i].footprint, -i)

    while unplaced:
        chosen = max(unplaced, key=contention)
        unplaced.remove(chosen)
        order.append(buffers[chosen])
    return first_fit_in_order(order)
