"""Static memory planning: one pool for every activation tensor, offsets decided ahead of time.

    plan = plan_graph(graph, aliases={view: viewed, ...}, alignment=16)
    check_plan(plan, graph)  # independent safety check

Each algorithm is a pure function from buffer descriptions (`BufferInfo`) to offsets; `plan_graph` runs them in
order (cheapest first), keeps the smallest pool and stops early once one reaches the lower bound.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from firmware_gen.ir import Graph
from firmware_gen.planner import branch_and_bound, greedy_by_conflicts, greedy_by_size
from firmware_gen.planner.buffers import BufferInfo, Offsets, lower_bound, pool_bytes
from firmware_gen.planner.check import check_plan
from firmware_gen.planner.liveness import alias_groups
from firmware_gen.planner.plan import MemoryPlan, PlannedBuffer

Algorithm = Callable[[Sequence[BufferInfo]], Offsets]

ALGORITHMS: dict[str, Algorithm] = {
    "greedy_by_size": greedy_by_size.plan,
    "greedy_by_conflicts": greedy_by_conflicts.plan,
    "branch_and_bound": branch_and_bound.plan,
}

__all__ = ["ALGORITHMS", "BufferInfo", "MemoryPlan", "PlannedBuffer", "check_plan", "plan_graph"]


def plan_graph(graph: Graph, aliases: Mapping[int, int] | None = None, alignment: int = 16,
               algorithm: str | None = None) -> MemoryPlan:
    """Offsets in one pool for every activation tensor of `graph` (views share their target's storage)."""
    if algorithm is not None and algorithm not in ALGORITHMS:
        raise ValueError(f"unknown planning algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    groups = alias_groups(graph, aliases or {})
    buffers = [BufferInfo(g.tensors[0], g.size, alignment, g.first, g.last) for g in groups]
    bound = lower_bound(buffers)

    best: tuple[int, str, Offsets] | None = None
    for name in [algorithm] if algorithm else ALGORITHMS:
        offsets = ALGORITHMS[name](buffers)
        pool = pool_bytes(buffers, offsets)
        if best is None or pool < best[0]:
            best = (pool, name, offsets)
        if pool <= bound:
            break
    assert best is not None
    pool, name, offsets = best
    planned = [PlannedBuffer(g.tensors, offsets[g.tensors[0]], g.size, g.first, g.last) for g in groups]
    unaligned = lower_bound(BufferInfo(b.id, b.size, 1, b.first, b.last) for b in buffers)
    return MemoryPlan(pool_bytes=pool, lower_bound_bytes=bound, algorithm=name, buffers=planned,
                      alignment=alignment, unaligned_lower_bound_bytes=unaligned)
