"""TVM USMP's hill climbing: search over placement orders, each order placed first-fit.

Start from the better of the two greedy orders, then repeatedly swap two positions of the order (a seeded,
deterministic random choice) and keep the swap when the pool does not grow (sideways moves let it cross plateaus).
Only the part of the order from the first swapped position on is placed again.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from firmware_gen.planner import greedy_by_conflicts, greedy_by_size
from firmware_gen.planner.buffers import BufferInfo, Offsets, OverlapAllowance, Separations

ITERATIONS = 1000
SEED = 0


class _OrderedPlacement:
    """First-fit placement of an order, re-placed from a given position on."""

    def __init__(self, separations: Separations, order: list[int]) -> None:
        self.separations = separations
        self.order = order
        self.offsets: dict[int, int] = {}
        self.ends: list[int] = []  # running pool size after each position
        self.replace_from(0)

    def replace_from(self, start: int) -> None:
        for i in self.order[start:]:
            self.offsets.pop(i, None)
        del self.ends[start:]
        pool = self.ends[-1] if self.ends else 0
        for i in self.order[start:]:
            self.offsets[i] = self.separations.lowest_fit(i, self.offsets)
            pool = max(pool, self.offsets[i] + self.separations.buffers[i].footprint)
            self.ends.append(pool)

    @property
    def pool(self) -> int:
        return self.ends[-1] if self.ends else 0


def plan(buffers: Sequence[BufferInfo], overlaps: Iterable[OverlapAllowance] = (),
         iterations: int = ITERATIONS, seed: int = SEED) -> Offsets:
    separations = Separations(buffers, overlaps)
    if len(buffers) < 2:
        return separations.first_fit(range(len(buffers)))
    starts = [_OrderedPlacement(separations, order)
              for order in (greedy_by_size.order(buffers), greedy_by_conflicts.order(separations))]
    current = min(starts, key=lambda placement: placement.pool)
    target = separations.lower_bound()
    rng = random.Random(seed)
    for _ in range(iterations):
        if current.pool <= target:
            break
        a, b = sorted(rng.sample(range(len(buffers)), 2))
        before = current.pool
        current.order[a], current.order[b] = current.order[b], current.order[a]
        current.replace_from(a)
        if current.pool > before:
            current.order[a], current.order[b] = current.order[b], current.order[a]
            current.replace_from(a)
    return separations.by_id(current.offsets)
