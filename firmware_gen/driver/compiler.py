"""The compile driver: the passes in order, each one's result checked before the next runs.

    IR -> constant folding -> operator check -> lowering (kernel calls) -> memory plan -> plan check
       -> call legalization -> C

The memory plan is made on the raw buffers (tensor indices, sizes, live ranges, overlap allowances) and only then
are calls legalized into direct C calls or packed-call structs: a planner that saw struct handles instead of the
buffers behind them would reuse memory that is still live (TVM issue 8062, fixed by PR 8096).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from firmware_gen.abi import CALLING_CONVENTIONS
from firmware_gen.backend import codegen
from firmware_gen.backend.legalize import Step, legalize
from firmware_gen.backend.options import GenerationOptions
from firmware_gen.driver.patch_choice import PATCH_MODES, StagePlan, choose, replanned
from firmware_gen.errors import DoesNotFitError, UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.isa import PORTABLE, Isa
from firmware_gen.manifest import ModelManifest
from firmware_gen.ops import check_supported, fold, lower, output_overlaps, view_aliases
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.expanded_layout import expand, expansion_candidates
from firmware_gen.planner import (
    QUICK_ALGORITHM,
    MemoryPlan,
    OverlapAllowance,
    PlanningOptions,
    check_plan,
    plan_graph,
)
from firmware_gen.planner.buffers import OUTPUT_BEFORE_INPUT


@dataclass
class CompiledModel:
    graph: Graph  # constants folded (ops/constant_folding.py)
    calls: dict[int, KernelCall]  # operator index -> kernel call; views (RESHAPE...) have none
    aliases: dict[int, int]  # view tensor -> the tensor whose storage it shares
    plan: MemoryPlan
    steps: list[Step]
    interface: str = "unpacked"
    manifest: ModelManifest | None = None  # set once the C is generated
    stage: StagePlan | None = None  # the prefix run patch by patch (driver/patch_choice.py), its plan is `plan`

    @property
    def planned_graph(self) -> Graph:
        """The graph the plan was made and checked on (a patch stage's buffers in place of its tensors)."""
        return self.stage.buffers.graph if self.stage else self.graph


def overlap_allowances(graph: Graph, without: frozenset[int] = frozenset(),
                       granules: Mapping[int, int] | None = None) -> dict[int, list[OverlapAllowance]]:
    """What the operators allow (ops) in the planner's terms: step -> tensor-level allowances, none for the operator
    indices `without` (their kernel variants allow none), each with the granule its operator's variant runs fast at
    (`granules`: operator index -> bytes, overlap_granules). A step is a position in graph.operators, which after
    constant folding may differ from the operator's index in the file."""
    step_of = {op.index: step for step, op in enumerate(graph.operators)}
    granules = granules or {}
    return {step_of[index]: [OverlapAllowance(o.input, o.output, OUTPUT_BEFORE_INPUT, o.bytes, granules.get(index, 1))
                             for o in overlaps]
            for index, overlaps in output_overlaps(graph).items() if index not in without}


def overlap_granules(calls: Mapping[int, KernelCall]) -> dict[int, int]:
    """Operator index -> the granule its chosen kernel overlaps fast at (KernelCall.overlap_granule), where not 1."""
    return {index: call.overlap_granule for index, call in calls.items() if call.overlap_granule > 1}


def plan_model(graph: Graph, options: PlanningOptions = PlanningOptions(),
               without_overlap: frozenset[int] = frozenset(), granules: Mapping[int, int] | None = None) -> MemoryPlan:
    """The checked memory plan of a supported graph (its constants folded first), the operator indices
    `without_overlap` planned without their overlap allowances, overlaps on `granules` where free (overlap_granules)."""
    graph = fold(graph)
    allowances = overlap_allowances(graph, without_overlap, granules) if options.overlap else {}
    plan = plan_graph(graph, aliases=view_aliases(graph), options=options, allowances=allowances)
    check_plan(plan, graph, allowances)
    return plan


def _expand_within_pool(graph: Graph, calls: dict[int, KernelCall], plan: MemoryPlan,
                        options: PlanningOptions, stack_bytes: int) -> tuple[dict[int, KernelCall], MemoryPlan]:
    """The compact fused 1x1 layers on their expanded variant (ops/convolution/expanded_layout.py), which allows no
    output
    overlap, where planning them without it costs no pool bytes; otherwise `calls` and `plan` as they are."""
    keeping, side_by_side = expansion_candidates(graph, calls, plan.pool_bytes, stack_bytes)
    if side_by_side and options.overlap:
        replanned = _replan_within(graph, options, side_by_side, plan.pool_bytes, overlap_granules(calls))
        side_by_side = side_by_side if replanned else frozenset()
        plan = replanned or plan
    return expand(calls, keeping | side_by_side), plan


def _expand_after_stage(graph: Graph, calls: dict[int, KernelCall], stage: StagePlan, options: PlanningOptions,
                        stack_bytes: int) -> tuple[dict[int, KernelCall], StagePlan]:
    """As `_expand_within_pool`, for the layers after a patch stage: the stage's plan made again without the
    allowances of the layers that need none, kept if its pool is no larger."""
    after = {index: call for index, call in calls.items() if index not in stage.calls}
    keeping, side_by_side = expansion_candidates(graph, after, stage.plan.pool_bytes, stack_bytes)
    if side_by_side and options.overlap:
        granules = overlap_granules(calls)
        for attempt in _attempts(options):
            again = replanned(graph, stage, attempt, overlap_allowances(graph, side_by_side, granules))
            if again.plan.pool_bytes <= stage.plan.pool_bytes:
                return expand(calls, keeping | side_by_side), again
    return expand(calls, keeping), stage


def _attempts(options: PlanningOptions) -> list[PlanningOptions]:
    """The options a re-plan tries in turn: the quick algorithm first unless one is named, then the options' own."""
    return [options] if options.algorithm else [dataclasses.replace(options, algorithm=QUICK_ALGORITHM), options]


def _replan_within(graph: Graph, options: PlanningOptions, without_overlap: frozenset[int],
                   pool_bytes: int, granules: Mapping[int, int]) -> MemoryPlan | None:
    """A plan of the operators `without_overlap` planned without their overlap allowances whose pool takes at most
    `pool_bytes` (the quick algorithm first, then the options' own), or None."""
    for attempt in _attempts(options):
        plan = plan_model(graph, attempt, without_overlap, granules)
        if plan.pool_bytes <= pool_bytes:
            return plan
    return None


def compile_graph(graph: Graph, interface: str = "unpacked", options: PlanningOptions = PlanningOptions(),
                  isa: Isa = PORTABLE, generation: GenerationOptions = GenerationOptions()) -> CompiledModel:
    """Every pass up to the legalized schedule (no C yet), with the kernel variants `isa` offers, its names
    starting with generation.name."""
    if interface not in CALLING_CONVENTIONS:
        raise UserError(f"unknown interface {interface!r}; choose one of {', '.join(CALLING_CONVENTIONS)}")
    if not options.io_in_pool and interface != "unpacked":
        raise UserError(f"the {interface} interface needs the inputs and outputs in the pool (its tensor "
                        f"descriptors are constants); use the unpacked interface or keep I/O in the pool")
    generation.check(interface, named_pools=any(pool.name for pool in options.pools))
    graph = fold(graph)  # what is known at generation time never runs on the device
    check_supported(graph)
    calls = lower(graph, dataclasses.replace(isa, flash_bytes=0) if generation.compact_weights else isa)
    whole, stage = _plan_patches(graph, calls, options, isa, interface)
    if stage is None:
        calls, plan = _expand_within_pool(graph, calls, whole, options, isa.stack_bytes)
    else:
        calls, stage = _expand_after_stage(graph, calls, stage, options, isa.stack_bytes)
        calls, plan = {**calls, **stage.calls}, stage.plan
    steps = legalize(graph, calls, plan, generation.name)
    return CompiledModel(graph, calls, view_aliases(graph), plan, steps, interface, stage=stage)


def _plan_patches(graph: Graph, calls: dict[int, KernelCall], options: PlanningOptions, isa: Isa,
                  interface: str) -> tuple[MemoryPlan, None] | tuple[MemoryPlan | None, StagePlan]:
    """The whole-tensor plan, and the patch stage --patches asks for (None: none)."""
    if options.patches not in PATCH_MODES:
        raise UserError(f"--patches {options.patches}: choose one of {', '.join(PATCH_MODES)}")
    if interface == "packed" and (options.patch_stage or options.patches == "min"):
        flag = "--patch-stage" if options.patch_stage else "--patches min"
        raise UserError(f"{flag}: the packed interface calls one kernel per step; a patch stage needs the unpacked "
                        f"interface (--patches auto leaves a packed model whole)")
    granules = overlap_granules(calls)
    try:
        whole = plan_model(graph, options, granules=granules)
    except DoesNotFitError:
        if options.patches == "off" or interface == "packed":
            raise
        whole = None
    stage = None
    if interface != "packed" and (options.patches != "off" or options.patch_stage):
        portable = lower(graph, PORTABLE)
        stage = choose(graph, calls, portable, options, overlap_allowances(graph, granules=granules), whole)
    if whole is None and stage is None:
        plan_model(graph, options)  # raises the whole-tensor plan's DoesNotFitError
    return whole, stage  # type: ignore[return-value]


def generate(graph: Graph, out_dir: str | Path, source: str = "", interface: str = "unpacked",
             options: PlanningOptions = PlanningOptions(), isa: Isa = PORTABLE,
             generation: GenerationOptions = GenerationOptions()) -> CompiledModel:
    """compile_graph, then the C sources, their manifest, their build files and the runtime they need, written to
    out_dir."""
    compiled = compile_graph(graph, interface, options, isa, generation)
    generated = codegen.render(compiled.graph, compiled.plan, compiled.steps, source, interface, generation,
                               compiled.stage)
    codegen.write_output(generated, Path(out_dir))
    compiled.manifest = generated.manifest
    return compiled
