"""Which kernels run on a patch, and the stages a graph offers (ops/patch_stage.py has the geometry).

A patch is the same kernel called on a dense region buffer with the patch's in_h/in_w/out_h/out_w and pads. That is
only right for a kernel that reads its geometry at run time and keeps no constant laid out at generation time for
the whole tensor's width. `PATCH_GEOMETRY` lists the kernels read for this (portable C, Armv7-M, DSP), each with the
precondition its variant put on the geometry, checked again for every patch. A stage layer whose variant is not
listed (the Armv6-M and MVE variants, whose ring pitch or blocking is chosen for the whole width) runs its portable
call instead; an operator whose portable kernel is not listed either ends the stage.
"""

from __future__ import annotations

from collections.abc import Callable

from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.patch_stage import LayerPatch, PatchStage, Window, chain_end_reason, make_stage, used_later
from firmware_gen.ops.variants.armv7m import planar_fits
from firmware_gen.ops.variants.dsp_window import DW_ROW_MAX, planar_row_len


def _any(params: dict) -> bool:
    return True


PATCH_GEOMETRY: dict[str, Callable[[dict], bool]] = {
    **dict.fromkeys(("fg_conv2d_s8", "fg_conv2d_folded_s8", "fg_conv2d_pointwise_s8", "fg_conv2d_folded_paired_s8",
                     "fg_conv2d_pointwise_paired_s8", "fg_conv2d_folded_fused_s8", "fg_conv2d_pointwise_fused_s8",
                     "fg_conv2d_pointwise_blocked_fused_s8", "fg_conv2d_pointwise_expanded_fused_s8",
                     "fg_depthwise_conv2d_s8", "fg_depthwise_conv2d_3x3_s8", "fg_depthwise_conv2d_one_channel_s8",
                     "fg_depthwise_conv2d_one_channel_paired_s8", "fg_depthwise_conv2d_one_channel_fused_s8",
                     "fg_avg_pool2d_s8", "fg_max_pool2d_s8", "fg_avg_pool2d_dsp", "fg_conv2d_folded_dsp",
                     "fg_conv2d_pointwise_dsp", "fg_depthwise_conv2d_3x3_dsp"), _any),
    "fg_depthwise_conv2d_3x3_planar_s8": planar_fits,
    "fg_depthwise_conv2d_planar_dsp": lambda p: planar_row_len(p) <= DW_ROW_MAX,
}


# Kernels over a run of elements (params.size): the int8 activations and QUANTIZE, each a table lookup.
ELEMENTWISE = frozenset({"fg_lookup_s8"})


def patch_params(call: KernelCall, patch: LayerPatch, channels: int) -> dict[str, int]:
    """The params fields of `call` that differ on `patch` (its output has `channels` channels)."""
    if call.function in ELEMENTWISE:
        return {"size": patch.output.pixels * channels}
    return patch.params()


def takes_patches(call: KernelCall, stage: PatchStage, layer: int) -> bool:
    """Whether `call` computes every patch of `layer` right."""
    if call.function in ELEMENTWISE:
        return True
    accepts = PATCH_GEOMETRY.get(call.function)
    return accepts is not None and all(accepts({**call.params, **p[layer].params()}) for p in stage.patches)


def layer_window(graph: Graph, calls: dict[int, KernelCall], position: int) -> Window:
    op = graph.operators[position]
    call = calls[op.index]
    if call.function in ELEMENTWISE:
        return Window.elementwise(*graph.tensors[op.outputs[0]].shape[1:3])
    return Window.of(call.params)


def _elementwise(graph: Graph, calls: dict[int, KernelCall], position: int) -> bool:
    call = calls.get(graph.operators[position].index)
    return call is not None and call.function in ELEMENTWISE


def stage_calls(stage: PatchStage, calls: dict[int, KernelCall], portable: dict[int, KernelCall],
                graph: Graph) -> dict[int, KernelCall] | None:
    """Operator index -> the call each layer of the stage runs on patches (its variant, else its portable call), or
    None when some layer has neither."""
    chosen = {}
    for layer, position in enumerate(stage.positions):
        index = graph.operators[position].index
        call = next((c for c in (calls[index], portable[index]) if takes_patches(c, stage, layer)), None)
        if call is None:
            return None
        chosen[index] = call
    return chosen


def stage_prefix(graph: Graph, calls: dict[int, KernelCall]) -> list[int]:
    """The positions of the longest chain from a graph input that can run on patches: each operator windowed, int8,
    reading the previous one's output, every tensor but the last read by the next operator only."""
    positions: list[int] = []
    if not graph.operators or graph.operators[0].inputs[0] not in graph.inputs:
        return positions
    previous = graph.operators[0].inputs[0]
    for position, op in enumerate(graph.operators):
        if op.index not in calls or chain_end_reason(graph, position, previous, _elementwise(graph, calls, position)):
            break
        positions.append(position)
        previous = op.outputs[0]
        if used_later(graph, previous, position + 1) or len(op.outputs) != 1:
            break
    return positions


def build_stage(graph: Graph, calls: dict[int, KernelCall], last: int, grid: tuple[int, int]) -> PatchStage:
    """The stage ending at position `last` with `grid`; UserError naming the operator when it cannot be one."""
    previous = graph.operators[0].inputs[0] if graph.operators else -1
    if previous not in graph.inputs:
        raise UserError("a patch stage starts at a model input; the first operator does not read one")
    for position in range(last + 1):
        reason = chain_end_reason(graph, position, previous, _elementwise(graph, calls, position))
        if reason is None and position < last and used_later(graph, graph.operators[position].outputs[0],
                                                             position + 1):
            op = graph.operators[position]
            reason = f"operator {op.index} ({op.opcode}) has an output read after the next operator"
        if reason is not None:
            raise UserError(f"cannot end a patch stage at operator {graph.operators[last].index}: {reason}")
        previous = graph.operators[position].outputs[0]
    positions = tuple(range(last + 1))
    windows = [layer_window(graph, calls, p) for p in positions]
    return make_stage(positions, windows, grid, graph.operators[0].inputs[0],
                      tuple(graph.operators[p].outputs[0] for p in positions))
