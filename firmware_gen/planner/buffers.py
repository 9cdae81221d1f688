"""What every planning algorithm sees: buffers with a size, an alignment and an inclusive live interval of steps,
and, optionally, pairwise overlap allowances between an operator's input and output buffers.

A buffer occupies its *footprint* (size rounded up to its alignment) from its offset on. Counting footprints, not
raw sizes, keeps `lower_bound` a true lower bound of `pool_bytes` even when buffers have different alignments.

Every algorithm reduces the problem to `Separations`: for two buffers i, j live together, the difference of their
offsets must stay out of one open interval. Without an allowance that interval says "disjoint"; an allowance
narrows it (see `OverlapAllowance`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

BufferId = Hashable
Offsets = dict[BufferId, int]


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def align_down(value: int, alignment: int) -> int:
    return value // alignment * alignment


@dataclass(frozen=True)
class BufferInfo:
    id: BufferId
    size: int
    alignment: int
    first: int  # first step at which the buffer is live
    last: int  # last step at which the buffer is live (inclusive)

    def __post_init__(self) -> None:
        if self.size < 0 or self.alignment < 1 or self.first > self.last:
            raise ValueError(f"invalid buffer {self!r}")

    @property
    def footprint(self) -> int:
        return align_up(self.size, self.alignment)

def live_sums(buffers: Iterable[BufferInfo]) -> dict[int, int]:
    """Step -> total footprint of the buffers live at that step (only steps where some buffer is live)."""
    sums: dict[int, int] = {}
    for buffer in buffers:
        for step in range(buffer.first, buffer.last + 1):
            sums[step] = sums.get(step, 0) + buffer.footprint
    return sums


def lower_bound(buffers: Iterable[BufferInfo]) -> int:
    """The largest total footprint live at one step: no placement of these buffers can use less."""
    return max(live_sums(buffers).values(), default=0)


def pool_bytes(buffers: Iterable[BufferInfo], offsets: Mapping[BufferId, int]) -> int:
    return max((offsets[b.id] + b.footprint for b in buffers), default=0)


OverlapKind = Literal["output_before_input", "output_after_input"]
OUTPUT_BEFORE_INPUT: OverlapKind = "output_before_input"
OUTPUT_AFTER_INPUT: OverlapKind = "output_after_input"


@dataclass(frozen=True)
class OverlapAllowance:
    """The buffer `output` may share bytes with the buffer `input` at the step where both are live, within a limit.

    output_before_input (a kernel that walks forward, writing its output at lower addresses than the input it has
    still to read): allowed when output.end <= input.start + bytes.
    output_after_input (a kernel that walks backward): allowed when output.start >= input.end - bytes.
    Disjoint placements stay allowed and a negative `bytes` counts as 0, so an allowance never forbids anything. An
    output_before_input allowance larger than the output lets the output start inside the input (a kernel that
    reads ahead of its writes), which puts the input below the output: see the exact solver.
    Ids are tensor indices on the operator side and buffer ids on the planner side.
    granule: the kernel of that step is fast on an overlapping placement only when input.start - output.start is a
    whole number of granules (its pixel, for a kernel that runs channel by channel); any other overlap the
    allowance permits is correct but slow. A preference, never a constraint: see planner/granules.py.
    """

    input: BufferId
    output: BufferId
    kind: OverlapKind
    bytes: int
    granule: int = 1

    def __post_init__(self) -> None:
        if self.kind not in (OUTPUT_BEFORE_INPUT, OUTPUT_AFTER_INPUT):
            raise ValueError(f"unknown overlap kind {self.kind!r}")

    def permits(self, input_start: int, input_size: int, output_start: int, output_size: int) -> bool:
        """The exact condition on byte ranges (disjoint ranges are always permitted)."""
        if output_start + output_size <= input_start or input_start + input_size <= output_start:
            return True
        if self.kind == OUTPUT_BEFORE_INPUT:
            return output_start + output_size <= input_start + self.bytes
        return output_start >= input_start + input_size - self.bytes


Interval = tuple[int, int]  # open interval (lo, hi) of forbidden offset differences


def _min_span(footprint_i: int, footprint_j: int, forbidden: Interval, granule: int) -> int:
    """The smallest extent [min start, max end) of buffers i and j when offset_i - offset_j avoids `forbidden`."""
    lo, hi = align_down(forbidden[0], granule), align_up(forbidden[1], granule)

    def span(d: int) -> int:
        return max(d + footprint_i, footprint_j) - min(d, 0)

    nested = (min(0, footprint_j - footprint_i), max(0, footprint_j - footprint_i))  # one inside the other
    best = min(span(lo), span(hi))
    if nested[0] <= lo or nested[1] >= hi:
        best = max(footprint_i, footprint_j)
    return best


class Separations:
    """Pairwise constraints of a placement, by buffer position.

    forbidden[i][j] = (lo, hi): offset_i - offset_j must not lie strictly between lo and hi. Only pairs live at a
    common step appear, and a pair whose allowances leave nothing forbidden is dropped.
    """

    def __init__(self, buffers: Sequence[BufferInfo], overlaps: Iterable[OverlapAllowance] = ()) -> None:
        self.buffers = list(buffers)
        by_time = sorted(range(len(self.buffers)), key=lambda k: self.buffers[k].first)
        self.forbidden: list[dict[int, Interval]] = [{} for _ in self.buffers]
        for rank, i in enumerate(by_time):
            a = self.buffers[i]
            for j in by_time[rank + 1:]:
                b = self.buffers[j]
                if b.first > a.last:
                    break
                self.forbidden[i][j] = (-a.footprint, b.footprint)
                self.forbidden[j][i] = (-b.footprint, a.footprint)
        position = {b.id: k for k, b in enumerate(self.buffers)}
        self.overlapping: dict[tuple[int, int], int] = {}  # (input, output) positions -> bytes an overlap saves
        for allowance in overlaps:
            x, y = position.get(allowance.input), position.get(allowance.output)
            if x is None or y is None or x == y or x not in self.forbidden[y]:
                continue
            fx, fy = self.buffers[x].footprint, self.buffers[y].footprint
            if allowance.kind == OUTPUT_BEFORE_INPUT:
                permitted = (max(allowance.bytes, 0) - fy, fx)
            else:
                permitted = (-fy, fx - max(allowance.bytes, 0))
            lo, hi = self.forbidden[y][x]
            lo, hi = max(lo, permitted[0]), min(hi, permitted[1])
            self.forbidden[y][x], self.forbidden[x][y] = (lo, hi), (-hi, -lo)
            self.overlapping.pop((y, x), None)  # one saving per pair, from all its allowances together
            self.overlapping[(x, y)] = 0
        for x, y in self.overlapping:
            fx, fy = self.buffers[x].footprint, self.buffers[y].footprint
            lo, hi = self.forbidden[y][x]
            granule = math.gcd(self.buffers[x].alignment, self.buffers[y].alignment)
            self.overlapping[(x, y)] = fx + fy - _min_span(fy, fx, (lo, hi), granule) if lo < hi else min(fx, fy)
        for row in self.forbidden:
            for j in [j for j, (lo, hi) in row.items() if lo >= hi]:
                del row[j]

    def neighbours(self, i: int) -> list[int]:
        return list(self.forbidden[i])

    def blocked(self, i: int, offsets: Mapping[int, int]) -> list[Interval]:
        """Open intervals of offsets that buffer i cannot take, given the placed buffers (position -> offset)."""
        return sorted((offsets[j] + lo, offsets[j] + hi) for j, (lo, hi) in self.forbidden[i].items() if j in offsets)

    def lowest_fit(self, i: int, offsets: Mapping[int, int], floor: int = 0) -> int:
        """The lowest aligned offset >= floor that buffer i can take, given the placed buffers."""
        alignment = self.buffers[i].alignment
        candidate = align_up(floor, alignment)
        for lo, hi in self.blocked(i, offsets):
            if candidate <= lo:
                break
            if candidate < hi:
                candidate = align_up(hi, alignment)
        return candidate

    def fits(self, i: int, offset: int, offsets: Mapping[int, int]) -> bool:
        return all(not (lo < offset - offsets[j] < hi) for j, (lo, hi) in self.forbidden[i].items() if j in offsets)

    def overlap_steps(self) -> set[int]:
        """Steps at which some pair with an overlap allowance is live together."""
        steps: set[int] = set()
        for x, y in self.overlapping:
            a, b = self.buffers[x], self.buffers[y]
            steps.update(range(max(a.first, b.first), min(a.last, b.last) + 1))
        return steps

    def lower_bound(self) -> int:
        """`lower_bound` less, at each step, the most each overlapping pair live there can save (a union of ranges
        is at least the sum of their sizes less their pairwise intersections)."""
        sums = live_sums(self.buffers)
        for (x, y), saving in self.overlapping.items():
            a, b = self.buffers[x], self.buffers[y]
            for step in range(max(a.first, b.first), min(a.last, b.last) + 1):
                sums[step] -= saving
        return max(sums.values(), default=0)

    def first_fit(self, order: Iterable[int]) -> Offsets:
        """Place the buffers in `order` (positions), each at the lowest offset the ones placed before leave it."""
        offsets: dict[int, int] = {}
        for i in order:
            offsets[i] = self.lowest_fit(i, offsets)
        return self.by_id(offsets)

    def by_id(self, offsets: Mapping[int, int]) -> Offsets:
        return {self.buffers[i].id: offset for i, offset in offsets.items()}

    def pool(self, offsets: Mapping[int, int]) -> int:
        """Pool bytes of a placement given by position."""
        return max((offset + self.buffers[i].footprint for i, offset in offsets.items()), default=0)


def conflicts(buffers: Sequence[BufferInfo]) -> list[list[int]]:
    """For each buffer (by position), the positions of the other buffers live at some common step."""
    separations = Separations(buffers)
    return [separations.neighbours(i) for i in range(len(buffers))]
