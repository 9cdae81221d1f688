"""ESTIMATED cycles of a kernel call, to rank a layer's candidates (ops/variant_choice.py).

Per C function: cycles per multiply-accumulate and per output element, fitted by least squares over every step of
the seven shared models to the cycle estimate of firmware_gen/target (QEMU's trace and the core's timing model,
docs/cycle_model.md; the boards' zero-wait-state memory): the portable and Armv7-M kernels on the Cortex-M3
(mps2_an385), the DSP ones on the Cortex-M4 (mps2_an386). The MVE and Armv6-M kernels are ranked only against the
portable calls they replace and the paired layout, which they beat by far; their figures are exact instructions per
MAC and output (mps3_an547, mps2_an385_armv6m), close enough for that. A variant without a figure counts as
UNMEASURED_VARIANT of the figure of the function it replaces (ops/variants offers a variant only where it is the
faster).

Blind spots: one figure per function whatever the layer's shape (a 1x1 layer of few channels pays more per MAC);
flash wait states are not charged (the QEMU boards have none; bench/flash_reads.py measures them on the published
boards' memory).
"""

from __future__ import annotations

from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.expanded_layout import EXPANDED, expandable
from firmware_gen.ops.convolution.fused_output import COMPACT_FUSED

# Function -> (ESTIMATED cycles per MAC, per output element).
PER_MAC_AND_OUTPUT = {
    # Cortex-M3 timing (mps2_an385): the portable blocked kernels and their paired and fused twins.
    "fg_conv2d_pointwise_s8": (3.55, 111.0),  # as the folded kernel: the same blocked walk
    "fg_conv2d_folded_s8": (3.55, 111.0),
    "fg_depthwise_conv2d_one_channel_s8": (7.9, 76.0),
    "fg_fully_connected_folded_s8": (7.25, 109.0),
    "fg_conv2d_pointwise_blocked_fused_s8": (4.21, 0.0),
    EXPANDED: (3.45, 28.0),
    "fg_conv2d_pointwise_paired_s8": (3.02, 100.0),
    "fg_conv2d_pointwise_fused_s8": (3.02, 30.0),
    "fg_conv2d_pointwise_fused_floor_s8": (3.02, 25.0),
    "fg_conv2d_folded_paired_s8": (3.25, 110.0),
    "fg_depthwise_conv2d_one_channel_paired_s8": (3.25, 110.0),
    "fg_conv2d_folded_fused_s8": (3.25, 38.0),
    "fg_depthwise_conv2d_one_channel_fused_s8": (3.25, 38.0),
    "fg_conv2d_folded_fused_floor_s8": (3.2, 30.0),
    "fg_depthwise_conv2d_one_channel_fused_floor_s8": (3.2, 30.0),
    "fg_conv2d_folded_gathered_s8": (3.1, 45.0),
    "fg_conv2d_folded_gathered_floor_s8": (3.09, 41.0),
    "fg_conv2d_folded_rows_s8": (5.0, 5.0),
    "fg_conv2d_folded_rows_floor_s8": (5.0, 3.0),
    "fg_depthwise_conv2d_3x3_planar_s8": (7.4, 1.0),
    "fg_add_s8": (0.0, 13.5),
    "fg_avg_pool2d_s8": (3.9, 149.0),
    # Cortex-M4 timing (mps2_an386): the DSP variants.
    "fg_conv2d_pointwise_dsp": (1.06, 19.0),
    "fg_conv2d_folded_dsp": (1.18, 36.0),
    "fg_conv2d_3x3_ring_dsp": (1.77, 20.0),
    "fg_depthwise_conv2d_3x3_ring_dsp": (4.41, 0.5),
    "fg_fully_connected_dsp": (1.41, 22.0),
    "fg_add_dsp": (0.0, 6.6),
    "fg_avg_pool2d_dsp": (1.34, 50.0),
    # Exact instructions (mps3_an547, mps2_an385_armv6m): the MVE and Armv6-M variants.
    "fg_conv2d_pointwise_s8_mve": (0.11, 4.4),
    "fg_conv2d_columns_s8_mve": (0.11, 7.0),
    "fg_conv2d_folded_s8_mve": (0.11, 15.0),
    "fg_depthwise_conv2d_3x3_s8_mve": (1.02, 0.1),
    "fg_fully_connected_folded_s8_mve": (0.14, 5.6),
    "fg_add_s8_mve": (0.0, 2.0),
    "fg_avg_pool2d_s8_mve": (0.94, 25.0),
    "fg_conv2d_pointwise_armv6m": (3.19, 37.0),
    "fg_conv2d_folded_armv6m": (3.32, 65.0),
    "fg_depthwise_conv2d_armv6m": (7.53, 1.0),
    "fg_fully_connected_armv6m": (3.46, 8.4),
}
# The one-batch fully connected call on the paired weights (fg_dot1x4_paired_s8; the same C function as the blocked
# call, its params naming the paired table): as the paired 1x1 convolution, with the unfused output stage.
PAIRED_FULLY_CONNECTED = (3.3, 109.0)
# A function the table does not name, or a layer whose portable function it does not name: UNMEASURED per MAC and
# per output for the portable call, UNMEASURED_VARIANT of the portable call's figures for the others.
UNMEASURED = (1.0, 10.0)
UNMEASURED_VARIANT = 0.8


def _figures(call: KernelCall) -> tuple[float, float] | None:
    if call.function == "fg_fully_connected_folded_s8" and "paired_weights" in call.params:
        return PAIRED_FULLY_CONNECTED
    if call.function == COMPACT_FUSED and expandable(call):
        return PER_MAC_AND_OUTPUT[EXPANDED]  # run expanded where the plan allows (driver/compiler.py)
    return PER_MAC_AND_OUTPUT.get(call.function)


def estimated_cycles(call: KernelCall, macs: int, outputs: int, portable: KernelCall) -> float:
    """The ESTIMATED cycles of one inference's `call`, of `macs` MACs and `outputs` output elements, a candidate of
    the layer whose portable call is `portable`. Figures are compared only where the portable call has one too."""
    base = _figures(portable)
    figures = _figures(call) if base is not None else None
    if figures is None:
        scale = 1.0 if call is portable else UNMEASURED_VARIANT
        figures = tuple(value * scale for value in base or UNMEASURED)
    per_mac, per_output = figures
    return per_mac * macs + per_output * outputs
