"""A patch stage's buffers, as the planner sees them: a planning graph.

The planner stays blind to operators; it is given a graph whose tensors are the buffers the stage really uses:

- each intermediate tensor of the stage shrinks to its largest patch region (one patch's worth, rewritten by the
  next patch), live over the steps of its producer and its readers as before; a reader that needs a rectangle of
  it that is not whole rows reads a copy (`patch region`, live at the reader's step);
- the stage's input and output are live over the whole stage (every patch reads the one and writes the other);
- with more than one column of patches, the first layer reads its region from a copy (`patch input`, live at the
  first step) and the last writes its patch to `patch output` (live at the last step), copied into place; with one
  column the regions are whole rows, read and written in place.

With the halos kept in row buffers (ops/row_stage.py, `row_planning_graph`), each intermediate tensor shrinks to
the rows its buffer holds, live over the whole stage.

The steps keep their positions, so the schedule, the profile and the plan checker (planner/check.py, run on this
graph) see one step per layer.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from firmware_gen.frontend.ir import Graph, Tensor
from firmware_gen.ops.patch_stage import PatchStage
from firmware_gen.ops.row_stage import RowStage


@dataclass(frozen=True)
class StageBuffers:
    graph: Graph  # the planning graph
    patch_input: int | None  # the tensor index of the input region copy, None when read in place
    patch_output: int | None  # the tensor index of the output patch, None when written in place
    gathers: dict[tuple[int, int], int] = field(default_factory=dict)  # (layer, input slot) -> its copy's tensor


def _region_tensor(tensor: Tensor, index: int, name: str, nbytes: int) -> Tensor:
    channels = tensor.shape[-1]
    return dataclasses.replace(tensor, index=index, name=name, shape=(1, 1, nbytes // channels, channels), data=None)


def planning_graph(graph: Graph, stage: PatchStage) -> StageBuffers:
    """The graph to plan when `stage` runs on patches (see the module's docstring)."""
    tensors = list(graph.tensors)
    copies = stage.grid[1] > 1
    for layer, index in enumerate(stage.tensors[:-1]):
        tensor = tensors[index]
        tensors[index] = _region_tensor(tensor, index, tensor.name, stage.region_bytes(layer, tensor.shape[-1]))
    patch_input = patch_output = None
    if copies:
        source, result = graph.tensors[stage.input], graph.tensors[stage.tensors[-1]]
        patch_input, patch_output = len(tensors), len(tensors) + 1
        tensors.append(_region_tensor(source, patch_input, "patch input",
                                      stage.input_region_bytes(source.shape[-1])))
        tensors.append(_region_tensor(result, patch_output, "patch output",
                                      stage.region_bytes(len(stage.positions) - 1, result.shape[-1])))
    operators = list(graph.operators)
    gathers = {}
    for layer, position in enumerate(stage.positions):  # a region of a larger patch buffer, copied out to be read
        for slot, source in enumerate(stage.reads(layer)):
            if source != stage.input and stage.read_mode(layer, slot) == "gather":
                gathers[layer, slot] = len(tensors)
                need = max(stage.read_region(p, layer, slot).pixels for p in stage.patches)
                tensors.append(_region_tensor(graph.tensors[source], len(tensors), f"patch region of t{source}",
                                              need * graph.tensors[source].shape[-1]))
                op = operators[position]
                operators[position] = dataclasses.replace(op, inputs=(*op.inputs, gathers[layer, slot]))
    first, last = operators[stage.positions[0]], operators[stage.last]
    first_inputs = (patch_input, *first.inputs[1:]) if copies else first.inputs
    operators[stage.positions[0]] = dataclasses.replace(first, inputs=first_inputs,
                                                        outputs=(*first.outputs, stage.tensors[-1]))
    last = operators[stage.last]
    last_outputs = (patch_output, *last.outputs) if copies else last.outputs
    operators[stage.last] = dataclasses.replace(last, inputs=(*last.inputs, stage.input), outputs=last_outputs)
    return StageBuffers(dataclasses.replace(graph, tensors=tensors, operators=operators), patch_input, patch_output,
                        gathers)


def row_planning_graph(graph: Graph, stage: RowStage, output_from_last: bool = False) -> StageBuffers:
    """The graph to plan when `stage` runs in row buffers: each intermediate tensor shrinks to the rows its buffer
    holds; every buffer of the stage, its input and its output are live over the whole stage (a row kept in a buffer
    is read by a later call of any layer). With `output_from_last`, the output is first written at the stage's last
    step, where the input is last read, for an allowance between the two at that step: every other buffer live in
    the stage is live at that step too (in one strip nothing is gathered), so none may share the output's bytes."""
    tensors = list(graph.tensors)
    for layer, index in enumerate(stage.tensors[:-1]):
        tensor = tensors[index]
        tensors[index] = _region_tensor(tensor, index, f"rows of {tensor.name}",
                                        stage.buffer_bytes(layer, tensor.shape[-1]))
    patch_input = None
    if stage.strips > 1:  # a strip's input rows are gathered
        source, patch_input = graph.tensors[stage.input], len(tensors)
        tensors.append(_region_tensor(source, patch_input, "patch input",
                                      stage.input_region_pixels() * source.shape[-1]))
    whole = (*stage.tensors, *(() if patch_input is None else (patch_input,)))
    operators = list(graph.operators)
    gathers = {}
    for layer, slot in sorted(stage.gathered):  # a copy made and read within one call: live at its layer's step
        source = graph.tensors[stage.reads(layer)[slot]]
        gathers[layer, slot] = len(tensors)
        tensors.append(_region_tensor(source, len(tensors), f"patch region of t{source.index}",
                                      stage.gather_pixels(layer, slot) * source.shape[-1]))
        op = operators[stage.positions[layer]]
        operators[stage.positions[layer]] = dataclasses.replace(op, inputs=(*op.inputs, gathers[layer, slot]))
    first = operators[stage.positions[0]]
    early = [t for t in whole if not (output_from_last and t == stage.tensors[-1])]
    operators[stage.positions[0]] = dataclasses.replace(first, outputs=(*first.outputs, *early))
    last = operators[stage.last]
    kept = (t for t in whole if t != stage.tensors[-1])
    operators[stage.last] = dataclasses.replace(last, inputs=(*last.inputs, stage.input, *kept))
    return StageBuffers(dataclasses.replace(graph, tensors=tensors, operators=operators), patch_input, None, gathers)


def stage_buffers(graph: Graph, stage: PatchStage | RowStage, output_from_last: bool = False) -> StageBuffers:
    """The planning graph of either kind of stage."""
    if isinstance(stage, RowStage):
        return row_planning_graph(graph, stage, output_from_last)
    return planning_graph(graph, stage)
