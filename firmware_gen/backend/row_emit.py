"""The C of a stage run in row buffers (ops/row_stage.py): a const table of kernel calls and one loop over it.

Each entry names the layer (a case of the loop's switch), the params of its geometry (one struct per distinct
geometry of a layer), the byte offset of the rows each input is read from in its buffer, of the rows it writes in
its output buffer, and the rows that buffer keeps (moved to its start by fg_region_keep before the write). The
stage's input is read in place and its output written in place.
"""

from __future__ import annotations

from firmware_gen.backend.c_literals import c_comment_safe
from firmware_gen.backend.legalize import Step, tensor_ref
from firmware_gen.backend.patch_emit import StageCode, layer_params
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.row_stage import RowStage
from firmware_gen.planner import MemoryPlan


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
    row_bytes = {t: graph.tensors[t].shape[2] * graph.tensors[t].shape[3] for t in (stage.input, *stage.tensors)}
    entries = []
    for call in stage.calls:
        reads = [row * row_bytes[t] for row, t in zip(call.reads, stage.reads(call.layer), strict=True)]
        reads += [0] * (slots - len(reads))
        out = row_bytes[stage.tensors[call.layer]]
        rows = call.patch.output.rows
        entries.append(f"{{ &{next(names[call.layer])}, {{ {', '.join(map(str, reads))} }}, {call.write * out}, "
                       f"{call.keep[0] * out}, {call.keep[1] * out}, {call.layer} }}, "
                       f"/* step {layers[call.layer].index}: rows {rows.start}..{rows.stop - 1} */")
    struct = ["const void *params;  /* the layer's params for this call's rows */",
              f"int32_t read[{slots}];  /* per input: the byte its rows start at in its buffer */",
              "int32_t write;  /* the byte the computed rows start at in the output buffer */",
              "int32_t keep_from;  /* the rows the output buffer keeps, moved to its start before the write */",
              "int32_t keep_bytes;",
              "uint8_t layer;"]
    body = ["switch (patch->layer) {"]
    for layer, step in enumerate(layers):
        body += [f"case {layer}: /* step {step.index}: {step.op.opcode}, t{step.outputs[0].index} */"]
        inputs = [f"{ref.expression} + patch->read[{slot}]" for slot, ref in
                  enumerate(step.inputs[:len(stage.reads(layer))])]
        inputs += [ref.expression for ref in step.inputs[len(stage.reads(layer)):]]
        output = step.outputs[0].expression
        if layer < len(layers) - 1:
            body.append(f"    fg_region_keep({output}, patch->keep_from, patch->keep_bytes);")
        outputs = [f"{output} + patch->write", *(ref.expression for ref in step.outputs[1:])]
        body += [f"    {step.call.function}((const {step.call.params_type} *)patch->params, "
                 f"{', '.join(inputs + outputs)});", "    break;"]
    body += ["default:", "    break;", "}"]
    result = graph.tensors[stage.tensors[-1]]
    moved = sum(m * r for m, r in zip(stage.moved_rows(), (row_bytes[t] for t in stage.tensors), strict=True))
    description = [f"Row stage: steps {layers[0].index}..{layers[-1].index} run on full-width rows, top to bottom, "
                   f"t{stage.tensors[-1]} ({'x'.join(map(str, result.shape[1:]))}) one row at a time in "
                   f"{len(stage.calls)} kernel calls.",
                   "Each intermediate tensor lives in a buffer of only the rows its readers still need (the halos "
                   f"kept, not recomputed; {moved:,} bytes moved over the stage)."]
    out_ref = tensor_ref(graph, plan, stage.tensors[-1], True, outside, prefix)
    ready = [f"FG_TENSOR_READY({layers[-1].index}, {stage.tensors[-1]}, {out_ref.expression}, {out_ref.nbytes});"]
    return StageCode(layers[0].index, layers[-1].index, frozenset(s.index for s in layers),
                     [c_comment_safe(line) for line in description], params, struct, entries, body, ready)
