"""The C of a stage run in row buffers (ops/row_stage.py): a const table of kernel calls and one loop over it.

The table is small per call, as it is in flash (a stage of two column strips has a few hundred calls): a call is
two narrow integers, which of the stage's distinct calls it runs (`fg_stage_kinds`) and its first output row. A
distinct call names its layer (a case of the loop's switch), its geometry (the fields of the layer's params that
differ between its calls, set on a copy of the layer's params), the byte offset of the rows each input is read from
in its buffer, of the rows it writes in its output buffer, and the rows that buffer keeps (moved to its start by
fg_region_keep before the write). The stage's input is read in place (in column strips: its rows gathered into
`patch input`) and its output written in place (one row of a strip is contiguous): those offsets are the call's row
times a pitch of the layer, plus the distinct call's offset, so calls a row apart share one. Each field takes the
narrowest C integer type that holds its values.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.backend.c_literals import c_comment_safe
from firmware_gen.backend.legalize import Step, tensor_ref
from firmware_gen.backend.patch_emit import StageCode, c_value
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.patch_kernels import patch_fields, patch_params
from firmware_gen.ops.row_stage import RowCall, RowStage
from firmware_gen.planner import MemoryPlan

_GATHER = ("gather_offset", "gather_stride", "gather_rows", "gather_bytes")  # an fg_region, narrow
_C_TYPES = (("uint8_t", 0, 0xFF), ("int8_t", -0x80, 0x7F), ("uint16_t", 0, 0xFFFF), ("int16_t", -0x8000, 0x7FFF))


@dataclass
class RowStageCode(StageCode):
    kind_struct: list[str] | None = None  # the distinct call's fields, as C lines
    kinds: list[str] | None = None  # one initializer per distinct call
    template: str = "row_stage.c.j2"


def c_int_type(values: list[int]) -> str:
    """The narrowest C integer type that holds every value."""
    low, high = min(values, default=0), max(values, default=0)
    return next((name for name, lo, hi in _C_TYPES if lo <= low and high <= hi), "int32_t")


def _pitches(graph: Graph, stage: RowStage, layer: int) -> tuple[int, int]:
    """The bytes the in-place read of the stage's input and the in-place write of its output advance per output row of
    `layer` (0 where the layer does neither)."""
    source, result = graph.tensors[stage.input].shape, graph.tensors[stage.tensors[-1]].shape
    read = stage.windows[layer].stride[0] * source[2] * source[3] if stage.input in stage.reads(layer) else 0
    return read, result[2] * result[3] if layer == len(stage.positions) - 1 else 0


def _fields(graph: Graph, stage: RowStage, call: RowCall, geometry: dict[str, int]) -> dict[str, int | tuple]:
    """One call's distinct-call fields: its byte offsets are rows times the row bytes of its strip's buffers, those
    in the stage's input and output less the call's row times the layer's pitch; in column strips, the region its
    gathered read copies (the stage's input rows, or a narrower rectangle of a buffer)."""
    patch, gathered, row = call.patch, _gathered_slot(stage, call.layer), call.patch.output.rows.start
    read_pitch, write_pitch = _pitches(graph, stage, call.layer)
    reads, gather = [], (0, 0, 0, 0)
    for slot, (buffer_row, tensor, rect, (column, width)) in enumerate(zip(
            call.reads, stage.reads(call.layer), (patch.input, *patch.extra), call.buffers, strict=True)):
        channels = graph.tensors[tensor].shape[-1]
        if tensor == stage.input:
            row_bytes = graph.tensors[tensor].shape[2] * channels
            start = rect.rows.start * row_bytes + rect.cols.start * channels - row * read_pitch
        else:
            row_bytes, start = width * channels, (buffer_row * width + column) * channels
        reads.append(0 if slot == gathered else start)
        if slot == gathered:
            gather = (start, row_bytes, rect.rows.size, rect.cols.size * channels)
    reads += [0] * (max(len(r) for r in stage.sources) - len(reads))
    result = graph.tensors[stage.tensors[call.layer]]
    row_bytes = patch.output.cols.size * result.shape[-1]
    if call.layer == len(stage.positions) - 1:  # in place in the whole output
        write = (call.write * result.shape[2] + patch.output.cols.start) * result.shape[-1] - row * write_pitch
    else:
        write = call.write * row_bytes
    return {"layer": call.layer, **geometry, "read": tuple(reads), "write": write,
            "keep_from": call.keep[0] * row_bytes, "keep_bytes": call.keep[1] * row_bytes,
            **(dict(zip(_GATHER, gather, strict=True)) if stage.strips > 1 or stage.gathered else {})}


def _gathered_slot(stage: RowStage, layer: int) -> int | None:
    """The input slot `layer` reads from a gathered copy (in column strips: the stage's input, or a narrower
    rectangle of a buffer), if any."""
    if stage.strips > 1 and stage.input in stage.reads(layer):
        return stage.reads(layer).index(stage.input)
    return next((slot for lay, slot in stage.gathered if lay == layer), None)


def _geometry(graph: Graph, stage: RowStage, layers: list[Step]) -> tuple[list[dict[str, int]], dict[int, list[str]]]:
    """Per call, the geometry fields of its layer's params that differ between some layer's calls (under their C
    names: `shape.dims[5]` as shape_dims5); per layer, the params lvalues its calls set."""
    per_call = [patch_fields(layers[c.layer].call, c.patch, graph.tensors[stage.tensors[c.layer]].shape[-1])
                for c in stage.calls]
    varying: dict[int, list[str]] = {}
    for layer in range(len(layers)):
        values = [fields for call, fields in zip(stage.calls, per_call, strict=True) if call.layer == layer]
        varying[layer] = [name for name in values[0] if any(v[name] != values[0][name] for v in values)]
    named = {name for names in varying.values() for name in names}  # a layer's constant ones shown, not set
    return [{_member(name): value for name, value in fields.items() if name in named} for fields in per_call], varying


def _member(lvalue: str) -> str:
    return lvalue.replace(".", "_").replace("[", "").replace("]", "")


def _kinds(graph: Graph, stage: RowStage, layers: list[Step]) -> tuple[list[dict], list[int], dict[int, list[str]]]:
    """The distinct calls (each a dict of every field, in one order), the index of each call's, and per layer the
    params lvalues its calls set."""
    geometry, varying = _geometry(graph, stage, layers)
    names = list(dict.fromkeys(name for fields in geometry for name in fields))
    index: dict[tuple, int] = {}
    kinds, order = [], []
    for call, fields in zip(stage.calls, geometry, strict=True):
        kind = _fields(graph, stage, call, {name: fields.get(name, 0) for name in names})
        key = tuple(kind.items())
        if key not in index:
            index[key] = len(kinds)
            kinds.append(kind)
        order.append(index[key])
    return kinds, order, varying


def _kind_table(kinds: list[dict], layers: list[Step]) -> tuple[list[str], list[str]]:
    """The distinct call's struct fields, each in its narrowest type, the wider first (no padding between them), and
    one initializer per distinct call."""
    types = {name: c_int_type([v for kind in kinds for v in (kind[name] if isinstance(value, tuple) else
                                                             (kind[name],))])
             for name, value in kinds[0].items()}
    names = sorted(types, key=lambda name: -_C_BYTES[types[name]])
    struct = [f"{types[name]} {name}{f'[{len(kinds[0][name])}]' if isinstance(kinds[0][name], tuple) else ''};"
              f"{_FIELD_NOTES.get(name, '')}" for name in names]
    steps = [layers[kind["layer"]] for kind in kinds]
    entries = [f"{{ {', '.join(c_value(kind[name]) for name in names)} }}, /* {number}: step {step.index} "
               f"({step.op.opcode}) */" for number, (kind, step) in enumerate(zip(kinds, steps, strict=True))]
    return struct, entries


_C_BYTES = {"uint8_t": 1, "int8_t": 1, "uint16_t": 2, "int16_t": 2, "int32_t": 4}
_FIELD_NOTES = {
    "layer": "  /* the case of the switch: the step it runs */",
    "read": "  /* per input: the byte its rows start at in its buffer (the stage's input: less row times its pitch) */",
    "write": "  /* the byte the computed rows start at in the output buffer (the stage's output: less row times its "
             "pitch) */",
    "keep_from": "  /* the rows the output buffer keeps, moved to its start before the write */",
    "gather_stride": "  /* gather_*: the rectangle copied for the read the switch gathers (an fg_region; its offset "
                     "less row times the pitch) */",
    "in_h": "  /* in_h, in_w, ...: the geometry the call sets on a copy of its layer's params */",
    "size": "  /* the elements the call sets on a copy of its layer's params */",
}


def _case(graph: Graph, plan: MemoryPlan, stage: RowStage, layer: int, step: Step, varying: list[str], buffers,
          prefix: str, outside: dict[int, str]) -> list[str]:
    """One case of the loop's switch: the call's geometry set on a copy of the layer's params, its kept rows moved,
    then its kernel on this call's rows."""
    read_pitch, write_pitch = _pitches(graph, stage, layer)
    body = [f"case {layer}: {{ /* step {step.index}: {step.op.opcode}, t{step.outputs[0].index} */",
            f"    {step.call.params_type} params = {step.params_name};",
            *(f"    params.{lvalue} = call->{_member(lvalue)};" for lvalue in varying)]
    count = len(stage.reads(layer))
    inputs = [f"{ref.expression} + call->read[{slot}]" + (f" + row * {read_pitch}" if tensor == stage.input else "")
              for slot, (ref, tensor) in enumerate(zip(step.inputs[:count], stage.reads(layer), strict=True))]
    slot = _gathered_slot(stage, layer)
    if slot is not None:
        copy = buffers.patch_input if stage.reads(layer)[slot] == stage.input else buffers.gathers[layer, slot]
        target = tensor_ref(buffers.graph, plan, copy, True, outside, prefix).expression
        pitch = f" + row * {read_pitch}" if stage.reads(layer)[slot] == stage.input else ""
        body += [f"    const fg_region gather = {{ call->gather_offset{pitch}, call->gather_stride, call->gather_rows, "
                 "call->gather_bytes };",
                 f"    fg_region_gather(&gather, {step.inputs[slot].expression}, {target});"]
        inputs[slot] = tensor_ref(buffers.graph, plan, copy, False, outside, prefix).expression
    inputs += [ref.expression for ref in step.inputs[count:]]
    output = step.outputs[0].expression
    if layer < len(stage.positions) - 1:
        body.append(f"    fg_region_keep({output}, call->keep_from, call->keep_bytes);")
    write = f"{output} + call->write" + (f" + row * {write_pitch}" if write_pitch else "")
    outputs = [write, *(ref.expression for ref in step.outputs[1:])]
    return [*body, f"    {step.call.function}(&params, {', '.join(inputs + outputs)});", "    break;", "}"]


def _base_params(graph: Graph, stage: RowStage, step: Step, layer: int, fields: list[tuple[str, str]]) -> list:
    """The layer's params with its first call's geometry (each call sets its own on a copy)."""
    channels = graph.tensors[stage.tensors[layer]].shape[-1]
    geometry = patch_params(step.call, stage.layer_patches(layer)[0], channels)
    return [(step.params_name, [(f, c_value(geometry[f]) if f in geometry else v) for f, v in fields])]


def row_stage_code(graph: Graph, plan: MemoryPlan, steps: list[Step], stage_plan, step_params: dict, prefix: str,
                   outside: dict[int, str]) -> StageCode:
    """The C of `stage_plan` (its stage a RowStage) as backend.patch_emit.StageCode."""
    stage: RowStage = stage_plan.stage
    layers = [steps[p] for p in stage.positions]
    params = {step.index: _base_params(graph, stage, step, layer, step_params[step.index])
              for layer, step in enumerate(layers)}
    kinds, order, varying = _kinds(graph, stage, layers)
    kind_struct, kind_entries = _kind_table(kinds, layers)
    rows = [call.patch.output.rows.start for call in stage.calls]
    struct = [f"{c_int_type(order)} kind;  /* its distinct call in fg_stage_kinds */",
              f"{c_int_type(rows)} row;  /* its first output row */"]
    entries = [f"{{ {kind}, {call.patch.output.rows.start} }}, /* step {layers[call.layer].index}: rows "
               f"{call.patch.output.rows.start}..{call.patch.output.rows.stop - 1}, columns "
               f"{call.patch.output.cols.start}..{call.patch.output.cols.stop - 1} */"
               for kind, call in zip(order, stage.calls, strict=True)]
    body = ["switch (call->layer) {"]
    for layer, step in enumerate(layers):
        body += _case(graph, plan, stage, layer, step, varying[layer], stage_plan.buffers, prefix, outside)
    body += ["default:", "    break;", "}"]
    result = graph.tensors[stage.tensors[-1]]
    moved = sum(m * graph.tensors[t].shape[-1] for m, t in zip(stage.moved_pixels(), stage.tensors, strict=True))
    strips = f" in {stage.strips} column strips (their column halos recomputed)" if stage.strips > 1 else ""
    description = [f"Row stage: steps {layers[0].index}..{layers[-1].index} run on rows, top to bottom{strips}, "
                   f"t{stage.tensors[-1]} ({'x'.join(map(str, result.shape[1:]))}) one row at a time in "
                   f"{len(stage.calls)} kernel calls, {len(kinds)} of them distinct.",
                   "Each intermediate tensor lives in a buffer of only the rows its readers still need (the row "
                   f"halos kept, not recomputed; {moved:,} bytes moved over the stage).",
                   "fg_stage_calls lists the calls in order: which distinct call (fg_stage_kinds: its layer, the "
                   "geometry it sets on the layer's params, its buffer offsets) and its first row."]
    out_ref = tensor_ref(graph, plan, stage.tensors[-1], True, outside, prefix)
    ready = [f"FG_TENSOR_READY({layers[-1].index}, {stage.tensors[-1]}, {out_ref.expression}, {out_ref.nbytes});"]
    loop = ["for (int32_t p = 0; p < FG_STAGE_CALLS; ++p) {",
            "    const fg_stage_kind *call = &fg_stage_kinds[fg_stage_calls[p].kind];",
            "    const int32_t row = fg_stage_calls[p].row;"]
    return RowStageCode(layers[0].index, layers[-1].index, frozenset(s.index for s in layers),
                        [c_comment_safe(line) for line in description], params, struct, entries, body, ready,
                        loop=loop, kind_struct=kind_struct, kinds=kind_entries)
