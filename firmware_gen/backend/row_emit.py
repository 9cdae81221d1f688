"""The C of a stage run in row buffers (ops/row_stage.py): a const table of kernel calls and one loop over it.

Each entry names the layer (a case of the loop's switch), the params of its geometry (one struct per distinct
geometry of a layer), the byte offset of the rows each input is read from in its buffer, of the rows it writes in
its output buffer, and the rows that buffer keeps (moved to its start by fg_region_keep before the write). The
stage's input is read in place (in column strips: its rows gathered into `patch input`, the entry's region) and its
output written in place (one row of a strip is contiguous).
"""

from __future__ import annotations

from firmware_gen.backend.c_literals import c_comment_safe
from firmware_gen.backend.legalize import Step, tensor_ref
from firmware_gen.backend.patch_emit import StageCode, layer_params, region_initializer
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.patch_stage import Rect, Span
from firmware_gen.ops.row_stage import RowCall, RowStage
from firmware_gen.planner import MemoryPlan


def _entry(graph: Graph, stage: RowStage, call: RowCall, params: str, slots: int, step: int) -> str:
    """One call's table entry: its byte offsets are rows times the row bytes of its strip's buffers; in column
    strips, the region its gathered read copies (the stage's input rows, or a narrower rectangle of a buffer)."""
    patch, gathered = call.patch, _gathered_slot(stage, call.layer)
    reads, region = [], "{ 0, 0, 0, 0 }"
    for slot, (row, tensor, rect, (column, width)) in enumerate(zip(
            call.reads, stage.reads(call.layer), (patch.input, *patch.extra), call.buffers, strict=True)):
        channels = graph.tensors[tensor].shape[-1]
        if slot != gathered:
            reads.append(row * width * channels)
            continue
        reads.append(0)  # the copy
        if tensor == stage.input:
            region = region_initializer(rect, graph.tensors[tensor].shape[2], channels)
        else:
            shifted = Rect(Span(row, row + rect.rows.size), Span(column, column + rect.cols.size))
            region = region_initializer(shifted, width, channels)
    reads += [0] * (slots - len(reads))
    result = graph.tensors[stage.tensors[call.layer]]
    row_bytes = patch.output.cols.size * result.shape[-1]
    if call.layer == len(stage.positions) - 1:  # in place in the whole output
        write = (call.write * result.shape[2] + patch.output.cols.start) * result.shape[-1]
    else:
        write = call.write * row_bytes
    rows, cols = patch.output.rows, patch.output.cols
    region = f"{region}, " if stage.strips > 1 else ""
    return (f"{{ &{params}, {{ {', '.join(map(str, reads))} }}, {write}, {call.keep[0] * row_bytes}, "
            f"{call.keep[1] * row_bytes}, {region}{call.layer} }}, /* step {step}: rows {rows.start}..{rows.stop - 1}"
            f", columns {cols.start}..{cols.stop - 1} */")


def _gathered_slot(stage: RowStage, layer: int) -> int | None:
    """The input slot `layer` reads from a gathered copy (in column strips: the stage's input, or a narrower
    rectangle of a buffer), if any."""
    if stage.strips > 1 and stage.input in stage.reads(layer):
        return stage.reads(layer).index(stage.input)
    return next((slot for lay, slot in stage.gathered if lay == layer), None)


def _body(graph: Graph, plan: MemoryPlan, stage: RowStage, layers: list[Step], buffers, prefix: str,
          outside: dict[int, str]) -> list[str]:
    """The loop's switch: per layer, its kept rows moved, then its kernel on this call's rows."""
    body = ["switch (patch->layer) {"]
    for layer, step in enumerate(layers):
        body += [f"case {layer}: /* step {step.index}: {step.op.opcode}, t{step.outputs[0].index} */"]
        count = len(stage.reads(layer))
        inputs = [f"{ref.expression} + patch->read[{slot}]" for slot, ref in enumerate(step.inputs[:count])]
        slot = _gathered_slot(stage, layer)
        if slot is not None:
            copy = buffers.patch_input if stage.reads(layer)[slot] == stage.input else buffers.gathers[layer, slot]
            target = tensor_ref(buffers.graph, plan, copy, True, outside, prefix).expression
            body.append(f"    fg_region_gather(&patch->gather, {step.inputs[slot].expression}, {target});")
            inputs[slot] = tensor_ref(buffers.graph, plan, copy, False, outside, prefix).expression
        inputs += [ref.expression for ref in step.inputs[count:]]
        output = step.outputs[0].expression
        if layer < len(layers) - 1:
            body.append(f"    fg_region_keep({output}, patch->keep_from, patch->keep_bytes);")
        outputs = [f"{output} + patch->write", *(ref.expression for ref in step.outputs[1:])]
        body += [f"    {step.call.function}((const {step.call.params_type} *)patch->params, "
                 f"{', '.join(inputs + outputs)});", "    break;"]
    return [*body, "default:", "    break;", "}"]


def row_stage_code(graph: Graph, plan: MemoryPlan, steps: list[Step], stage_plan, step_params: dict, prefix: str,
                   outside: dict[int, str]) -> StageCode:
    """The C of `stage_plan` (its stage a RowStage) as backend.patch_emit.StageCode."""
    stage: RowStage = stage_plan.stage
    layers = [steps[p] for p in stage.positions]
    params, names = {}, []
    for layer, step in enumerate(layers):
        channels = graph.tensors[step.outputs[0].index].shape[-1]
        params[step.index], chosen = layer_params(step, step_params[step.index], stage.layer_patches(layer), channels,
                                                  "rows")
        names.append(iter(chosen))
    slots = max(len(stage.reads(layer)) for layer in range(len(layers)))
    entries = [_entry(graph, stage, call, next(names[call.layer]), slots, layers[call.layer].index)
               for call in stage.calls]
    struct = ["const void *params;  /* the layer's params for this call's rows */",
              f"int32_t read[{slots}];  /* per input: the byte its rows start at in its buffer */",
              "int32_t write;  /* the byte the computed rows start at in the output buffer */",
              "int32_t keep_from;  /* the rows the output buffer keeps, moved to its start before the write */",
              "int32_t keep_bytes;",
              *(["fg_region gather;  /* the rectangle copied for the read the switch gathers */"]
                if stage.strips > 1 else []),
              "uint16_t layer;"]
    body = _body(graph, plan, stage, layers, stage_plan.buffers, prefix, outside)
    result = graph.tensors[stage.tensors[-1]]
    moved = sum(m * graph.tensors[t].shape[-1] for m, t in zip(stage.moved_pixels(), stage.tensors, strict=True))
    strips = f" in {stage.strips} column strips (their column halos recomputed)" if stage.strips > 1 else ""
    description = [f"Row stage: steps {layers[0].index}..{layers[-1].index} run on rows, top to bottom{strips}, "
                   f"t{stage.tensors[-1]} ({'x'.join(map(str, result.shape[1:]))}) one row at a time in "
                   f"{len(stage.calls)} kernel calls.",
                   "Each intermediate tensor lives in a buffer of only the rows its readers still need (the row "
                   f"halos kept, not recomputed; {moved:,} bytes moved over the stage)."]
    out_ref = tensor_ref(graph, plan, stage.tensors[-1], True, outside, prefix)
    ready = [f"FG_TENSOR_READY({layers[-1].index}, {stage.tensors[-1]}, {out_ref.expression}, {out_ref.nbytes});"]
    return StageCode(layers[0].index, layers[-1].index, frozenset(s.index for s in layers),
                     [c_comment_safe(line) for line in description], params, struct, entries, body, ready)
