"""TVM's greedy-by-conflicts idea: place first the buffer that collides with the most bytes still unplaced.

The most contended buffers get the low, unfragmented offsets; each goes to the lowest offset free while it is live.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from firmware_gen.planner.buffers import BufferInfo, Offsets, OverlapAllowance, Separations


def order(separations: Separations) -> list[int]:
    buffers = separations.buffers
    unplaced = set(range(len(buffers)))
    chosen_order: list[int] = []

    def contention(i: int) -> tuple[int, int, int]:
        pressure = sum(buffers[j].footprint for j in separations.neighbours(i) if j in unplaced)
        return (pressure + buffers[i].footprint, buffers[i].footprint, -i)

    while unplaced:
        chosen = max(unplaced, key=contention)
        unplaced.remove(chosen)
        chosen_order.append(chosen)
    return chosen_order


def plan(buffers: Sequence[BufferInfo], overlaps: Iterable[OverlapAllowance] = ()) -> Offsets:
    separations = Separations(buffers, overlaps)
    return separations.first_fit(order(separations))
