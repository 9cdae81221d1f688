"""Whole-granule overlaps: a placement's overlapping pairs moved to offsets their kernels run fast at, when free.

An overlap allowance with a granule > 1 says the kernel of its step is correct at every overlap the allowance
permits but fast only when the output lies a whole number of granules before the input (or apart from it); a
channel-by-channel depthwise kernel, say, falls back to pixel order otherwise. The planning algorithms minimize the
pool and ignore granules; afterwards each pair left off-granule has its output (else its input) moved to the
nearest offset that is on-granule, keeps every separation and does not grow the pool. Where that leaves pairs
off-granule, the buffers are placed again with those pairs' allowances narrowed: to their deepest on-granule
overlap, then to the first on-granule overlap no deeper than where the pair lies, then to none (side by side:
always fast). Every placement of a narrowed problem satisfies the original allowances too; the first one whose
pool is no larger and that leaves fewer pairs off-granule is kept. Otherwise the placement stays as it was: pool
bytes come first.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence

from firmware_gen.planner.buffers import (
    OUTPUT_BEFORE_INPUT,
    BufferInfo,
    Offsets,
    OverlapAllowance,
    Separations,
    align_up,
    pool_bytes,
)


def fast_overlap(input_start: int, input_size: int, output_start: int, output_size: int, granule: int) -> bool:
    """Whether the kernel runs its fast path on these ranges: disjoint, or the output a whole number of granules
    before the input (the C side's test, e.g. fg_depthwise_channel_major)."""
    if output_start + output_size <= input_start or input_start + input_size <= output_start:
        return True
    return output_start <= input_start and (input_start - output_start) % granule == 0


def slow_pairs(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance],
               offsets: Mapping[object, int]) -> list[OverlapAllowance]:
    """The allowances with a granule whose pair the placement leaves overlapping off-granule."""
    by_id = {b.id: b for b in buffers}
    return [a for a in overlaps if a.granule > 1 and a.input in offsets and a.output in offsets
            and not fast_overlap(offsets[a.input], by_id[a.input].size, offsets[a.output], by_id[a.output].size,
                                 a.granule)]


def granule_plan(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance], offsets: Offsets,
                 replan: Callable[[Sequence[OverlapAllowance]], Offsets]) -> Offsets:
    """`offsets`, or a placement of no larger pool with fewer pairs off-granule: moved (prefer_granules), else
    placed again by `replan` (the same algorithms, given narrower allowances)."""
    offsets = prefer_granules(buffers, overlaps, offsets)
    slow = slow_pairs(buffers, overlaps, offsets)
    if not slow:
        return offsets
    pool = pool_bytes(buffers, offsets)
    attempts = (on_granule(buffers, overlaps, slow), on_granule(buffers, overlaps, slow, offsets),
                [a for a in overlaps if a not in slow])
    for narrowed in dict.fromkeys(tuple(attempt) for attempt in attempts):
        if list(narrowed) == list(overlaps):
            continue  # already their deepest on-granule overlaps
        retry = prefer_granules(buffers, narrowed, replan(narrowed))
        if len(slow_pairs(buffers, overlaps, retry)) < len(slow) and pool_bytes(buffers, retry) <= pool:
            return retry
    return offsets


def on_granule(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance],
               narrow: Sequence[OverlapAllowance],
               offsets: Mapping[object, int] | None = None) -> list[OverlapAllowance]:
    """`overlaps`, those in `narrow` (output_before_input) letting the output in only as deep as a whole number of
    granules (and of both buffers' alignments) before the input; with `offsets`, no deeper than it lies there."""
    by_id = {b.id: b for b in buffers}
    result = []
    for allowance in overlaps:
        if allowance in narrow and allowance.kind == OUTPUT_BEFORE_INPUT:
            source, output = by_id[allowance.input], by_id[allowance.output]
            step = math.lcm(allowance.granule, source.alignment, output.alignment)
            depth = output.footprint - allowance.bytes  # the least input.start - output.start allowed
            if offsets is not None:
                depth = max(depth, offsets[allowance.input] - offsets[allowance.output])
            depth = align_up(depth, step)
            allowance = dataclasses.replace(allowance, bytes=output.footprint - depth)
        result.append(allowance)
    return result


def prefer_granules(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance], offsets: Offsets) -> Offsets:
    """`offsets` with each off-granule pair moved on-granule where that keeps the plan valid and its pool size."""
    slow = slow_pairs(buffers, overlaps, offsets)
    if not slow:
        return offsets
    separations = Separations(buffers, overlaps)
    position = {b.id: k for k, b in enumerate(buffers)}
    placed = {position[i]: offset for i, offset in offsets.items()}
    limit = pool_bytes(buffers, offsets)
    for allowance in slow:
        for moved in (allowance.output, allowance.input):  # the output first: the input may be a model input
            if not slow_pairs(buffers, [allowance], separations.by_id(placed)):
                break
            offset = _nearest_free(separations, overlaps, position[moved], placed, limit)
            if offset is not None:
                placed[position[moved]] = offset
    return separations.by_id(placed)


def _nearest_free(separations: Separations, overlaps: Sequence[OverlapAllowance], k: int, placed: dict[int, int],
                  limit: int) -> int | None:
    """The aligned offset nearest buffer k's own where it fits among the others within `limit` bytes and leaves
    fewer pairs off-granule than now, or None."""
    buffer, here = separations.buffers[k], placed[k]
    others = {j: offset for j, offset in placed.items() if j != k}

    def slow_count(offset: int) -> int:
        return len(slow_pairs(separations.buffers, overlaps, separations.by_id({**others, k: offset})))

    before = slow_count(here)
    candidates = range(0, limit - buffer.footprint + 1, buffer.alignment)
    for candidate in sorted(candidates, key=lambda o: (abs(o - here), o)):
        if separations.fits(k, candidate, others) and slow_count(candidate) < before:
            return candidate
    return None
