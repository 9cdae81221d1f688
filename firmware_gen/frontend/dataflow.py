"""The data flow of a graph read from a file, checked before any later stage trusts it: every tensor an operator
reads exists by then (a graph input, a constant, or the output of an earlier operator), every tensor is written at
most once and never a constant or a graph input, and the graph's inputs and outputs are tensors that can hold
activations. A file that breaks one of these rules is corrupt (ModelFormatError naming the operator and tensor)."""

from __future__ import annotations

from firmware_gen.errors import ModelFormatError
from firmware_gen.frontend.ir import Graph


def check_dataflow(graph: Graph, source: str) -> None:
    tensors = graph.tensors
    if len(set(graph.inputs)) != len(graph.inputs):
        raise ModelFormatError(f"{source}: the graph lists an input twice ({list(graph.inputs)})")
    for index in graph.inputs:
        if tensors[index].is_constant:
            raise ModelFormatError(f"{source}: graph input {tensors[index].describe()} is a constant tensor")
    available = set(graph.inputs) | {t.index for t in tensors if t.is_variable}  # state: there from the start
    for op in graph.operators:
        for index in op.inputs:
            if index >= 0 and index not in available and not tensors[index].is_constant:
                raise ModelFormatError(f"{source}: {op.describe()} reads {tensors[index].describe()}, which no "
                                       "earlier operator writes and which is neither a graph input, a constant nor a "
                                       "variable tensor")
        for index in op.outputs:
            tensor = tensors[index]
            if tensor.is_constant or index in available:
                what = "a constant" if tensor.is_constant else "a graph input or written by an earlier operator"
                raise ModelFormatError(f"{source}: {op.describe()} writes {tensor.describe()}, which is {what}")
            available.add(index)
    for index in graph.outputs:
        if index not in available:
            raise ModelFormatError(f"{source}: graph output {tensors[index].describe()} is written by no operator "
                                   "and is not a graph input")
