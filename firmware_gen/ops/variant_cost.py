"""ESTIMATED cycles of a layer's candidate kernel calls, to weigh them against the flash they take
(ops/variant_choice.py).

A candidate's estimate is its layer's portable estimate times the candidate function's SPEED (its cycles over the
portable call's on the same layer). Both come from the cycle estimate of firmware_gen/target (QEMU's trace and the
Cortex-M3 timing model, docs/cycle_model.md) of every step of the seven shared models on mps2_an385, built once with
the compact layouts and once with every wide one, so that each layer ran both ways:
- the portable estimate: cycles per MAC, per output element, and per output element and window row (the blocked
  walk's per-row overhead); fitted over the compact builds' convolutions and fully connected layers (within 10 %
  of each but micro_speech's two: its 10-row one-channel window 26 % under, its 4-output layer half, a call's
  set-up not being modelled);
- SPEED: the median over the layers each function ran (the wide layouts' figures below). The ISA variants were not
  run beside a portable call on one core; each class counts as VARIANT_SPEED of the portable call it replaces, the
  variant modules' promise (a variant is only offered where it is the faster) and roughly what the anchors' ratios
  show.
Blind spots: a layer's shape moves a function's speed (the short-row kernel: 0.43-0.72); flash wait states are not
charged (the QEMU boards have none; bench/flash_reads.py measures them on the published boards' memory).
"""

from __future__ import annotations

from firmware_gen.isa import ARMV6M, ARMV7M, DSP, MVE, Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.expanded_layout import EXPANDED, expandable
from firmware_gen.ops.convolution.fused_output import COMPACT_FUSED, with_floor_twins

# The portable call's ESTIMATED cycles: (per MAC, per output element, per output element and window row).
PORTABLE = {"conv": (3.57, 47.5, 19.3), "fully_connected": (7.43, 83.3, 0.0)}
PORTABLE_FUNCTIONS = {"fg_conv2d_pointwise_s8": "conv", "fg_conv2d_folded_s8": "conv",
                      "fg_depthwise_conv2d_one_channel_s8": "conv", "fg_fully_connected_folded_s8": "fully_connected"}
# Any other operator: its calls are weighed only against their own ISA variants.
OTHER = (1.0, 10.0, 0.0)
# Cycles over the portable call's on the same layer (mps2_an385, M3 timing): the median of the shared models' layers.
SPEED = {
    COMPACT_FUSED: 0.97,
    EXPANDED: 0.85,
    "fg_conv2d_pointwise_paired_s8": 0.95,
    "fg_conv2d_pointwise_fused_s8": 0.83,
    "fg_conv2d_pointwise_fused_floor_s8": 0.81,
    "fg_conv2d_folded_paired_s8": 0.95,
    "fg_depthwise_conv2d_one_channel_paired_s8": 0.95,
    "fg_conv2d_folded_fused_s8": 0.83,
    "fg_depthwise_conv2d_one_channel_fused_s8": 0.83,
    "fg_conv2d_folded_fused_floor_s8": 0.81,
    "fg_depthwise_conv2d_one_channel_fused_floor_s8": 0.81,
    "fg_conv2d_folded_gathered_s8": 0.72,
    "fg_conv2d_folded_gathered_floor_s8": 0.7,
    "fg_conv2d_folded_rows_s8": 0.66,
    "fg_conv2d_folded_rows_floor_s8": 0.56,
    # Armv6-M's two outputs per MULS against its compact variant (VARIANT_SPEED), on mps2_an385_armv6m: ad01_int8's
    # fully connected layers 3.46 -> 1.99 instructions per MAC, pretrainedResnet_quant's convolutions about 0.73x.
    "fg_fully_connected_paired_armv6m": 0.46,
    "fg_conv2d_paired_armv6m": 0.58,
    # Winograd's 3x3 convolution (ops/variants/dsp_winograd.py, 16/9 of the band's table) against the band's class
    # (VARIANT_SPEED): pretrainedResnet_quant's four layers 0.60-0.85 of the band's ESTIMATED cycles on the M33 and M4.
    "fg_conv2d_3x3_winograd_dsp": 0.21,
}
# The one-batch fully connected call on the paired weights: as the fused 1x1 convolution (ad01_int8's layers, 0.40),
# or on its own paired loop (same function as the blocked call, its params naming the paired table).
FULLY_CONNECTED_AS_POINTWISE = 0.4
FULLY_CONNECTED_PAIRED = 0.7
AS_POINTWISE = with_floor_twins({"fg_conv2d_pointwise_fused_s8"})  # pointwise_fully_connected's functions
# An ISA variant against the portable call it replaces, by the class its variant needs.
VARIANT_SPEED = {MVE: 0.1, DSP: 0.3, ARMV7M: 0.8, ARMV6M: 0.8}
# A variant's label (KernelCall.isa) -> the feature of its class; any other: Armv7-M.
_CLASS = {Isa(frozenset({MVE, DSP})).name: MVE, Isa(frozenset({DSP})).name: DSP, Isa(frozenset({ARMV6M})).name: ARMV6M}


def portable_cycles(call: KernelCall, macs: int, outputs: int) -> float:
    """The ESTIMATED cycles of a layer's portable call of `macs` MACs and `outputs` output elements."""
    per_mac, per_output, per_row = PORTABLE.get(PORTABLE_FUNCTIONS.get(call.function, ""), OTHER)
    rows = call.params.get("filter_h", 1)
    return per_mac * macs + (per_output + per_row * (rows if isinstance(rows, int) else 1)) * outputs


def speed(call: KernelCall, portable: KernelCall) -> float:
    """The candidate's cycles over the portable call's on its layer."""
    if call is portable:
        return 1.0
    if portable.function == "fg_fully_connected_folded_s8" and call.function in AS_POINTWISE:
        return FULLY_CONNECTED_AS_POINTWISE
    if call.function == portable.function:
        return FULLY_CONNECTED_PAIRED if "paired_weights" in call.params else 1.0
    if call.function == COMPACT_FUSED and expandable(call):
        return SPEED[EXPANDED]  # run expanded where the memory plan allows (driver/compiler.py)
    return SPEED.get(call.function) or VARIANT_SPEED[_isa(call)]


def _isa(call: KernelCall) -> str:
    return _CLASS.get(call.isa, ARMV7M)


def estimated_cycles(call: KernelCall, macs: int, outputs: int, portable: KernelCall) -> float:
    """The ESTIMATED cycles of one inference's `call`, a candidate of the layer of `macs` MACs and `outputs` output
    elements whose portable call is `portable`."""
    return portable_cycles(portable, macs, outputs) * speed(call, portable)
