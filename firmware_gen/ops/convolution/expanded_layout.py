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
"""

from __future__ import annotations

import dataclasses

from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.blocking import PAIRED_GROUP
from firmware_gen.ops.convolution.fused_output import COMPACT_FUSED

EXPANDED = "fg_conv2d_pointwise_expanded_fused_s8"
DESCRIPTION = ("blocked weights expanded to paired words at run time, output stage fused: 1 pixel x 8 channels, two "
               "per SMLAL")
BUFFERED_OUT = 16  # FG_EXPAND_BUFFERED_OUT: up to this many channels, a pass's outputs wait on the stack


def expandable(call: KernelCall) -> bool:
    """A compact fused 1x1 call of whole groups of eight channels."""
    return call.function == COMPACT_FUSED and call.params["out_c"] % PAIRED_GROUP == 0


def keeps_overlap(call: KernelCall) -> bool:
    """Whether the expanded variant of `call` honours its operator's overlap allowance (ops/overlap.py): its outputs
    stored only once the pass's last input is read."""
    return call.params["out_c"] <= BUFFERED_OUT


def expansion_candidates(graph: Graph, calls: dict[int, KernelCall],
                         pool_bytes: int) -> tuple[frozenset[int], frozenset[int]]:
    """The operator indices whose calls the expanded variant serves: those that keep their overlap allowance, and
    those that need none and whose input and output fit side by side in `pool_bytes` (the pool planned with every
    allowance)."""
    served = [index for index, call in calls.items() if expandable(call)]
    keeping = frozenset(index for index in served if keeps_overlap(calls[index]))
    side_by_side = frozenset(index for index in served if index not in keeping and
                             graph.tensors[calls[index].inputs[0]].nbytes +
                             graph.tensors[calls[index].outputs[0]].nbytes <= pool_bytes)
    return keeping, side_by_side


def expand(calls: dict[int, KernelCall], chosen: frozenset[int]) -> dict[int, KernelCall]:
    """`calls` with the `chosen` compact fused calls on the expanded variant (same tables and parameters: the int8
    shifts at `packed` included)."""
    return {index: dataclasses.replace(call, function=EXPANDED, variant=DESCRIPTION) if index in chosen else call
            for index, call in calls.items()}
