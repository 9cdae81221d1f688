"""The C of a patch stage (ops/patch_stage.py): a const table of patches and one loop over it.

Each layer of the stage gets one params struct per distinct patch geometry (the whole layer's params with the
patch's in_h/in_w/out_h/out_w and pads); each patch's table entry names its input and output regions (fg_region,
runtime_c/include/fg/region.h) and, per layer, the params it runs with. The loop reads a patch's input region (in
place when the patches are whole rows, else gathered into `patch input`), calls each layer's kernel on the patch
buffers the plan placed, and writes the result into the stage's output (in place, or scattered from `patch
output`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_gen.backend.c_literals import c_comment_safe
from firmware_gen.backend.legalize import Step, tensor_ref
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.patch_buffers import StageBuffers
from firmware_gen.ops.patch_kernels import patch_params
from firmware_gen.ops.patch_stage import LayerPatch, PatchStage, Rect, Span
from firmware_gen.planner import MemoryPlan

_PATCH_LOOP = ("for (int32_t p = 0; p < FG_STAGE_PATCHES; ++p) {",
               "    const fg_stage_patch *patch = &fg_stage_patches[p];")


@dataclass
class StageCode:
    first: int
    last: int
    steps: frozenset[int]
    description: list[str]  # comment lines
    params: dict[int, list[tuple[str, list[tuple[str, str]]]]]  # step -> [(params name, [(field, value)])]
    struct: list[str]  # the patch struct's fields, as C lines
    entries: list[str]  # one initializer per patch
    body: list[str]  # the loop's statements
    ready: list[str] = field(default_factory=list)
    loop: list[str] = field(default_factory=lambda: list(_PATCH_LOOP))  # the loop's first lines
    template: str = "patch_stage.c.j2"  # the tables' template


def region_initializer(rect: Rect, width: int, channels: int) -> str:
    offset = (rect.rows.start * width + rect.cols.start) * channels
    return f"{{ {offset}, {width * channels}, {rect.rows.size}, {rect.cols.size * channels} }}"


def c_value(value: int | tuple) -> str:
    """A geometry field as a C initializer (a tuple in braces, as codegen writes params)."""
    return "{ " + ", ".join(c_value(v) for v in value) + " }" if isinstance(value, tuple) else str(int(value))


def layer_params(step: Step, fields: list[tuple[str, str]], patches: list[LayerPatch], channels: int,
                 suffix: str = "patch") -> tuple[list, list[str]]:
    """The distinct params structs of one layer, and the one each patch (or call) runs with."""
    variants: dict[tuple, str] = {}
    structs, names = [], []
    for patch in patches:
        geometry = patch_params(step.call, patch, channels)
        key = tuple(sorted(geometry.items()))
        if key not in variants:
            variants[key] = f"{step.params_name}_{suffix}{len(variants)}"
            structs.append((variants[key], [(f, c_value(geometry[f]) if f in geometry else v) for f, v in fields]))
        names.append(variants[key])
    return structs, names


def stage_code(graph: Graph, plan: MemoryPlan, steps: list[Step], stage_plan, step_params: dict, prefix: str,
               outside: dict[int, str]) -> StageCode:
    """The C of `stage_plan` (a driver.patch_choice.StagePlan) for model.c's template."""
    stage = stage_plan.stage
    layers = [steps[p] for p in stage.positions]
    params, names = {}, []
    for layer, step in enumerate(layers):
        channels = graph.tensors[step.outputs[0].index].shape[-1]
        params[step.index], chosen = layer_params(step, step_params[step.index], [p[layer] for p in stage.patches],
                                                   channels)
        names.append(chosen)
    source, result = graph.tensors[stage.input], graph.tensors[stage.tensors[-1]]
    inner = _inner_reads(graph, stage)
    entries = []
    for number, patch in enumerate(stage.patches):
        out = patch[-1].output
        per_layer = ", ".join(f".step{s.index} = &{names[i][number]}" for i, s in enumerate(layers))
        regions = "".join(f".{name} = {region(patch)}, " for name, _, region in inner)
        output = region_initializer(out, result.shape[2], result.shape[3])
        entries.append(f"{{ .input = {region_initializer(patch[0].input, source.shape[2], source.shape[3])}, "
                       f".output = {output}, {regions}{per_layer} }}, "
                       f"/* patch {number}: rows {out.rows.start}..{out.rows.stop - 1}, "
                       f"columns {out.cols.start}..{out.cols.stop - 1} */")
    struct = ["fg_region input;  /* the region of the stage's input this patch reads */",
              "fg_region output;  /* where its result goes in the stage's output */"]
    struct += [f"fg_region {name};  /* the rectangle step {name[4:].split('_')[0]} reads of t{tensor}'s patch buffer */"
               for name, tensor, _ in inner]
    struct += [f"const {s.call.params_type} *step{s.index};" for s in layers]
    body = _body(plan, layers, stage, stage_plan.buffers, prefix, outside)
    rows, cols = stage.grid
    description = [f"Patch stage: steps {layers[0].index}..{layers[-1].index} run patch by patch, "
                   f"t{stage.tensors[-1]} ({'x'.join(map(str, result.shape[1:]))}) in a {rows}x{cols} grid of "
                   f"{len(stage.patches)} patches, each patch's input region traced back through every layer.",
                   f"The stage's intermediate tensors exist one patch at a time in the patch buffers; their halos are "
                   f"recomputed (estimated +{stage_plan.extra_fraction:.1%} instructions)."]
    out_ref = tensor_ref(graph, plan, stage.tensors[-1], True, outside, prefix)
    ready = [f"FG_TENSOR_READY({layers[-1].index}, {stage.tensors[-1]}, {out_ref.expression}, {out_ref.nbytes});"]
    return StageCode(layers[0].index, layers[-1].index, frozenset(s.index for s in layers),
                     [c_comment_safe(line) for line in description], params, struct, entries, body, ready)


def _inner_reads(graph: Graph, stage: PatchStage) -> list[tuple[str, int, Callable]]:
    """(field name, tensor, patch -> its fg_region initializer) of each read of a rectangle of a patch buffer that is
    not the whole buffer: relative to the buffer (the region its producer computed for the patch)."""
    reads = []
    for layer, position in enumerate(stage.positions):
        for slot, tensor in enumerate(stage.reads(layer)):
            if tensor == stage.input or stage.read_mode(layer, slot) == "direct":
                continue
            channels = graph.tensors[tensor].shape[-1]

            def region(patch, layer=layer, slot=slot, tensor=tensor, channels=channels) -> str:
                need, box = stage.read_region(patch, layer, slot), stage.box_of(patch, tensor)
                shifted = Rect(Span(need.rows.start - box.rows.start, need.rows.stop - box.rows.start),
                               Span(need.cols.start - box.cols.start, need.cols.stop - box.cols.start))
                return region_initializer(shifted, box.cols.size, channels)
            reads.append((f"step{position}_in{slot}", tensor, region))
    return reads


def _read(stage: PatchStage, buffers: StageBuffers, layer: int, slot: int, ref: str, temp: str,
          lines: list[str]) -> str:
    """The expression `layer` reads input `slot` (a stage tensor at `ref`) from; a gather appended to lines."""
    if stage.read_mode(layer, slot) == "direct":
        return ref
    name = f"patch->step{stage.positions[layer]}_in{slot}"
    if stage.read_mode(layer, slot) == "rows":
        return f"{ref} + {name}.offset"
    lines.append(f"fg_region_gather(&{name}, {ref}, {temp});")
    return temp.replace("(int8_t *)", "(const int8_t *)", 1)


def _body(plan: MemoryPlan, layers: list[Step], stage: PatchStage, buffers: StageBuffers, prefix: str,
          outside: dict[int, str]) -> list[str]:
    first, last = layers[0], layers[-1]
    source = first.inputs[0]
    lines = []
    if buffers.patch_input is not None:
        region = tensor_ref(buffers.graph, plan, buffers.patch_input, True, outside, prefix)
        lines.append(f"fg_region_gather(&patch->input, {source.expression}, {region.expression});")
        read = tensor_ref(buffers.graph, plan, buffers.patch_input, False, outside, prefix).expression
    else:
        read = f"{source.expression} + patch->input.offset"
    result = last.outputs[0]
    if buffers.patch_output is not None:
        write = tensor_ref(buffers.graph, plan, buffers.patch_output, True, outside, prefix).expression
    else:
        write = f"{result.expression} + patch->output.offset"
    for layer, step in enumerate(layers):
        slots = len(stage.reads(layer))
        inputs = [read if step is first and slot == 0 else
                  _read(stage, buffers, layer, slot, ref.expression,
                        tensor_ref(buffers.graph, plan, buffers.gathers.get((layer, slot), -1), True, outside,
                                   prefix).expression, lines)
                  for slot, ref in enumerate(step.inputs[:slots])]
        inputs += [ref.expression for ref in step.inputs[slots:]]
        outputs = [write if step is last else ref.expression for ref in step.outputs]
        lines.append(f"{step.call.function}(patch->step{step.index}, {', '.join(inputs + outputs)});"
                     f" /* step {step.index}: {step.op.opcode}, t{step.outputs[0].index} */")
    if buffers.patch_output is not None:
        lines.append(f"fg_region_scatter(&patch->output, {write}, {result.expression});")
    return lines
