"""DSP-extension variant of the 4-bit-weight 3x3 DEPTHWISE_CONV_2D (Cortex-M4, M7, M33; the Helium one is chosen first
on an M55): the int8 ring kernel (fg_depthwise_conv2d_3x3_ring_dsp, dsp_window.py), which copies each group of four
channels' constants and weight words to the stack before it runs the group over the whole image, here unpacks the
group's 36 nibbles into those words instead: nine taps per channel per image, nothing per pixel.

Table: per group of four channels the ring's 16 constant words (the doubled biases, each channel's multiplier, offset
and shift), then the filter as [channel][9 taps] in TFLite's nibble packing (ceil(9 channels / 2) bytes, TFLite's own
count; a group's channels are 18 whole bytes). An output that overlaps the input other than a whole number of pixels
before it runs the Armv7-M planar kernel on those nibbles (its pixel-order path, armv7m.py), which is why the layer
must suit that kernel too.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.nibbles import pack_int4
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, renamed, whole_input_pixels
from firmware_gen.ops.variants.armv7m import planar_walks
from firmware_gen.ops.variants.dsp import REQUIRES, doubled_constants
from firmware_gen.ops.variants.dsp_window import ring_fits, ring_group_constants


def _ring_depthwise_4bit(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if (p["filter_h"], p["filter_w"], p["depth_multiplier"]) != (3, 3, 1) or not ring_fits(p) or not planar_walks(p):
        return None
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8).reshape(9, -1).T  # [channel, 9]
    constants, narrow = doubled_constants(graph, op, call, taps)
    if not narrow.all():
        return None  # the ring's assembly has no wide channel's output stage
    groups = ring_group_constants(constants)
    nibbles = np.frombuffer(pack_int4(taps), np.uint8)
    words = np.pad(nibbles, (0, -len(nibbles) % 4)).view("<i4")
    table = ConstTable("ring_packed", "int32_t", np.concatenate([groups.ravel(), words]).astype(np.int32))
    kept = [t for t in call.tables if t.suffix != p["packed"].suffix]
    return renamed(call, RING_DEPTHWISE_4BIT, params={**p, "packed": TableRef(table.suffix)}, tables=[*kept, table])


RING_DEPTHWISE_4BIT = Variant("fg_depthwise_conv2d_3x3_ring_s4_dsp", "fg_depthwise_conv2d_s4", REQUIRES,
                              _ring_depthwise_4bit, "4-bit weights: the int8 ring kernel, each group of four "
                              "channels' nibbles unpacked once per image into its doubled int16 weight pairs",
                              overlap_granule=whole_input_pixels)

VARIANTS = [RING_DEPTHWISE_4BIT]
