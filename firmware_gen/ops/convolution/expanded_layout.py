"""The compact 1x1 convolution run on the paired loop without the paired weights in flash: its weights expanded at
run time (fg_conv2d_pointwise_expanded_fused_s8, runtime_c/kernels/convolution/conv2d_pointwise_expanded_fused.c).

Where the board's flash has no room for a layer's paired weights (ops/convolution/wide_layout.py), the compact fused
kernel runs
11 instructions per 8 products (fg/support/blocked_run.h). The expanded variant turns each group of eight channels'
compact
weights into the paired words on the stack, 64 taps at a time (~2 instructions per weight, once per pass of up to
36 pixels), and runs the paired loop (7 per 8 products) over the pass's pixels, their 64-bit sums kept meanwhile; the
channel constants of the fused output stage are derived once per group. vww_96_int8's 6x6 layers on qemu_cortex_m3:
955k -> 713k instructions each (633k with the paired weights in flash on mps2_an385).

It stores each group's outputs for all of a pass's pixels before the next group reads them, so its output may not
overlap its input, except in a layer of at most 16 channels, whose pass outputs wait on the stack until the pass's
last input is read (the overlap allowance kept: vww's 48x48x16 layer, at the pool's peak). The compiler takes it for
those, and for the others where planning them without their overlap allowance costs no pool bytes
(driver/compiler.py); elsewhere the compact fused kernel stays.

A convolution with 4-bit weights on the Armv7-M variant (fg_conv2d_s4_armv7m, 10 instructions per 8 products) runs
the same passes with its channel-pair words expanded instead (EOR + 2 SBFX + ADD a paired word; its parameters and
tables as they are: no flash of its own), where every channel's output stage is the fast one: a 1x1 layer at stride
1 from its input as it is (fg_conv2d_pointwise_expanded_fused_s4), any other window with dilation_w 1 from a slab of
the input rows of a few output rows copied to the stack with the zero point in the padding
(fg_conv2d_expanded_fused_s4). Both keep every overlap allowance (the 1x1 one copies a pass's inputs or keeps its
outputs on the stack, whichever is smaller; the slab is a copy). Their stack (a 4 KB slab or kept bytes, 64 pixels a
pass at 64 channels; the words of windows up to 288 taps expanded at once, 4.5 KB, a 3x3 window over 32 channels;
the sums of a deeper window's pass, 1 KB) is 10.3 KB, so only boards with a 16 KB stack take them. mps2_an385,
instructions per MAC against the fast int8 kernels (bench/int4_shapes.py): 1x1 1.05-1.08x, 3x3 0.93-1.03x, from
1.37-1.69x.
"""

from __future__ import annotations

import dataclasses

from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.blocking import PAIRED_GROUP
from firmware_gen.ops.convolution.fused_output import COMPACT_FUSED

EXPANDED = "fg_conv2d_pointwise_expanded_fused_s8"
ARMV7M_4BIT = "fg_conv2d_s4_armv7m"
EXPANDED_4BIT = "fg_conv2d_pointwise_expanded_fused_s4"
WINDOW_4BIT = "fg_conv2d_expanded_fused_s4"
DESCRIPTION_4BIT = ("4-bit channel-pair words expanded to paired words at run time, output stage fused: 1 pixel x 8 "
                    "channels, two per SMLAL")
MAX_DEPTH_4BIT = 2047  # each low field, 2^21 + a sum of in_c products of at most 1024, stays in [0, 2^22)
KEPT_4BIT, EXPAND_TAPS_4BIT, PASS_PIXELS_4BIT = 4096, 288, 32  # FG_S4_EXPAND_KEPT, _TAPS, _PIXELS
STACK_4BIT = 16384  # the board stack that takes the 4-bit variants' 10.3 KB (boards with less keep the other)
DESCRIPTION = ("blocked weights expanded to paired words at run time, output stage fused: 1 pixel x 8 channels, two "
               "per SMLAL")
BUFFERED_OUT = 16  # FG_EXPAND_BUFFERED_OUT: up to this many channels, a pass's outputs wait on the stack


def _served_4bit(call: KernelCall) -> bool:
    """A call of the Armv7-M 4-bit variant whose layout says every channel's stage is the fast one (its first word),
    with the whole int8 clamp and windows of at most MAX_DEPTH_4BIT taps."""
    p = call.params
    if call.function != ARMV7M_4BIT:
        return False
    words = next(t.values for t in call.tables if t.suffix == p["packed"].suffix)
    taps = p["filter_h"] * p["filter_w"] * p["in_c"]
    return int(words[0]) == 1 and tuple(p["requant"][2:4]) == (-128, 127) and taps <= MAX_DEPTH_4BIT


def _pointwise(p: dict) -> bool:
    return (p["filter_h"], p["filter_w"], p["stride_h"], p["stride_w"]) == (1, 1, 1, 1)


def _window_fits(p: dict) -> bool:
    """fg_conv2d_expanded_fused_s4's preconditions: dilation_w 1, one output row's input rows in its slab, and a
    window in one expansion or a window row in one with an output row's pixels in a pass."""
    run = p["filter_w"] * p["in_c"]
    line = ((p["out_w"] - 1) * p["stride_w"] + p["filter_w"]) * p["in_c"]
    span = (p["filter_h"] - 1) * p["dilation_h"] + 1
    whole = p["filter_h"] * run <= EXPAND_TAPS_4BIT or (run <= EXPAND_TAPS_4BIT and p["out_w"] <= PASS_PIXELS_4BIT)
    return p["dilation_w"] == 1 and span * line <= KEPT_4BIT and whole


def expandable(call: KernelCall, stack_bytes: int = 0) -> bool:
    """A compact fused 1x1 call of whole groups of eight channels, or a call of the Armv7-M 4-bit variant (a 1x1
    at stride 1, or a window fg_conv2d_expanded_fused_s4 takes) on a board with a stack of at least STACK_4BIT
    bytes."""
    if call.function == COMPACT_FUSED:
        return call.params["out_c"] % PAIRED_GROUP == 0
    p = call.params
    return stack_bytes >= STACK_4BIT and _served_4bit(call) and (_pointwise(p) or _window_fits(p))


def keeps_overlap(call: KernelCall) -> bool:
    """Whether the expanded variant of `call` honours its operator's overlap allowance (ops/overlap.py): its outputs
    stored only once the pass's last input is read; the 4-bit one's always, its pass's inputs copied or its outputs
    kept)."""
    return call.function == ARMV7M_4BIT or call.params["out_c"] <= BUFFERED_OUT


def expansion_candidates(graph: Graph, calls: dict[int, KernelCall], pool_bytes: int,
                         stack_bytes: int = 0) -> tuple[frozenset[int], frozenset[int]]:
    """The operator indices whose calls the expanded variant serves: those that keep their overlap allowance, and
    those that need none and whose input and output fit side by side in `pool_bytes` (the pool planned with every
    allowance)."""
    served = [index for index, call in calls.items() if expandable(call, stack_bytes)]
    keeping = frozenset(index for index in served if keeps_overlap(calls[index]))
    side_by_side = frozenset(index for index in served if index not in keeping and
                             graph.tensors[calls[index].inputs[0]].nbytes +
                             graph.tensors[calls[index].outputs[0]].nbytes <= pool_bytes)
    return keeping, side_by_side


def expand(calls: dict[int, KernelCall], chosen: frozenset[int]) -> dict[int, KernelCall]:
    """`calls` with the `chosen` calls on their expanded variant (same tables and parameters: the int8 shifts, or
    the 4-bit layout, at `packed` included)."""
    def expanded(call: KernelCall) -> KernelCall:
        if call.function == ARMV7M_4BIT:
            function = EXPANDED_4BIT if _pointwise(call.params) else WINDOW_4BIT
            return dataclasses.replace(call, function=function, variant=DESCRIPTION_4BIT)
        return dataclasses.replace(call, function=EXPANDED, variant=DESCRIPTION)
    return {index: expanded(call) if index in chosen else call for index, call in calls.items()}
