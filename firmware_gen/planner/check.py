"""An independent check of a finished plan against the graph it claims to serve.

It shares no code with the planner: liveness is recomputed step by step from the operators, and every pair of
tensors live at the same step must occupy disjoint bytes unless the plan put them in one alias group.
"""

from __future__ import annotations

from itertools import combinations

from firmware_gen.ir import Graph
from firmware_gen.planner.plan import MemoryPlan, PlannedBuffer


def _touching_steps(graph: Graph, tensor_index: int) -> list[int]:
    steps = [step for step, op in enumerate(graph.operators) if tensor_index in (*op.inputs, *op.outputs)]
    if tensor_index in graph.inputs:
        steps.append(0)
    if tensor_index in graph.outputs:
        steps.append(max(len(graph.operators) - 1, 0))
    return steps


def _label(graph: Graph, tensor_index: int, buffer: PlannedBuffer) -> str:
    return f"tensor {tensor_index} '{graph.tensors[tensor_index].name}' at [{buffer.offset}, {buffer.end})"


def check_plan(plan: MemoryPlan, graph: Graph) -> None:
    """Raise AssertionError naming the tensors involved if the plan is unsafe for `graph`."""
    owner: dict[int, PlannedBuffer] = {}
    for buffer in plan.buffers:
        assert buffer.offset >= 0 and buffer.offset % plan.alignment == 0, \
            f"tensor {buffer.tensor}: offset {buffer.offset} is not a multiple of {plan.alignment}"
        assert buffer.end <= plan.pool_bytes, \
            f"tensor {buffer.tensor}: [{buffer.offset}, {buffer.end}) exceeds the pool of {plan.pool_bytes} bytes"
        for index in buffer.tensors:
            assert index not in owner, f"tensor {index} is in two buffers"
            owner[index] = buffer

    live_ranges: dict[int, tuple[int, int]] = {}
    for tensor in graph.activation_tensors:
        assert tensor.index in owner, f"{tensor.describe()} has no place in the plan"
        buffer = owner[tensor.index]
        assert tensor.nbytes <= buffer.size, \
            f"{tensor.describe()} needs {tensor.nbytes} bytes, its buffer has {buffer.size}"
        steps = _touching_steps(graph, tensor.index)
        live_ranges[tensor.index] = (min(steps, default=0), max(steps, default=0))
        assert buffer.first_op <= live_ranges[tensor.index][0] and live_ranges[tensor.index][1] <= buffer.last_op, \
            f"{tensor.describe()} is live over steps {live_ranges[tensor.index]}, its buffer only over " \
            f"[{buffer.first_op}, {buffer.last_op}]"

    for step in range(max(len(graph.operators), 1)):
        live = [index for index, (first, last) in live_ranges.items() if first <= step <= last]
        for a, b in combinations(live, 2):
            buffer_a, buffer_b = owner[a], owner[b]
            if buffer_a is buffer_b:
                continue
            disjoint = (buffer_a.end <= buffer_b.offset or buffer_b.end <= buffer_a.offset
                        or 0 in (buffer_a.size, buffer_b.size))
            assert disjoint, f"step {step}: {_label(graph, a, buffer_a)} and {_label(graph, b, buffer_b)} " \
                             f"are live together and overlap"
