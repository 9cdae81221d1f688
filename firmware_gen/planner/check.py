"""An independent check of a finished plan against the graph it claims to serve.

It shares no code with the planner: liveness is recomputed step by step from the operators, and every pair of
tensors live at the same step in the same pool must occupy disjoint bytes unless the plan put them in one alias
group, or the plan was made with overlap and the operator of that step allows exactly that overlap (the input read
there for the last time, the output first written there, and the allowance's condition met on the byte ranges).
Tensors the plan keeps outside the pools (in the caller's buffers) are not checked here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from firmware_gen.frontend.ir import Graph
from firmware_gen.planner.buffers import OverlapAllowance
from firmware_gen.planner.plan import MemoryPlan, PlannedBuffer


class PlanError(AssertionError):
    """The plan is unsafe for its graph: a bug of the planner, never the user's. Raised, not asserted, so that
    `python -O` keeps the check."""


def _touching_steps(graph: Graph, tensor_index: int) -> list[int]:
    steps = [step for step, op in enumerate(graph.operators) if tensor_index in (*op.inputs, *op.outputs)]
    if tensor_index in graph.inputs:
        steps.append(0)
    if tensor_index in graph.outputs or graph.tensors[tensor_index].is_variable:
        steps.append(max(len(graph.operators) - 1, 0))
    if graph.tensors[tensor_index].is_variable:  # state: its bytes must survive every step, and between invocations
        steps.append(0)
    return steps


def _label(graph: Graph, tensor_index: int, buffer: PlannedBuffer) -> str:
    return f"tensor {tensor_index} '{graph.tensors[tensor_index].name}' at [{buffer.offset}, {buffer.end})"


def _overlap_permitted(graph: Graph, declared: Sequence[OverlapAllowance], step: int, buffer_a: PlannedBuffer,
                       buffer_b: PlannedBuffer, owner: Mapping[int, PlannedBuffer],
                       live_ranges: Mapping[int, tuple[int, int]]) -> bool:
    for allowance in declared:
        source, result = owner.get(allowance.input), owner.get(allowance.output)
        if {id(source), id(result)} != {id(buffer_a), id(buffer_b)} or source is result:
            continue
        last_read = all(live_ranges[i][1] <= step and i not in graph.outputs and not graph.tensors[i].is_variable
                        for i in source.tensors)
        first_write = all(live_ranges[i][0] >= step and not graph.tensors[i].is_variable for i in result.tensors)
        if last_read and first_write and allowance.permits(source.offset, source.size, result.offset, result.size):
            return True
    return False


def check_plan(plan: MemoryPlan, graph: Graph,
               allowances: Mapping[int, Sequence[OverlapAllowance]] | None = None) -> None:
    """Raise PlanError naming the tensors involved if the plan is unsafe for `graph`.

    allowances: step -> the overlap allowances its operator declares (as plan_graph took them); without them no
    two tensors live together may share a byte."""
    owner: dict[int, PlannedBuffer] = {}
    pool_sizes = {pool.name: plan.pool_sizes.get(pool.name, plan.pool_bytes) for pool in plan.pools}
    for buffer in plan.buffers:
        name = f"tensor {buffer.tensor}"
        _require(buffer.offset >= 0 and buffer.offset % plan.alignment == 0,
                 f"{name}: offset {buffer.offset} is not a multiple of {plan.alignment}")
        _require(buffer.pool in pool_sizes, f"{name}: unknown pool {buffer.pool!r}")
        limit = pool_sizes[buffer.pool]
        _require(buffer.end <= limit,
                 f"{name}: [{buffer.offset}, {buffer.end}) exceeds the pool of {limit} bytes")
        for index in buffer.tensors:
            _require(index not in owner, f"tensor {index} is in two buffers")
            owner[index] = buffer

    live_ranges: dict[int, tuple[int, int]] = {}
    for tensor in graph.activation_tensors:
        if plan.is_outside(tensor.index):
            _require(tensor.index not in owner, f"{tensor.describe()} is both in a pool and outside")
            continue
        _require(tensor.index in owner, f"{tensor.describe()} has no place in the plan")
        buffer = owner[tensor.index]
        _require(tensor.nbytes <= buffer.size,
                 f"{tensor.describe()} needs {tensor.nbytes} bytes, its buffer has {buffer.size}")
        steps = _touching_steps(graph, tensor.index)
        live_ranges[tensor.index] = (min(steps, default=0), max(steps, default=0))
        first, last = live_ranges[tensor.index]
        _require(buffer.first_op <= first and last <= buffer.last_op,
                 f"{tensor.describe()} is live over steps {live_ranges[tensor.index]}, its buffer only over "
                 f"[{buffer.first_op}, {buffer.last_op}]")

    for step in range(max(len(graph.operators), 1)):
        live = [index for index, (first, last) in live_ranges.items() if first <= step <= last]
        for a, b in combinations(live, 2):
            buffer_a, buffer_b = owner[a], owner[b]
            if buffer_a is buffer_b or not _share_bytes(buffer_a, buffer_b):
                continue
            declared = (allowances or {}).get(step, ())
            permitted = plan.overlap and _overlap_permitted(graph, declared, step, buffer_a, buffer_b, owner,
                                                            live_ranges)
            _require(permitted, f"step {step}: {_label(graph, a, buffer_a)} and {_label(graph, b, buffer_b)} are "
                                f"live together and overlap")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise PlanError(message)


def _share_bytes(a: PlannedBuffer, b: PlannedBuffer) -> bool:
    return a.pool == b.pool and a.offset < b.end and b.offset < a.end and 0 not in (a.size, b.size)
