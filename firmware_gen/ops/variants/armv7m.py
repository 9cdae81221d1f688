"""Armv7-M variants (Cortex-M3 and up, no DSP needed; a DSP or MVE variant that fits is chosen first): the 3x3
depthwise convolution channel by channel on a stack plane of int8 rows (runtime_c/kernels/
depthwise_conv2d_3x3_planar_armv7m.c). It reads the portable call's tables as they are (the filter as [channel][9 taps],
the folded bias) and derives each channel's output-stage constants at run time: no constants of its own, so no flash
beyond its code (~2.2 KB, which replaces the portable kernel's ~3.7 KB where every depthwise layer takes it). The same
kernel runs 4-bit weights, the filter repacked channel-major in as many nibbles.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import ARMV7M
from firmware_gen.nibbles import pack_int4
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, renamed, whole_input_pixels

REQUIRES = frozenset({ARMV7M})
PITCH = 64  # FG_DW_PLANAR_PITCH: the columns of a ring row


def planar_fits(params: dict) -> bool:
    """A plane row holds the padded input row and every window of an output row (whole pairs of them); the kernel walks
    an image taller than wide along its columns."""
    axis = "h" if params["out_h"] > params["out_w"] else "w"
    pad = params["pad_top"] if axis == "h" else params["pad_left"]
    last = 2 * -(-params[f"out_{axis}"] // 2) - 1
    return pad + params[f"in_{axis}"] <= PITCH and params[f"stride_{axis}"] * last + 3 <= PITCH


def planar_walks(p: dict) -> bool:
    """No dilation, strides of 1 or 2, and the plane holds the rows (planar_fits)."""
    if (p["dilation_h"], p["dilation_w"]) != (1, 1) or p["stride_w"] not in (1, 2) or p["stride_h"] not in (1, 2):
        return False
    return planar_fits(p)


def _planar_depthwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    return renamed(call, PLANAR_DEPTHWISE) if planar_walks(call.params) else None


PLANAR_DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_planar_s8", "fg_depthwise_conv2d_3x3_s8", REQUIRES,
                           _planar_depthwise, "channel by channel on a ring of int8 rows, the nine weights in "
                           "registers along a row, output stage with the channel's constants hoisted",
                           overlap_granule=whole_input_pixels)



def _planar_depthwise_4bit(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """fg_depthwise_conv2d_s4 of a 3x3 filter, depth multiplier 1, as the planar kernel takes it: the filter as
    [channel][9 taps] in TFLite's nibble packing (ceil(9 channels / 2) bytes, as TFLite's own), instead of the portable
    kernel's tap-major packing."""
    p = call.params
    if (p["filter_h"], p["filter_w"], p["depth_multiplier"]) != (3, 3, 1) or not planar_walks(p):
        return None
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int64).reshape(9, -1).T
    table = ConstTable("packed_channel_taps", "uint8_t", np.frombuffer(pack_int4(taps), np.uint8))
    tables = [t for t in call.tables if t.suffix != p["packed"].suffix]
    return renamed(call, PLANAR_DEPTHWISE_4BIT, params={**p, "packed": TableRef(table.suffix)},
                   tables=[*tables, table])


PLANAR_DEPTHWISE_4BIT = Variant("fg_depthwise_conv2d_3x3_planar_s4", "fg_depthwise_conv2d_s4", REQUIRES,
                                _planar_depthwise_4bit, "4-bit weights: channel by channel on a ring of int8 rows, "
                                "each channel's nine nibbles unpacked once into registers",
                                overlap_granule=whole_input_pixels)

VARIANTS = [PLANAR_DEPTHWISE, PLANAR_DEPTHWISE_4BIT]
