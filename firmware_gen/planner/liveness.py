"""Graph -> alias groups with their live intervals: the buffers the pool must hold.

Step index = position in `graph.operators` (execution order). A tensor is live from the step that produces it
(graph inputs: step 0) to the last step that reads it (graph outputs: the last step); an operator's inputs and
outputs are live together at its step. A view (RESHAPE, SQUEEZE) shares its input's storage: `aliases` maps the
view to the tensor it aliases, and the whole alias group becomes one buffer live over the union of its intervals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from firmware_gen.frontend.ir import Graph


@dataclass(frozen=True)
class TensorGroup:
    tensors: tuple[int, ...]  # the alias group, root (the tensor that owns the storage) first
    size: int
    first: int
    last: int
    kind: str = "intermediate"  # plan.BUFFER_KINDS: state (wins), output (wins over input), input, intermediate


def _kind(graph: Graph, tensors: tuple[int, ...]) -> str:
    if any(graph.tensors[t].is_variable for t in tensors):
        return "state"
    if any(t in graph.outputs for t in tensors):
        return "output"
    return "input" if any(t in graph.inputs for t in tensors) else "intermediate"


def last_step(graph: Graph) -> int:
    return max(len(graph.operators) - 1, 0)


def tensor_intervals(graph: Graph) -> dict[int, tuple[int, int]]:
    """Activation tensor index -> (first step, last step) during which it must keep its bytes."""
    activation = {t.index for t in graph.activation_tensors}
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for step, op in enumerate(graph.operators):
        for index in (*op.inputs, *op.outputs):
            if index in activation:
                first.setdefault(index, step)
                last[index] = step
    for index in graph.inputs:
        first[index] = 0
        last.setdefault(index, 0)
    for index in graph.outputs:
        first.setdefault(index, 0)
        last[index] = last_step(graph)
    for tensor in graph.state_tensors:  # kept from one invocation to the next: live over the whole schedule
        first[tensor.index], last[tensor.index] = 0, last_step(graph)
    return {index: (first[index], last[index]) for index in sorted(activation)}


def _root(index: int, aliases: Mapping[int, int]) -> int:
    seen = {index}
    while index in aliases:
        index = aliases[index]
        if index in seen:
            raise ValueError(f"aliases form a cycle through tensor {index}")
        seen.add(index)
    return index


def alias_groups(graph: Graph, aliases: Mapping[int, int]) -> list[TensorGroup]:
    """One group per storage owner, in order of first use."""
    intervals = tensor_intervals(graph)
    for view, target in aliases.items():
        for index in (view, target):
            if index not in intervals:
                raise ValueError(f"alias {view} -> {target}: tensor {index} is not an activation tensor")
    members: dict[int, list[int]] = {}
    for index in intervals:
        members.setdefault(_root(index, aliases), []).append(index)
    groups = []
    for root, indices in members.items():
        tensors = (root, *sorted(i for i in indices if i != root))
        groups.append(TensorGroup(tensors=tensors,
                                  size=max(graph.tensors[i].nbytes for i in tensors),
                                  first=min(intervals[i][0] for i in tensors),
                                  last=max(intervals[i][1] for i in tensors),
                                  kind=_kind(graph, tensors)))
    return sorted(groups, key=lambda g: (g.first, g.tensors[0]))
