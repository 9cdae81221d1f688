"""Whether a model runs its first layers patch by patch, where the stage ends and its grid (--patches, issue 24).

off: never. min: the stage and grid of the smallest pool whose extra work stays within the budget (+15 %), if that
pool is smaller than the whole-tensor plan's; the halos recomputed by a grid of patches, or kept in row buffers
(ops/row_stage.py), whichever gives the smaller pool. auto (the default): as min, but only when the whole-tensor
plan does not fit (a pool's size limit, or the RAM given as PlanningOptions.ram_bytes). A forced stage
(--patch-stage OP:RxC, or OP:rows for row buffers) is taken as it is, or refused in one line naming the operator or
the dimension.

The extra work is an estimate (driver/stage_cost.py), not an instruction count (bench/patches.py measures those on
QEMU). A stage in one full-width strip of row buffers may write its output over the input rows it has read
(`_output_over_input`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from firmware_gen.driver.stage_cost import model_work, row_cost, stage_cost
from firmware_gen.errors import DoesNotFitError, UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops import macs, view_aliases
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.patch_buffers import StageBuffers, stage_buffers
from firmware_gen.ops.patch_graph import Prefix, build_stage, row_stage_at, stage_at, stage_prefix
from firmware_gen.ops.patch_kernels import layer_window, stage_calls
from firmware_gen.ops.patch_stage import PatchStage, used_later
from firmware_gen.ops.row_stage import RowStage
from firmware_gen.planner import (
    QUICK_ALGORITHM,
    MemoryPlan,
    OverlapAllowance,
    PlanningOptions,
    check_plan,
    graph_lower_bounds,
    plan_graph,
)
from firmware_gen.planner.buffers import OUTPUT_BEFORE_INPUT
from firmware_gen.project_config import PATCH_MODES

__all__ = ["PATCH_MODES", "StagePlan", "call_count", "choose", "parse_forced", "plan_stage", "replanned",
           "stage_cost"]

BUDGET = 0.15  # the estimate of extra instructions over the model's (`stage_cost`)
MAX_PARTS = 8  # rows or columns of patches tried
PLANNED = 4  # candidates planned in full, the smallest by their lower bound
BATCHES = (1, 2, 4)  # rows a call of a row stage's highest-resolution layers, tried
_FORCED = re.compile(r"^(\d+):(?:(\d+)x(\d+)|rows(?:x(\d+))?(?:/(\d+))?)$")


@dataclass
class StagePlan:
    stage: PatchStage | RowStage
    calls: dict[int, KernelCall]  # operator index -> the call each layer runs on patches
    buffers: StageBuffers
    plan: MemoryPlan
    allowances: dict[int, list[OverlapAllowance]]  # those the plan was made and checked with
    extra_macs: int  # recomputed in halos
    model_macs: int
    extra_fraction: float  # the estimate of extra instructions (see `Cost`)

    @property
    def layout(self) -> str:
        """How the stage runs, in words: its grid of patches, or its row buffers."""
        stage = self.stage
        if isinstance(stage, RowStage):
            strips = f" in {stage.strips} column strips" if stage.strips > 1 else ""
            return f"row buffers{strips} ({stage.spec}, {len(stage.calls)} kernel calls), halos kept"
        return f"a {stage.grid[0]}x{stage.grid[1]} grid of {len(stage.patches)} patches, halos recomputed"

    @property
    def halos(self) -> str:
        return "kept in row buffers" if self.stage.mode == "rows" else "recomputed"

    def to_json(self, graph: Graph) -> dict:
        stage = self.stage
        return {"first_operator": graph.operators[stage.positions[0]].index,
                "last_operator": graph.operators[stage.last].index, "steps": list(stage.positions),
                "grid": list(stage.grid), "mode": stage.mode, "layout": self.layout,
                "patches": call_count(stage),
                "output_tensor": stage.tensors[-1],
                "extra_macs": self.extra_macs, "extra_instructions_estimate": round(self.extra_fraction, 4),
                "extra_macs_fraction": round(self.extra_macs / max(self.model_macs, 1), 4),
                "buffers": [{"tensor": t, "name": self.buffers.graph.tensors[t].name,
                             "bytes": self.buffers.graph.tensors[t].nbytes} for t in self.patch_tensors()]}

    def describe(self, graph: Graph) -> str:
        """Lines for `plan` and `analyze`: the stage, its grid and its buffers."""
        stage, first = self.stage, graph.operators[self.stage.positions[0]]
        last = graph.operators[stage.last]
        count = "" if isinstance(stage, RowStage) else f", {len(stage.patches)} patches"
        lines = [f"patch stage: operators {first.index}..{last.index} ({stage.label}{count}), halos {self.halos}, "
                 f"output t{stage.tensors[-1]}; +{self.extra_fraction:.1%} instructions (an estimate from the calls, "
                 f"the rows moved and what halos recompute; recomputed MACs {self.extra_macs:,} of "
                 f"{self.model_macs:,})",
                 "patch buffers (one patch at a time; the stage's intermediates are not whole tensors):"]
        for t in self.patch_tensors():
            tensor = self.buffers.graph.tensors[t]
            lines.append(f"  t{t:<5} {tensor.nbytes:>8} B  {tensor.name[:60]}")
        return "\n".join(lines)

    def patch_tensors(self) -> list[int]:
        extra = [t for t in (self.buffers.patch_input, self.buffers.patch_output) if t is not None]
        return [*self.stage.tensors[:-1], *extra]


def parse_forced(text: str) -> tuple[int, tuple[int, int] | None, int, int]:
    """--patch-stage OP:RxC -> (operator index, (rows, columns), 1, 1); OP:rows[xSTRIPS][/BATCH] -> (operator
    index, None, strips, batch)."""
    match = _FORCED.match(text.strip())
    if not match:
        raise UserError(f"--patch-stage {text}: expected OPERATOR:ROWSxCOLUMNS or OPERATOR:rows[xSTRIPS][/BATCH], "
                        f"e.g. 7:3x3 or 7:rowsx2/2")
    grid = (int(match[2]), int(match[3])) if match[2] else None
    return int(match[1]), grid, int(match[4] or 1), int(match[5] or 1)


def _without_stage(allowances: Mapping[int, Sequence[OverlapAllowance]], stage: PatchStage | RowStage) -> dict:
    return {step: list(a) for step, a in allowances.items() if step not in stage.positions}


def output_over_input(graph: Graph, stage: PatchStage | RowStage) -> OverlapAllowance | None:
    """The allowance that a stage in one full-width strip of row buffers write its output over the input rows it
    has read (RowStage.output_overlap), or None: the input is read after the stage, or nothing may overlap."""
    if not isinstance(stage, RowStage) or used_later(graph, stage.input, stage.last):
        return None
    source, result = graph.tensors[stage.input], graph.tensors[stage.tensors[-1]]
    overlap = stage.output_overlap(source.shape[2] * source.shape[3], result.shape[2] * result.shape[3])
    return OverlapAllowance(stage.input, stage.tensors[-1], OUTPUT_BEFORE_INPUT, overlap) if overlap else None


def plan_stage(graph: Graph, stage: PatchStage | RowStage, calls: dict[int, KernelCall], options: PlanningOptions,
               allowances: Mapping[int, Sequence[OverlapAllowance]], op_macs: Mapping[int, int],
               total_work: float) -> StagePlan:
    """The checked plan of the graph with `stage` on patches, its layers running `calls` (DoesNotFitError when a
    pool's limit is exceeded); total_work: the model's (`model_work`). With the output over the input, the planner
    sees the stage as one step for those two: the output first written, the input last read at its last step."""
    buffers, plan, kept = _checked_plan(graph, stage, options, allowances)
    cost = stage_cost(graph, stage, op_macs, total_work, calls)
    return StagePlan(stage, calls, buffers, plan, kept, cost.extra_macs, sum(op_macs.values()), cost.fraction)


def replanned(graph: Graph, chosen: StagePlan, options: PlanningOptions,
              allowances: Mapping[int, Sequence[OverlapAllowance]]) -> StagePlan:
    """The same stage, calls and estimate, planned again with `allowances` (the graph's, before the stage's own)."""
    buffers, plan, kept = _checked_plan(graph, chosen.stage, options, allowances)
    return dataclasses.replace(chosen, buffers=buffers, plan=plan, allowances=kept)


def _checked_plan(graph: Graph, stage: PatchStage | RowStage, options: PlanningOptions,
                  allowances: Mapping[int, Sequence[OverlapAllowance]]) -> tuple[StageBuffers, MemoryPlan, dict]:
    """The stage's planning graph, its checked plan and the allowances both were made with."""
    buffers, kept = _stage_planning(graph, stage, options, allowances)
    plan = plan_graph(buffers.graph, aliases=view_aliases(graph), options=options, allowances=kept)
    check_plan(plan, buffers.graph, kept)
    return buffers, plan, kept


def _stage_planning(graph: Graph, stage: PatchStage | RowStage, options: PlanningOptions,
                    allowances: Mapping[int, Sequence[OverlapAllowance]]) -> tuple[StageBuffers, dict]:
    """The stage's planning graph and the allowances it is planned with: the graph's outside the stage, and the
    output over the input where the stage allows it."""
    over = output_over_input(graph, stage) if options.overlap else None
    kept = _without_stage(allowances, stage) if options.overlap else {}
    if over is not None:
        kept[stage.last] = [*kept.get(stage.last, []), over]
    return stage_buffers(graph, stage, over is not None), kept


def _candidates(graph: Graph, calls: dict[int, KernelCall], portable: dict[int, KernelCall],
                op_macs: Mapping[int, int]) -> list[tuple[PatchStage | RowStage, dict[int, KernelCall]]]:
    """Every stage and grid within the budget whose layers all have a kernel that takes patches, and every stage in
    row buffers within it."""
    prefix = stage_prefix(graph, calls)
    total = model_work(graph, calls, op_macs)
    found: list[tuple[PatchStage | RowStage, dict[int, KernelCall]]] = []
    for last in sorted(prefix.ends):
        found += _row_candidates(graph, calls, portable, prefix, last, op_macs, total)
    for last in sorted(prefix.ends):
        height, width = layer_window(graph, calls, last).out_size
        within = 0
        for rows in range(1, min(height, MAX_PARTS) + 1):
            for cols in range(1, min(width, MAX_PARTS) + 1):
                if rows * cols == 1:
                    continue
                stage = stage_at(graph, calls, prefix, last, (rows, cols))
                if stage_cost(graph, stage, op_macs, total).fraction > BUDGET:
                    break  # more columns only recompute more
                chosen = stage_calls(stage, calls, portable, graph)
                if chosen is not None:
                    found.append((stage, chosen))
                    within += 1
        if not within:
            break  # a deeper stage recomputes more
    return found


def _row_candidates(graph: Graph, calls: dict[int, KernelCall], portable: dict[int, KernelCall], prefix: Prefix,
                    last: int, op_macs: Mapping[int, int], total: float) -> list[tuple[RowStage, dict]]:
    """The stage to `last` in row buffers in 1, 2, ... column strips, each with its highest-resolution layers
    computing 1, 2 or 4 rows a call (fewer calls, more rows held), while within the budget."""
    found = []
    for strips in range(1, MAX_PARTS + 1):
        within = 0
        for batch in BATCHES:
            try:
                stage = row_stage_at(graph, calls, prefix, last, strips, batch)
            except UserError:
                return found  # more strips than columns, or a residual block
            chosen = stage_calls(stage, calls, portable, graph)
            if chosen is not None and row_cost(graph, stage, op_macs, total, chosen).fraction <= BUDGET:
                found.append((stage, chosen))
                within += 1
        if not within:
            break  # more strips only recompute more
    return found


def choose(graph: Graph, calls: dict[int, KernelCall], portable: dict[int, KernelCall], options: PlanningOptions,
           allowances: Mapping[int, Sequence[OverlapAllowance]], whole: MemoryPlan | None) -> StagePlan | None:
    """The stage --patches asks for (options.patches, options.patch_stage), or None; `whole` is the whole-tensor
    plan (None: it did not fit)."""
    op_macs = macs(graph)
    if options.patch_stage:
        return _forced(graph, calls, portable, options, allowances, op_macs)
    if options.patches == "off" or (options.patches == "auto" and whole is not None and _fits(whole, options)):
        return None
    candidates = _candidates(graph, calls, portable, op_macs)
    if options.stage_calls_below is not None:
        candidates = [c for c in candidates if call_count(c[0]) < options.stage_calls_below]
    total = model_work(graph, calls, op_macs)
    planning = [_stage_planning(graph, stage, options, allowances) for stage, _ in candidates]
    costs = [stage_cost(graph, stage, op_macs, total, chosen).fraction for stage, chosen in candidates]
    stage_bytes = [_stage_bytes(b, stage) for (b, _), (stage, _) in zip(planning, candidates, strict=True)]
    planned: list[int] = []
    # The bound with the allowances (the output over the input can save most of the input) and without them (what a
    # heuristic placement reaches may follow the tensors more than the allowances); by each, the cheapest
    # candidates, and, since many candidates share a bound (a tensor after the stage), the smallest stage buffers.
    aliases = view_aliases(graph)
    both = [graph_lower_bounds(b.graph, aliases, options, kept) for b, kept in planning]  # (alone, allowed)
    for bounds in ([allowed for _, allowed in both], [alone for alone, _ in both]):
        for tie in (costs, stage_bytes):
            planned += sorted(range(len(candidates)), key=lambda i, tie=tie: (bounds[i], tie[i]))[:PLANNED]
    quick = options if options.algorithm else dataclasses.replace(options, algorithm=QUICK_ALGORITHM)
    best: StagePlan | None = None
    for stage, chosen in [candidates[i] for i in dict.fromkeys(planned)]:
        try:
            result = plan_stage(graph, stage, chosen, quick, allowances, op_macs, total)
        except DoesNotFitError:
            continue
        if best is None or (result.plan.pool_bytes, result.extra_fraction) < (best.plan.pool_bytes,
                                                                               best.extra_fraction):
            best = result
    if best is None or (whole is not None and best.plan.pool_bytes >= whole.pool_bytes):
        return None
    return plan_stage(graph, best.stage, best.calls, options, allowances, op_macs, total) if quick is not options \
        else best


def _stage_bytes(buffers: StageBuffers, stage: PatchStage | RowStage) -> int:
    """The bytes of the stage's own buffers (its intermediates' patches or rows, its copies)."""
    extra = [t for t in (buffers.patch_input, buffers.patch_output, *buffers.gathers.values()) if t is not None]
    return sum(buffers.graph.tensors[t].nbytes for t in (*stage.tensors[:-1], *extra))


def call_count(stage: PatchStage | RowStage) -> int:
    """The entries of the stage's table of calls in flash: a row stage's calls, a grid's patches."""
    return len(stage.calls) if isinstance(stage, RowStage) else len(stage.patches)


def _fits(whole: MemoryPlan, options: PlanningOptions) -> bool:
    return options.ram_bytes is None or whole.pool_bytes <= options.ram_bytes


def _forced(graph: Graph, calls: dict[int, KernelCall], portable: dict[int, KernelCall], options: PlanningOptions,
            allowances: Mapping[int, Sequence[OverlapAllowance]], op_macs: Mapping[int, int]) -> StagePlan:
    index, grid, strips, batch = parse_forced(options.patch_stage or "")
    positions = [p for p, op in enumerate(graph.operators) if op.index == index]
    if not positions:
        raise UserError(f"--patch-stage {options.patch_stage}: the model has no operator {index} (once its constants "
                        f"are folded)")
    stage = build_stage(graph, calls, positions[0], grid, strips, batch)
    chosen = stage_calls(stage, calls, portable, graph)
    if chosen is None:
        raise UserError(f"--patch-stage {options.patch_stage}: a layer of the stage has no kernel that runs on "
                        f"patches of this grid")
    return plan_stage(graph, stage, chosen, options, allowances, op_macs, model_work(graph, calls, op_macs))
