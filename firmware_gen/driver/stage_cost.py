"""The estimate of the extra instructions a patch stage costs (driver/patch_choice.py chooses by it): with halos
recomputed, the MACs and elements the patches compute again and a cost per call; with row buffers, a cost per call,
per byte moved and per element read again, and the column halos of their strips. An estimate, not an instruction
count (bench/patches.py measures those on QEMU).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.fused_output import with_floor_twins
from firmware_gen.ops.patch_stage import PatchStage
from firmware_gen.ops.row_stage import RowStage

# The estimate of a layer's instructions: its MACs plus ELEMENT_COST per element it reads and writes (the output
# stage, rings and row set-ups; with MACs alone vww_96_int8's 3x3 grid to operator 7 was estimated at +14.6 % and
# measured at +28.6 % on mps2_an385). A patch also pays a fixed CALL_COST per layer call.
ELEMENT_COST = 20
CALL_COST = 3000
# Row buffers: per call, per byte moved or gathered, per input element read again (a 3x3 window over one row reads
# three). A call's set-up depends on its kernel: ROW_CALL_COST for most (fitted before LIGHT_CALLS to vww_96_int8's
# stage to operator 7 measured on mps2_an386: +11.3 % in one strip, +26.2 % in two), LIGHT_CHANNEL_COST per output
# channel for the kernels of MobileNet-like stages whose set-up is small and per channel (the 3x3 kernels copy their
# weights and extend their window rows group by group at every call, the padding's zero point only into its
# columns; the Armv7-M depthwise runs its portable kernel there, ops/patch_kernels.py). Fitted to the strips measured
# on mps2_an386 (the dearer board for them), estimate against count: vww_96_int8 to operator 7 in two strips +15.5 %
# (+14.6 %), two strips 2 rows a call +13.4 % (+13.2 %), one strip +6.9 % (+4.8 %); MobileNetV2 0.35 at 96x96 to
# operator 14 in two strips 2 rows a call +15.6 % (+17.0 %), to operator 10 in two strips +14.7 % (+14.8 %). The
# compact fused 1x1 kernel (boards whose flash has no room for paired weights: qemu_cortex_m3) has the paired one's
# set-up, none per call (an odd pixel computed twice).
ROW_CALL_COST = 6500
LIGHT_CHANNEL_COST = 150
LIGHT_CALLS = with_floor_twins({
    "fg_conv2d_3x3_ring_dsp", "fg_depthwise_conv2d_3x3_ring_dsp", "fg_depthwise_conv2d_3x3_taps_dsp",
    "fg_conv2d_pointwise_dsp",
    "fg_depthwise_conv2d_3x3_s8", "fg_conv2d_folded_fused_s8", "fg_conv2d_folded_gathered_s8",
    "fg_conv2d_pointwise_fused_s8", "fg_conv2d_pointwise_blocked_fused_s8", "fg_depthwise_conv2d_one_channel_fused_s8",
    "fg_conv2d_folded_rows_s8"})
MOVE_COST = 1
READ_COST = 4


@dataclass(frozen=True)
class Cost:
    """The estimate of extra work of a stage."""

    extra_macs: int
    fraction: float  # extra estimated instructions / the model's


def _layer_work(macs_per_pixel: float, pixels: int, in_elements: int, out_channels: int) -> float:
    return macs_per_pixel * pixels + ELEMENT_COST * (in_elements + pixels * out_channels)


def model_work(graph: Graph, calls: Mapping[int, KernelCall], op_macs: Mapping[int, int]) -> float:
    return sum(op_macs[op.index] + ELEMENT_COST * (graph.tensors[op.inputs[0]].num_elements +
                                                    graph.tensors[op.outputs[0]].num_elements)
               for op in graph.operators if op.index in calls and op.inputs and op.outputs)


def call_cost(call: KernelCall | None, channels: int) -> int:
    """The estimate of one row call's set-up for the kernel `call` runs (None: not known), `channels` out."""
    return LIGHT_CHANNEL_COST * channels if call is not None and call.function in LIGHT_CALLS else ROW_CALL_COST


def row_cost(graph: Graph, stage: RowStage, op_macs: Mapping[int, int], total_work: float,
             calls: Mapping[int, KernelCall] | None = None) -> Cost:
    """Row buffers recompute only the column halos of their strips: the estimate of extra instructions is those
    MACs and elements, a cost per kernel call past one per layer (by the kernel `calls` gives the layer's operator),
    per byte of the rows kept (moved to the start of their buffers) or gathered, and per input element read
    again."""
    extra_macs, work = 0.0, 0.0
    for layer, (position, window) in enumerate(zip(stage.positions, stage.windows, strict=True)):
        op = graph.operators[position]
        in_c, out_c = graph.tensors[stage.reads(layer)[0]].shape[-1], graph.tensors[op.outputs[0]].shape[-1]
        work += (len(stage.layer_patches(layer)) - 1) * call_cost((calls or {}).get(op.index), out_c)
        patches, pixels = stage.layer_patches(layer), window.out_size[0] * window.out_size[1]
        recomputed = sum(p.output.pixels for p in patches) - pixels
        extra_macs += op_macs[op.index] / pixels * recomputed
        work += ELEMENT_COST * recomputed * out_c + stage.moved_pixels()[layer] * out_c * MOVE_COST
        work += (sum(p.input.pixels for p in patches) - window.in_size[0] * window.in_size[1]) * in_c * READ_COST
    if stage.strips > 1:
        work += sum(p.input.pixels for p in stage.layer_patches(0)) * graph.tensors[stage.input].shape[-1] * MOVE_COST
    for layer, slot in stage.gathered:
        channels = graph.tensors[stage.reads(layer)[slot]].shape[-1]
        work += sum(p.extra[slot - 1].pixels if slot else p.input.pixels for p in stage.layer_patches(layer)) * \
            channels * MOVE_COST
    return Cost(round(extra_macs), (work + extra_macs) / max(total_work, 1.0))


def stage_cost(graph: Graph, stage: PatchStage | RowStage, op_macs: Mapping[int, int], total_work: float,
               calls: Mapping[int, KernelCall] | None = None) -> Cost:
    """The MACs the patches recompute in their halos, and the estimate of extra instructions (`calls`: the kernel
    each layer's operator runs on patches)."""
    if isinstance(stage, RowStage):
        return row_cost(graph, stage, op_macs, total_work, calls)
    extra_macs, extra_work = 0.0, 0.0
    for layer, (position, window) in enumerate(zip(stage.positions, stage.windows, strict=True)):
        op = graph.operators[position]
        in_c, out_c = graph.tensors[op.inputs[0]].shape[-1], graph.tensors[op.outputs[0]].shape[-1]
        pixels = window.out_size[0] * window.out_size[1]
        per_pixel = op_macs[op.index] / pixels
        whole = _layer_work(per_pixel, pixels, window.in_size[0] * window.in_size[1] * in_c, out_c)
        patched = sum(_layer_work(per_pixel, p[layer].output.pixels, p[layer].input.pixels * in_c, out_c) + CALL_COST
                      for p in stage.patches)
        extra_macs += per_pixel * (sum(p[layer].output.pixels for p in stage.patches) - pixels)
        extra_work += patched - whole
    return Cost(round(extra_macs), extra_work / max(total_work, 1.0))
