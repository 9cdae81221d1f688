"""Several pools: which buffers go to which RAM region.

Pools are filled in priority order. A pool with a size limit takes buffers smallest first (small tensors are the
most accessed per byte, and many of them fit), each kept only if the pool, planned with the cheap greedy planners,
still fits its limit; the rest spill to the next pool. The last pool takes everything left.
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware_gen.planner import greedy_by_conflicts, greedy_by_size
from firmware_gen.planner.buffers import BufferInfo, Offsets, OverlapAllowance, pool_bytes
from firmware_gen.planner.plan import PoolSpec


def quick_plan(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance]) -> Offsets:
    return min((greedy_by_size.plan(buffers, overlaps), greedy_by_conflicts.plan(buffers, overlaps)),
               key=lambda offsets: pool_bytes(buffers, offsets))


def assign_pools(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance],
                 pools: Sequence[PoolSpec]) -> list[tuple[PoolSpec, list[BufferInfo], Offsets | None]]:
    """(pool, its buffers, a placement known to fit its limit or None) for each pool, in priority order."""
    remaining = sorted(buffers, key=lambda b: (b.footprint, -(b.last - b.first), b.first))
    result = []
    for rank, pool in enumerate(pools):
        if pool.size_limit is None or rank == len(pools) - 1:
            result.append((pool, remaining, None))
            remaining = []
            continue
        chosen: list[BufferInfo] = []
        fitting: Offsets = {}
        for buffer in remaining:
            if buffer.footprint > pool.size_limit:
                continue
            offsets = quick_plan([*chosen, buffer], overlaps)
            if pool_bytes([*chosen, buffer], offsets) <= pool.size_limit:
                chosen.append(buffer)
                fitting = offsets
        taken = {b.id for b in chosen}
        remaining = [b for b in remaining if b.id not in taken]
        result.append((pool, chosen, fitting))
    return result
