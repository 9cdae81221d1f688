"""Which kernels run on a patch (ops/patch_stage.py has the geometry, ops/patch_graph.py the stages a graph offers).

A patch is the same kernel called on a dense region buffer with the patch's in_h/in_w/out_h/out_w and pads. That is
only right for a kernel that reads its geometry at run time and keeps no constant laid out at generation time for
the whole tensor's width. `PATCH_GEOMETRY` lists the kernels read for this (portable C, Armv7-M, DSP), each with the
precondition its variant put on the geometry, checked again for every patch. A stage layer whose variant is not
listed (the Armv6-M and MVE variants, whose ring pitch or blocking is chosen for the whole width) runs its portable
call instead; an operator whose portable kernel is not listed either ends the stage.
"""

from __future__ import annotations

from collections.abc import Callable

from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.fused_output import with_floor_twins
from firmware_gen.ops.patch_stage import WINDOWED, LayerPatch, PatchStage, Window
from firmware_gen.ops.row_stage import RowStage
from firmware_gen.ops.support.broadcast import MEMBERS, broadcast_loops
from firmware_gen.ops.variants.armv7m import planar_fits
from firmware_gen.ops.variants.dsp_taps import TAPS_COLUMNS, taps_columns
from firmware_gen.ops.variants.dsp_taps_s2 import taps_s2_width
from firmware_gen.ops.variants.dsp_window import (
    CONV_RING_COLUMNS,
    DW_RING_COLUMNS,
    DW_ROW_MAX,
    planar_row_len,
    ring_columns,
)


def _any(params: dict) -> bool:
    return True


# The Armv7-M planar 3x3 depthwise gathers each channel's rows into a plane and sets up its constants per channel and
# call: on a patch thinner than this that is also narrower than the layer (a row stage's calls in column strips) that
# costs more than it saves, and the portable kernel, reading the interleaved rows in place, is cheaper (vww_96_int8 to
# operator 7 on mps2_an385: in two column strips +19.8 % -> +11.2 %; a 3x3 grid of 16-row patches +28.6 % with the
# plane, +30.7 % without). Calls of the layer's whole width (one strip) keep the plane: there the portable kernel
# saves less (+7.0 % -> +5.2 %) than its code and tables cost in flash (vww on qemu_cortex_m3: 4,184 B, which its
# 256 KiB no longer holds), and the chooser does not weigh flash.
PLANAR_MIN_SIDE = 5


def _planar_patch(params: dict) -> bool:
    thin = min(params["out_h"], params["out_w"]) < PLANAR_MIN_SIDE
    return planar_fits(params) and not (thin and params["out_w"] < params["layer_out_w"])


PATCH_GEOMETRY: dict[str, Callable[[dict], bool]] = {
    **dict.fromkeys(with_floor_twins({
        "fg_conv2d_s8", "fg_conv2d_folded_s8", "fg_conv2d_pointwise_s8", "fg_conv2d_folded_paired_s8",
        "fg_conv2d_pointwise_paired_s8", "fg_conv2d_folded_fused_s8", "fg_conv2d_folded_gathered_s8",
        "fg_conv2d_pointwise_fused_s8", "fg_conv2d_folded_rows_s8", "fg_conv2d_pointwise_blocked_fused_s8",
        "fg_conv2d_pointwise_expanded_fused_s8", "fg_depthwise_conv2d_s8", "fg_depthwise_conv2d_3x3_s8",
        "fg_depthwise_conv2d_one_channel_s8", "fg_depthwise_conv2d_one_channel_paired_s8",
        "fg_depthwise_conv2d_one_channel_fused_s8", "fg_avg_pool2d_s8", "fg_max_pool2d_s8", "fg_avg_pool2d_dsp",
        "fg_conv2d_folded_dsp", "fg_conv2d_pointwise_dsp", "fg_conv2d_folded_staged_dsp",
        "fg_conv2d_pointwise_staged_dsp", "fg_depthwise_conv2d_3x3_dsp"}), _any),
    "fg_depthwise_conv2d_3x3_planar_s8": _planar_patch,
    "fg_depthwise_conv2d_planar_dsp": lambda p: planar_row_len(p) <= DW_ROW_MAX,
    "fg_depthwise_conv2d_3x3_ring_dsp": lambda p: ring_columns(p) <= DW_RING_COLUMNS,
    "fg_depthwise_conv2d_3x3_taps_dsp": lambda p: taps_columns(p) <= TAPS_COLUMNS,
    "fg_depthwise_conv2d_3x3_taps_s2_dsp": taps_s2_width,
    "fg_conv2d_3x3_ring_dsp": lambda p: ring_columns(p) <= CONV_RING_COLUMNS,
}


# Kernels over a run of elements (params.size): the int8 activations and QUANTIZE, each a table lookup.
ELEMENTWISE = frozenset({"fg_lookup_s8"})
# ADD of two tensors of one shape (no broadcast), over the elements params.shape names: portable and DSP.
ADDS = frozenset({"fg_add_s8", "fg_add_dsp"})


def patch_params(call: KernelCall, patch: LayerPatch, channels: int) -> dict:
    """The params fields of `call` that differ on `patch` (its output has `channels` channels)."""
    if call.function in ELEMENTWISE:
        return {"size": patch.output.pixels * channels}
    if call.function in ADDS:
        shape = (1, patch.output.rows.size, patch.output.cols.size, channels)
        return {"shape": broadcast_loops(shape, shape, shape).as_param()}
    return patch.params()


def patch_fields(call: KernelCall, patch: LayerPatch, channels: int) -> dict[str, int]:
    """`patch_params` as one int per C lvalue of the params struct (`shape.dims[5]`), for code that sets a call's
    geometry on a copy of the layer's params."""
    fields = {}
    for name, value in patch_params(call, patch, channels).items():
        if name == "shape" and call.function in ADDS:
            fields.update({f"shape.{member}[{i}]": v for member, values in zip(MEMBERS, value, strict=True)
                           for i, v in enumerate(values)})
        else:
            fields[name] = int(value)
    return fields


def takes_patches(call: KernelCall, stage: PatchStage | RowStage, layer: int) -> bool:
    """Whether `call` computes every patch of `layer` right."""
    if call.function in ELEMENTWISE | ADDS:
        return True
    accepts = PATCH_GEOMETRY.get(call.function)
    layer_width = {"layer_out_w": call.params.get("out_w")}
    return accepts is not None and all(accepts({**call.params, **p.params(), **layer_width})
                                       for p in stage.layer_patches(layer))


def layer_window(graph: Graph, calls: dict[int, KernelCall], position: int) -> Window:
    op = graph.operators[position]
    call = calls[op.index]
    if op.opcode in WINDOWED:
        return Window.of(call.params)
    return Window.elementwise(*graph.tensors[op.outputs[0]].shape[1:3])


def stage_calls(stage: PatchStage | RowStage, calls: dict[int, KernelCall], portable: dict[int, KernelCall],
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


