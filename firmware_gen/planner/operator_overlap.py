"""The overlap allowances of a graph: what each operator declares, kept only where it is safe.

The compiler passes, per step, the allowances its operator declares between (input tensor, output tensor). A pair
is kept only when the input's buffer is read for the last time at that operator (no later reader, not a graph
output, no view of it read later) and the output's buffer is first written there; the allowance then applies to
exactly that one step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from firmware_gen.frontend.ir import Graph
from firmware_gen.planner.buffers import OverlapAllowance
from firmware_gen.planner.liveness import TensorGroup


def graph_overlaps(graph: Graph, groups: list[TensorGroup],
                   declared: Mapping[int, Sequence[OverlapAllowance]]) -> list[OverlapAllowance]:
    """Allowances between buffers (ids: the groups' root tensors), from the tensor-level ones declared per step (a
    position in graph.operators, as the groups' live ranges count them: not the operator's index in the file, which
    differs once folding has removed an operator before it)."""
    group_of = {index: group for group in groups for index in group.tensors}
    outputs = set(graph.outputs)
    allowances = []
    for step in range(len(graph.operators)):
        for allowance in declared.get(step, ()):
            source, result = group_of.get(allowance.input), group_of.get(allowance.output)
            if source is None or result is None or source is result or "state" in (source.kind, result.kind):
                continue  # state keeps its bytes across invocations: nothing may ever share them
            if source.last != step or result.first != step or outputs.intersection(source.tensors):
                continue
            allowances.append(OverlapAllowance(source.tensors[0], result.tensors[0], allowance.kind, allowance.bytes,
                                               allowance.granule))
    return allowances
