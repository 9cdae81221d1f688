"""What every planning algorithm sees: buffers with a size, an alignment and an inclusive live interval of steps.

A buffer occupies its *footprint* (size rounded up to its alignment) from its offset on. Counting footprints, not
raw sizes, keeps `lower_bound` a true lower bound of `pool_bytes` even when buffers have different alignments.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

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

    def live_together(self, other: BufferInfo) -> bool:
        return self.first <= other.last and other.first <= self.last


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


def conflicts(buffers: Sequence[BufferInfo]) -> list[list[int]]:
    """For each buffer (by position), the positions of the other buffers live at some common step."""
    return [[j for j, other in enumerate(buffers) if j != i and other.live_together(buffer)]
            for i, buffer in enumerate(buffers)]


def lowest_fit(buffer: BufferInfo, occupied: Iterable[tuple[int, int]]) -> int:
    """The lowest aligned offset where `buffer`'s footprint fits between the occupied [start, end) ranges."""
    candidate = 0
    for start, end in sorted(occupied):
        if candidate + buffer.footprint <= start:
            break
        candidate = max(candidate, align_up(end, buffer.alignment))
    return candidate


def first_fit_in_order(ordered: Sequence[BufferInfo]) -> Offsets:
    """Place each buffer in the given order at the lowest offset free of every live-together buffer placed so far."""
    offsets: Offsets = {}
    placed: list[BufferInfo] = []
    for buffer in ordered:
        occupied = [(offsets[p.id], offsets[p.id] + p.footprint) for p in placed if p.live_together(buffer)]
        offsets[buffer.id] = lowest_fit(buffer, occupied)
        placed.append(buffer)
    return offsets
