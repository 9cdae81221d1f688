"""Armv7-M variants (Cortex-M3 and up, no DSP needed; a DSP or MVE variant that fits is chosen first): the 3x3
depthwise convolution channel by channel on a stack plane of int8 rows (runtime_c/kernels/
depthwise_conv2d_3x3_planar_armv7m.c). It reads the portable call's tables as they are (the filter as [channel][9 taps],
the folded bias) and derives each channel's output-stage constants at run time: no constants of its own, so no flash
beyond its code (~2.2 KB, which replaces the portable kernel's ~3.7 KB where every depthwise layer takes it).
"""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import ARMV7M
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant, renamed

REQUIRES = frozenset({ARMV7M})
PITCH = 64  # FG_DW_PLANAR_PITCH: the columns of a ring row


def planar_fits(params: dict) -> bool:
    """A plane row holds the padded input row and every window of an output row (whole pairs of them); the kernel walks
    an image taller than wide along its columns."""
    axis = "h" if params["out_h"] > params["out_w"] else "w"
    pad = params["pad_top"] if axis == "h" else params["pad_left"]
    last = 2 * -(-params[f"out_{axis}"] // 2) - 1
    return pad + params[f"in_{axis}"] <= PITCH and params[f"stride_{axis}"] * last + 3 <= PITCH


def _planar_depthwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if (p["dilation_h"], p["dilation_w"]) != (1, 1) or p["stride_w"] not in (1, 2) or p["stride_h"] not in (1, 2):
        return None
    return renamed(call, PLANAR_DEPTHWISE) if planar_fits(p) else None


PLANAR_DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_planar_s8", "fg_depthwise_conv2d_3x3_s8", REQUIRES,
                           _planar_depthwise, "channel by channel on a ring of int8 rows, the nine weights in "
                           "registers along a row, output stage with the channel's constants hoisted")

VARIANTS = [PLANAR_DEPTHWISE]
