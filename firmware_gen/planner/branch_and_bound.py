"""Depth-first search for a placement inside a pool limit, aiming at the lower bound.

Greedy first-fit fails on chains of large tensors (MobileNet): there the optimum alternates consecutive tensors
between the bottom and the top of the pool, which a lowest-offset rule never does. This search tries, for each
buffer in turn, every offset that touches something: the bottom of the pool, just above or just below a buffer live
at the same time, and the top of the pool under the limit. A branch dies as soon as some step has an unplaced
buffer that the gaps left at that step cannot hold. It starts from the better greedy plan, looks first for a plan
of exactly the lower bound, then for any improvement. The node budget is a count, not a clock, so a plan is
reproducible. With overlap allowances the candidates also sit against the edges of each allowed overlap, the gap
test is skipped at steps where a pair may overlap, and the target is the overlap-aware bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from firmware_gen.planner import greedy_by_conflicts, greedy_by_size
from firmware_gen.planner.buffers import (
    BufferInfo,
    Offsets,
    OverlapAllowance,
    Separations,
    align_down,
    align_up,
    pool_bytes,
)

NODE_BUDGET = 40_000


class _BudgetExhausted(Exception):
    pass


def _gaps(occupied: list[tuple[int, int]], limit: int) -> list[int]:
    """Sizes of the free ranges in [0, limit) around the sorted, disjoint occupied ranges."""
    gaps, cursor = [], 0
    for start, end in occupied:
        if start > cursor:
            gaps.append(start - cursor)
        cursor = max(cursor, end)
    if limit > cursor:
        gaps.append(limit - cursor)
    return gaps


class _Search:
    def __init__(self, separations: Separations) -> None:
        self.separations = separations
        self.buffers = buffers = separations.buffers
        self.unpruned_steps = separations.overlap_steps()
        steps = {step for b in buffers for step in range(b.first, b.last + 1)} - self.unpruned_steps
        self.live_at = {step: [i for i, b in enumerate(buffers) if b.first <= step <= b.last] for step in steps}
        self.offsets: dict[int, int] = {}
        self.limit = 0
        self.budget = 0
        self.spent = 0  # nodes visited over all runs

    def run(self, order: list[int], limit: int, budget: int) -> Offsets | None:
        """A placement with every footprint inside [0, limit), or None if none was found within `budget` nodes."""
        self.offsets, self.limit, self.budget = {}, limit, budget
        try:
            found = self._place(order, 0)
        except _BudgetExhausted:
            return None
        finally:
            self.spent += budget - max(self.budget, 0)
        return None if found is None else {self.buffers[i].id: offset for i, offset in found.items()}

    def _place(self, order: list[int], depth: int) -> dict[int, int] | None:
        if depth == len(order):
            return dict(self.offsets)
        index = order[depth]
        for offset in self._candidates(index):
            self.budget -= 1
            if self.budget < 0:
                raise _BudgetExhausted
            self.offsets[index] = offset
            if self._room_left(index):
                found = self._place(order, depth + 1)
                if found is not None:
                    return found
            del self.offsets[index]
        return None

    def _occupied(self, indices: list[int]) -> list[tuple[int, int]]:
        return sorted((self.offsets[j], self.offsets[j] + self.buffers[j].footprint)
                      for j in indices if j in self.offsets)

    def _candidates(self, index: int) -> list[int]:
        buffer = self.buffers[index]
        size, alignment = buffer.footprint, buffer.alignment
        blocked = self.separations.blocked(index, self.offsets)
        raw = {0, align_down(self.limit - size, alignment)}
        for lo, hi in blocked:
            raw.add(align_up(hi, alignment))
            raw.add(align_down(lo, alignment))
        return [c for c in sorted(raw)
                if c >= 0 and c + size <= self.limit and all(not lo < c < hi for lo, hi in blocked)]

    def _room_left(self, index: int) -> bool:
        """Whether, at every step of the buffer just placed, the free gaps could still hold the unplaced buffers."""
        buffer = self.buffers[index]
        for step in range(buffer.first, buffer.last + 1):
            if step in self.unpruned_steps:
                continue
            live = self.live_at[step]
            waiting = [self.buffers[j].footprint for j in live if j not in self.offsets]
            if not waiting:
                continue
            gaps = _gaps(self._occupied(live), self.limit)
            smallest = min(waiting)
            if max(waiting) > max(gaps, default=0) or sum(waiting) > sum(g for g in gaps if g >= smallest):
                return False
        return True


def _orders(buffers: Sequence[BufferInfo]) -> list[list[int]]:
    positions = range(len(buffers))
    chronological = sorted(positions, key=lambda i: (buffers[i].first, -buffers[i].footprint, i))
    largest_first = sorted(positions, key=lambda i: (-buffers[i].footprint, buffers[i].first, i))
    return [chronological, largest_first]


def plan(buffers: Sequence[BufferInfo], overlaps: Iterable[OverlapAllowance] = (),
         node_budget: int | None = None) -> Offsets:
    node_budget = NODE_BUDGET if node_budget is None else node_budget
    if not buffers:
        return {}
    overlaps = list(overlaps)
    best = min((greedy_by_size.plan(buffers, overlaps), greedy_by_conflicts.plan(buffers, overlaps)),
               key=lambda offsets: pool_bytes(buffers, offsets))
    separations = Separations(buffers, overlaps)
    target = separations.lower_bound()
    search = _Search(separations)
    orders = _orders(buffers)
    share = node_budget // (2 * len(orders))
    for order in orders:
        if pool_bytes(buffers, best) <= target:
            return best
        found = search.run(order, target, share)
        if found is not None:
            return found
    for order in orders:
        allowance = search.spent + share
        while pool_bytes(buffers, best) > target and search.spent < allowance:
            found = search.run(order, pool_bytes(buffers, best) - 1, allowance - search.spent)
            if found is None:
                break
            best = found
    return best
