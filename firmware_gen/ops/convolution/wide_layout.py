"""The wide (paired) weight layout of the blocked convolutions, a candidate of each such layer where the board's
flash is known (ops/variant_choice.py chooses).

fg_conv2d_pointwise_s8, fg_conv2d_folded_s8 and fg_depthwise_conv2d_one_channel_s8 read their filter either in the
compact blocked layout (int8, fg_dot2x4_s8: 11 instructions per 8 products) or in the paired one (two channels per
int32 word, fg_dot1x8_paired_s8: 7 instructions per 8 products, and fewer per-call costs), which takes twice the
bytes (ops/convolution/blocking.py). The chooser weighs a layer's estimated cycles saved against its extra bytes,
within the flash left once CODE_RESERVE is counted, each wide kernel's code (WIDE_CODE) counted with the first layer
that takes it. The linker's fit check still has the last word.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import ConstTable, KernelCall
from firmware_gen.ops.convolution.blocking import GROUP, PAIRED_GROUP, paired_filter
from firmware_gen.ops.convolution.fused_output import fusable, fused_call

# The blocked function -> its paired twin (runtime_c/kernels/convolution/conv2d_paired.c).
PAIRED = {"fg_conv2d_pointwise_s8": "fg_conv2d_pointwise_paired_s8",
          "fg_conv2d_folded_s8": "fg_conv2d_folded_paired_s8",
          "fg_depthwise_conv2d_one_channel_s8": "fg_depthwise_conv2d_one_channel_paired_s8"}
# Flash kept for everything but the model's constants and the wide kernels (WIDE_CODE): code, runtime, libc,
# parameter structs. person_detect on qemu_cortex_m3 with its compact layouts: 14.4 KB in its firmware, 20.0 KB in
# the step-by-step one of validate --layers (packed calls, the step session), which must fit too.
CODE_RESERVE = 21 * 1024
# The code a wide kernel links in (arm-none-eabi-gcc 12.2, Cortex-M3, -Os: the kernel, its out-of-line window group
# and sums), counted once per family: the one-channel depthwise runs the folded kernel, the unfused paired kernels
# share the paired window walk; a floor twin (ops/convolution/fused_output.py) is a family of its own.
WIDE_CODE = {"fg_conv2d_folded_fused_s8": ("folded_fused", 1900),
             "fg_conv2d_folded_gathered_s8": ("folded_gathered", 3200),
             "fg_depthwise_conv2d_one_channel_fused_s8": ("folded_fused", 1900),
             "fg_conv2d_folded_rows_s8": ("folded_rows", 1900),
             "fg_conv2d_folded_rows_floor_s8": ("folded_rows_floor", 1800),
             "fg_conv2d_pointwise_fused_s8": ("pointwise_fused", 2350),
             "fg_conv2d_pointwise_paired_s8": ("paired_window", 800),
             "fg_conv2d_folded_paired_s8": ("paired_window", 800),
             "fg_depthwise_conv2d_one_channel_paired_s8": ("paired_window", 800),
             "fg_conv2d_folded_fused_floor_s8": ("folded_fused_floor", 1800),
             "fg_conv2d_folded_gathered_floor_s8": ("folded_gathered_floor", 2900),
             "fg_depthwise_conv2d_one_channel_fused_floor_s8": ("folded_fused_floor", 2800),
             "fg_conv2d_pointwise_fused_floor_s8": ("pointwise_fused_floor", 2050)}
DESCRIPTION = "paired weights (2x flash): 1 pixel x 8 channels, two per SMLAL"


def flash_for_constants(constants: int) -> int:
    """The flash (Isa.flash_bytes) within which the lowering lays the constants out in at most `constants` bytes:
    what a build that overflowed the flash is lowered again with, CODE_RESERVE being a guess."""
    return CODE_RESERVE + constants


def constant_bytes(graph: Graph, calls: dict[int, KernelCall]) -> int:
    """The bytes of every call's tables and of the constant tensors the calls read."""
    tables = sum(table.values.nbytes for call in calls.values() for table in call.tables)
    read = {i for call in calls.values() for i in call.inputs if i >= 0}
    tensors = sum(graph.tensors[i].data.nbytes for i in read if graph.tensors[i].is_constant)
    return tables + tensors


def _table(call: KernelCall, suffix: str) -> ConstTable:
    return next(t for t in call.tables if t.suffix == suffix)


def paired_call(call: KernelCall) -> KernelCall:
    """The blocked call reading the paired layout: its filter recovered from the blocked table, its bias padded to
    whole groups of eight channels."""
    _, rows, run, *_ = call.params["blocked"]
    blocked = _table(call, "blocked_weights").values.reshape(-1, rows * run, GROUP)
    taps = blocked.transpose(0, 2, 1).reshape(-1, rows, run)  # [channels padded to groups of 4, rows, run]
    table, initializer = paired_filter(taps)
    bias = _table(call, "folded_bias")
    padded = np.zeros(-(-bias.values.size // PAIRED_GROUP) * PAIRED_GROUP, np.int32)
    padded[:bias.values.size] = bias.values
    tables = [t for t in call.tables if t.suffix not in ("blocked_weights", "folded_bias")]
    wide = dataclasses.replace(call, function=PAIRED[call.function],
                               params={**call.params, "blocked": initializer}, variant=DESCRIPTION,
                               tables=[*tables, ConstTable(bias.suffix, bias.c_type, padded), table])
    return fused_call(wide) if fusable(wide) else wide


def output_pixels(graph: Graph, call: KernelCall) -> int:
    shape = graph.tensors[call.outputs[0]].shape
    return int(np.prod(shape[:-1]))
