"""Static memory planning: every activation tensor at an offset decided ahead of time.

    plan = plan_graph(graph, aliases={view: viewed, ...}, options=PlanningOptions(), allowances={step: [...]})
    check_plan(plan, graph, allowances)  # independent safety check

The planner knows buffers, live ranges and allowances; no operator, C name or calling convention.

Each algorithm is a pure function from buffer descriptions (`BufferInfo`, optional `OverlapAllowance`s) to
offsets, selectable by name in `ALGORITHMS`. By default `plan_graph` runs them in order (cheapest first), keeps the
smallest pool and stops as soon as one reaches the lower bound; the exact solver, last, starts from the best plan
so far and either proves it optimal or improves it (or runs out of nodes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from firmware_gen.errors import DoesNotFitError
from firmware_gen.frontend.ir import Graph
from firmware_gen.planner import branch_and_bound, exact, greedy_by_conflicts, greedy_by_size, hill_climb
from firmware_gen.planner.buffers import BufferInfo, Offsets, OverlapAllowance, Separations, lower_bound, pool_bytes
from firmware_gen.planner.check import PlanError, check_plan
from firmware_gen.planner.granules import granule_plan
from firmware_gen.planner.liveness import alias_groups
from firmware_gen.planner.operator_overlap import graph_overlaps
from firmware_gen.planner.options import PlanningOptions
from firmware_gen.planner.plan import MemoryPlan, PlannedBuffer, PoolSpec
from firmware_gen.planner.pools import assign_pools

Algorithm = Callable[[Sequence[BufferInfo], Iterable[OverlapAllowance]], Offsets]

ALGORITHMS: dict[str, Algorithm] = {
    "greedy_by_size": greedy_by_size.plan,
    "greedy_by_conflicts": greedy_by_conflicts.plan,
    "hill_climb": hill_climb.plan,
    "branch_and_bound": branch_and_bound.plan,
    "exact": exact.plan,
}

# Tried first when no algorithm is named and a plan is made again and again (a patch stage's candidates, the re-plans
# without some allowances): on vww_96_int8 it finds the smallest pool in 0.1 s, where running every algorithm up to
# the exact search takes 2 s.
QUICK_ALGORITHM = "hill_climb"

__all__ = ["ALGORITHMS", "QUICK_ALGORITHM", "BufferInfo", "MemoryPlan", "OverlapAllowance", "PlannedBuffer",
           "PlanningOptions", "PoolSpec", "PlanError", "check_plan", "graph_lower_bounds", "plan_graph", "plan_buffers"]


def plan_buffers(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance] = (),
                 algorithm: str | None = None, fallback: Offsets | None = None) -> tuple[Offsets, str, bool, int]:
    """(offsets, algorithm that made them, proven optimal, proven lower bound) for one pool; among placements of
    the same pool, one whose overlaps are on their granules (planner/granules.py)."""
    offsets, name, optimal, bound = _smallest(buffers, overlaps, algorithm, fallback)
    again = algorithm or (name if name in ALGORITHMS else None)  # the algorithm that found this pool first
    offsets = granule_plan(buffers, overlaps, offsets, lambda narrowed: _smallest(buffers, narrowed, again)[0])
    return offsets, name, optimal, bound


def _smallest(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance], algorithm: str | None,
              fallback: Offsets | None = None) -> tuple[Offsets, str, bool, int]:
    if algorithm is not None and algorithm not in ALGORITHMS:
        raise ValueError(f"unknown planning algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    bound = Separations(buffers, overlaps).lower_bound()
    best: tuple[int, str, Offsets] | None = None
    if fallback is not None:
        best = (pool_bytes(buffers, fallback), "pool_fit", fallback)
    proven_bound = bound
    for name in [algorithm] if algorithm else ALGORITHMS:
        if best is not None and best[0] <= bound:
            break
        if name == "exact":
            result = exact.solve(buffers, overlaps, initial=best[2] if best else None)
            offsets, proven_bound = result.offsets, max(bound, result.lower_bound)
        else:
            offsets = ALGORITHMS[name](buffers, overlaps)
        pool = pool_bytes(buffers, offsets)
        if best is None or pool < best[0]:
            best = (pool, name, offsets)
    if best is None:  # no buffers and nothing run
        return {}, algorithm or "greedy_by_size", True, 0
    pool, name, offsets = best
    return offsets, name, pool <= proven_bound, min(proven_bound, pool)


def _records(graph: Graph, aliases: Mapping[int, int] | None, options: PlanningOptions,
             allowances: Mapping[int, Sequence[OverlapAllowance]] | None) -> tuple[list, list, list, list]:
    """(planned groups, groups outside the pool, their buffer records, the overlap allowances between them)."""
    groups = alias_groups(graph, aliases or {})
    outside = set() if options.io_in_pool else {*graph.inputs, *graph.outputs}
    external = [g for g in groups if not outside.isdisjoint(g.tensors)]
    groups = [g for g in groups if g not in external]
    buffers = [BufferInfo(g.tensors[0], g.size, options.alignment, g.first, g.last) for g in groups]
    overlaps = graph_overlaps(graph, groups, allowances or {}) if options.overlap else []
    return groups, external, buffers, overlaps


def graph_lower_bounds(graph: Graph, aliases: Mapping[int, int] | None = None,
                       options: PlanningOptions = PlanningOptions(),
                       allowances: Mapping[int, Sequence[OverlapAllowance]] | None = None) -> tuple[int, int]:
    """What no placement can beat, without placing anything (one pool): the most bytes live at one step, and that less
    what the allowed overlaps there can save (the bound `plan_graph` proves its plans against)."""
    _, _, buffers, overlaps = _records(graph, aliases, options, allowances)
    return lower_bound(buffers), Separations(buffers, overlaps).lower_bound()


def plan_graph(graph: Graph, aliases: Mapping[int, int] | None = None,
               options: PlanningOptions = PlanningOptions(),
               allowances: Mapping[int, Sequence[OverlapAllowance]] | None = None) -> MemoryPlan:
    """Offsets for every activation tensor of `graph` (views share their target's storage: `aliases` maps a view
    to the tensor it views).

    allowances: step -> the overlap allowances the operator of that step declares, between its tensors (ids are
    tensor indices); used only with options.overlap, and only where they are safe (see operator_overlap).
    With options.io_in_pool=False the graph's inputs and outputs live in the caller's memory: their alias
    groups are not planned and take part in no overlap."""
    groups, external, buffers, overlaps = _records(graph, aliases, options, allowances)
    pool_specs = sorted(options.pools or [PoolSpec()], key=lambda p: p.priority)

    placed: dict = {}
    names, proven, proven_bound = [], True, 0
    for pool, members, fallback in assign_pools(buffers, overlaps, pool_specs):
        offsets, name, optimal, bound = plan_buffers(members, overlaps, options.algorithm, fallback)
        size = pool_bytes(members, offsets)
        if pool.size_limit is not None and size > pool.size_limit:
            raise DoesNotFitError(
                f"pool '{pool.name or 'default'}' needs {size:,} B for {len(members)} buffers (lower bound "
                f"{lower_bound(members):,} B) but holds {pool.size_limit:,} B; give it more room or add a pool")
        placed.update({b.id: (pool.name, offsets[b.id]) for b in members})
        names.append(name)
        proven, proven_bound = proven and optimal, proven_bound + bound

    by_id = {b.id: b for b in buffers}
    planned = [PlannedBuffer(g.tensors, placed[g.tensors[0]][1], g.size, g.first, g.last, placed[g.tensors[0]][0],
                             g.kind) for g in groups]
    pool_sizes = {pool.name: pool_bytes([by_id[i] for i, (n, _) in placed.items() if n == pool.name],
                                        {i: o for i, (n, o) in placed.items() if n == pool.name})
                  for pool in pool_specs}
    unaligned = lower_bound(BufferInfo(b.id, b.size, 1, b.first, b.last) for b in buffers)
    return MemoryPlan(pool_bytes=sum(pool_sizes.values()), lower_bound_bytes=lower_bound(buffers),
                      algorithm="+".join(dict.fromkeys(names)), buffers=planned, alignment=options.alignment,
                      unaligned_lower_bound_bytes=unaligned, overlap=options.overlap, proven_optimal=proven,
                      proven_lower_bound_bytes=proven_bound, pools=pool_specs, pool_sizes=pool_sizes,
                      outside=[g.tensors for g in external])
