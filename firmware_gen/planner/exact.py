"""An exact solver: a complete branch and bound that proves a plan optimal, or a tighter lower bound, or neither
within its node budget.

Completeness rests on compaction. Take any valid placement and keep lowering any buffer to the lowest offset the
others leave it: the pool never grows, and at the end every buffer sits at 0 or right against the end of a forbidden
range of a neighbour j, at align_up(offset_j + hi_ij). When every hi_ij >= 0, j lies no higher than i. So some
optimal placement can be built by placing buffers in order of increasing offset, each at 0 or against a buffer
placed before it. The search does exactly that: at each node, any unplaced buffer may come next, at any such offset
not below the previous one (buffers at equal offsets come in increasing position, unless some pair may sit at the
same offset, i.e. hi_ij = 0: then any order). Empty buffers go to offset 0, which is always valid. Offsets only grow
along a branch, so a node is pruned when, at some step, the bytes still to place there (less what overlaps can save)
cannot fit between the current offset and the limit beside what is already placed above it.

An allowance that lets an output start inside its input (hi_ij < 0: the input rests below the output it overlaps)
breaks that order. Such problems go to a second complete search that branches on sides instead: each pair live
together must have i at least hi_ij above j or j at least hi_ji above i; a node fixes the sides of some pairs, takes
the least offsets those difference constraints allow (aligned), and branches on the first pair they still place too
close. Any valid placement chooses a side for every pair and lies above the least offsets of each node on its path,
so the search misses none.

A binary search on the pool limit between the best known plan and the lower bound turns feasibility searches into
either a better plan or a proof that no plan below the limit exists. The budget counts nodes, not seconds, so the
result is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce

from firmware_gen.planner import greedy_by_conflicts, greedy_by_size, hill_climb
from firmware_gen.planner.buffers import (
    BufferInfo,
    Offsets,
    OverlapAllowance,
    Separations,
    align_down,
    align_up,
    pool_bytes,
)

NODE_BUDGET = 20_000


@dataclass(frozen=True)
class ExactResult:
    offsets: Offsets
    pool_bytes: int
    lower_bound: int  # proven: no placement needs fewer bytes
    proven_optimal: bool
    nodes: int


class _BudgetExhausted(Exception):
    pass


class _Search:
    def __init__(self, separations: Separations) -> None:
        self.separations = separations
        self.buffers = separations.buffers
        steps = sorted({step for b in self.buffers for step in range(b.first, b.last + 1)})
        self.live_at = {step: [i for i, b in enumerate(self.buffers) if b.first <= step <= b.last] for step in steps}
        self.savings_at: dict[int, list[tuple[int, int, int]]] = {step: [] for step in steps}
        for (x, y), saving in separations.overlapping.items():
            a, b = self.buffers[x], self.buffers[y]
            for step in range(max(a.first, b.first), min(a.last, b.last) + 1):
                self.savings_at[step].append((x, y, saving))
        self.ordered_ties = all(hi > 0 for row in separations.forbidden for _, hi in row.values())
        self.offsets: dict[int, int] = {}
        self.limit = 0
        self.budget = 0
        self.spent = 0

    def run(self, limit: int, budget: int) -> dict[int, int] | None:
        """A placement within [0, limit), None when none exists; raises _BudgetExhausted when it cannot tell."""
        self.offsets, self.limit, self.budget = {}, limit, budget
        try:
            return self._place(0, -1) if self._room_left(0) else None
        finally:
            self.spent += budget - max(self.budget, 0)

    def _place(self, floor: int, last: int) -> dict[int, int] | None:
        if len(self.offsets) == len(self.buffers):
            return dict(self.offsets)
        for offset, index in self._options(floor, last):
            self.budget -= 1
            if self.budget < 0:
                raise _BudgetExhausted
            self.offsets[index] = offset
            if self._room_left(offset):
                found = self._place(offset, index)
                if found is not None:
                    return found
            del self.offsets[index]
        return None

    def _options(self, floor: int, last: int) -> list[tuple[int, int]]:
        options = []
        separations, offsets = self.separations, self.offsets
        for i, buffer in enumerate(self.buffers):
            if i in offsets:
                continue
            resting = {align_up(offsets[j] + hi, buffer.alignment)
                       for j, (_, hi) in separations.forbidden[i].items() if j in offsets}
            resting.add(0)
            for offset in resting:
                if offset < floor or offset + buffer.footprint > self.limit:
                    continue
                if offset == floor and i < last and self.ordered_ties:
                    continue
                if separations.fits(i, offset, offsets):
                    options.append((offset, i))
        return sorted(options, key=lambda option: (option[0], -self.buffers[option[1]].footprint, option[1]))

    def _room_left(self, floor: int) -> bool:
        """Whether, at every step, the unplaced buffers (all at or above `floor`) can still fit under the limit."""
        offsets = self.offsets
        for step, live in self.live_at.items():
            waiting = [i for i in live if i not in offsets]
            if not waiting:
                continue
            need = sum(self.buffers[i].footprint for i in waiting)
            need -= sum(saving for x, y, saving in self.savings_at[step] if x not in offsets or y not in offsets)
            if floor + need + self._placed_above(live, floor) > self.limit:
                return False
        return True

    def _placed_above(self, live: list[int], floor: int) -> int:
        """Bytes at or above `floor` covered by the placed buffers among `live`."""
        ranges = sorted((max(self.offsets[i], floor), self.offsets[i] + self.buffers[i].footprint)
                        for i in live if i in self.offsets and self.offsets[i] + self.buffers[i].footprint > floor)
        covered, cursor = 0, floor
        for start, end in ranges:
            start = max(start, cursor)
            if end > start:
                covered += end - start
                cursor = end
        return covered


class _SideSearch:
    """Feasibility under a pool limit by branching on which buffer of a conflicting pair lies above the other."""

    def __init__(self, separations: Separations) -> None:
        self.separations = separations
        self.buffers = separations.buffers
        self.pairs = [(i, j) for i, row in enumerate(separations.forbidden) for j in row if i < j]
        self.limit = 0
        self.budget = 0
        self.spent = 0

    def run(self, limit: int, budget: int) -> dict[int, int] | None:
        self.limit, self.budget = limit, budget
        try:
            return self._branch([[] for _ in self.buffers], [0] * len(self.buffers))
        finally:
            self.spent += budget - max(self.budget, 0)

    def _least(self, below: list[list[tuple[int, int]]], offsets: list[int]) -> list[int] | None:
        """The least aligned offsets >= `offsets` with offset_i >= offset_j + gap for every (j, gap) in below[i];
        None when one of them no longer fits under the limit."""
        offsets = list(offsets)
        changed = True
        while changed:
            changed = False
            for i, buffer in enumerate(self.buffers):
                for j, gap in below[i]:
                    if offsets[i] < offsets[j] + gap:
                        offsets[i] = align_up(offsets[j] + gap, buffer.alignment)
                        if offsets[i] + buffer.footprint > self.limit:
                            return None
                        changed = True
        return offsets if self.separations.pool(dict(enumerate(offsets))) <= self.limit else None

    def _branch(self, below: list[list[tuple[int, int]]], offsets: list[int]) -> dict[int, int] | None:
        self.budget -= 1
        if self.budget < 0:
            raise _BudgetExhausted
        least = self._least(below, offsets)
        if least is None:
            return None
        forbidden = self.separations.forbidden
        clash = next(((i, j) for i, j in self.pairs if forbidden[i][j][0] < least[i] - least[j] < forbidden[i][j][1]),
                     None)
        if clash is None:
            return dict(enumerate(least))
        i, j = clash
        for upper, lower in ((i, j), (j, i)):
            below[upper].append((lower, forbidden[upper][lower][1]))
            found = self._branch(below, least)
            below[upper].pop()
            if found is not None:
                return found
        return None


def solve(buffers: Sequence[BufferInfo], overlaps: Iterable[OverlapAllowance] = (),
          node_budget: int = NODE_BUDGET, initial: Mapping | None = None) -> ExactResult:
    """The best placement found, with the best lower bound proven and whether they meet."""
    overlaps = list(overlaps)
    empty = {b.id: 0 for b in buffers if b.footprint == 0}
    buffers = [b for b in buffers if b.footprint > 0]
    if not buffers:
        return ExactResult(empty, 0, 0, True, 0)
    separations = Separations(buffers, overlaps)
    if initial is not None:
        candidates = [{b.id: initial[b.id] for b in buffers}]
    else:
        candidates = [greedy_by_size.plan(buffers, overlaps), greedy_by_conflicts.plan(buffers, overlaps),
                      hill_climb.plan(buffers, overlaps)]
    best = min(candidates, key=lambda offsets: pool_bytes(buffers, offsets))
    granule = reduce(math.gcd, (b.alignment for b in buffers))
    lower = align_up(separations.lower_bound(), granule)
    inverted = any(hi < 0 for row in separations.forbidden for _, hi in row.values())
    search = _SideSearch(separations) if inverted else _Search(separations)
    while lower < pool_bytes(buffers, best) and search.spent < node_budget:
        limit = lower + align_down((pool_bytes(buffers, best) - granule - lower) // 2, granule)
        try:
            found = search.run(limit, node_budget - search.spent)
        except _BudgetExhausted:
            break
        if found is None:
            lower = limit + granule
        else:
            best = separations.by_id(found)
    pool = pool_bytes(buffers, best)
    return ExactResult({**best, **empty}, pool, min(lower, pool), lower >= pool, search.spent)


def plan(buffers: Sequence[BufferInfo], overlaps: Iterable[OverlapAllowance] = (),
         node_budget: int = NODE_BUDGET) -> Offsets:
    return solve(buffers, overlaps, node_budget).offsets
