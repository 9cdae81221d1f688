"""The convolutions on the paired weight layout with their output stage fused (fg_conv2d_pointwise_fused_s8,
fg_conv2d_folded_fused_s8 and its one-input-channel depthwise twin; runtime_c/include/fg/conv2d.h, fused_group.h):
the per-channel constants of the fast output stage (fg/support/requantize_fast.h) are laid out here, next to the folded
bias, so that each group of eight sums is requantized straight from registers instead of going through an
accumulator chunk and fg_requantize_pair_s8 (~45 instructions per output on vww's small 1x1 layers, ~13 fused).

Served: the whole int8 clamp and every channel's shift a right shift in [2, 31] (the fast stage's range) or its
multiplier 0; any other layer keeps its paired function. A layer whose output zero point is also -128 (ReLU's) gets
the floor twin of its function (FLOOR), whose constants are a 64-bit start per channel with the bias in it (6
instructions an output instead of 11; fg_floor_channel in fg/support/requantize_fast.h).

A 1x1 convolution left in the compact blocked layout (no flash for the paired one, or compact_weights) on Armv7-M
gets the same output stage without any table of its own: fg_conv2d_pointwise_blocked_fused_s8 derives each
channel's fast constants from its multiplier and its shift, stored as int8 (vww_96_int8 on qemu_cortex_m3: 19.71 ->
17.87 M instructions); ops/convolution/expanded_layout.py runs the same call on the paired loop.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from firmware_gen.isa import ARMV7M, Isa
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.convolution.blocking import GROUP, PAIRED_GROUP
from firmware_gen.ops.support.fixedpoint import multiply_by_quantized_multiplier
from firmware_gen.ops.support.requantize import wrap_int32

# The paired function -> its fused twin.
FUSED = {"fg_conv2d_pointwise_paired_s8": "fg_conv2d_pointwise_fused_s8",
         "fg_conv2d_folded_paired_s8": "fg_conv2d_folded_fused_s8",
         "fg_depthwise_conv2d_one_channel_paired_s8": "fg_depthwise_conv2d_one_channel_fused_s8"}
# The folded kernel (or its one-input-channel depthwise twin) for windows of short rows (rows_serve).
ROWS = "fg_conv2d_folded_rows_s8"
ROW_TAPS = 16  # FG_ROW_TAPS
# The fused function -> its twin on the floor stage.
FLOOR = {"fg_conv2d_pointwise_fused_s8": "fg_conv2d_pointwise_fused_floor_s8",
         "fg_conv2d_folded_fused_s8": "fg_conv2d_folded_fused_floor_s8",
         "fg_conv2d_folded_gathered_s8": "fg_conv2d_folded_gathered_floor_s8",
         "fg_depthwise_conv2d_one_channel_fused_s8": "fg_depthwise_conv2d_one_channel_fused_floor_s8",
         ROWS: "fg_conv2d_folded_rows_floor_s8"}
DESCRIPTION = "paired weights (2x flash), output stage fused: 1 pixel x 8 channels, two per SMLAL"


def with_floor_twins(functions: set[str]) -> frozenset[str]:
    """The functions and the floor twin of each that has one (what holds for a fused kernel holds for its twin)."""
    return frozenset(functions | {FLOOR[f] for f in functions if f in FLOOR})


FOLDED = "fg_conv2d_folded_fused_s8"
GATHERED = "fg_conv2d_folded_gathered_s8"  # the same, each window read as one run of taps (gathered_pays)
# The compact 1x1 convolution and its fused twin (Armv7-M: the fast output stage's SMLAL and SSAT).
COMPACT = "fg_conv2d_pointwise_s8"
COMPACT_FUSED = "fg_conv2d_pointwise_blocked_fused_s8"
COMPACT_REQUIRES = frozenset({ARMV7M})
COMPACT_DESCRIPTION = "blocked weights, output stage fused: 2 pixels x 4 channels, two pixels per SMLAL"
PAIR_MAX_OUT = 256  # FG_PAIR_MAX_OUT
LOW_START = 1 << 21  # FG_LOW_START: where each call's 64-bit sums start


def _table(call: KernelCall, suffix: str) -> np.ndarray:
    return next(t.values for t in call.tables if t.suffix == suffix)


def _per_channel(call: KernelCall, suffix: str, size: int) -> np.ndarray:
    """The call's multipliers or shifts, one per output channel, padded with zeros to `size`."""
    values = np.zeros(size, np.int64)
    values[:call.params["out_c"]] = _table(call, suffix)  # a single entry when every channel shares it
    return values


def _served(call: KernelCall) -> bool:
    """The whole int8 clamp, and every channel's shift a right shift in [2, 31] or its multiplier 0."""
    activation_min, activation_max = call.params["requant"][2:4]
    channels = call.params["out_c"]
    multipliers, right = _per_channel(call, "multipliers", channels), -_per_channel(call, "shifts", channels)
    served = (multipliers == 0) | ((right >= 2) & (right <= 31))
    return (activation_min, activation_max) == (-128, 127) and bool(np.all(served))


def fusable(call: KernelCall) -> bool:
    """A paired call whose output stage the fast path serves for every channel (a channel of multiplier 0
    outputs the zero point whatever its shift: the fast stage with multiplier 0, 2^(r-2) = 1 and r - 1 = 1)."""
    return call.function in FUSED and _served(call)


def _calls(call: KernelCall) -> int:
    """How many calls of the paired loop a window takes (as fg_fused_window_group makes them)."""
    _, rows, run, call_rows, call_taps, *_ = call.params["blocked"]
    return -(-rows // call_rows) if call_taps == run else rows * -(-run // call_taps)


def channel_constants(call: KernelCall) -> np.ndarray:
    """[channels padded to groups of 8, 4] int32 fg_fused_channel rows: the folded bias (less 2^21 per call of the
    paired loop for the even channels, whose low fields carry it), multiplier, 2^(r-2) and r - 1 for the right shift
    r."""
    bias = _table(call, "folded_bias").astype(np.int64)  # padded to whole groups of 8 by the paired call
    calls = _calls(call)
    multipliers = _per_channel(call, "multipliers", bias.size)
    right = np.where(multipliers == 0, 2, -_per_channel(call, "shifts", bias.size))  # padding: multiplier 0
    low_field = np.arange(bias.size) % 2 == 0  # channel 2k: the low field, which carries each call's 2^21
    rows = np.stack([wrap_int32(bias - low_field * calls * LOW_START), multipliers,
                     (np.int64(1) << right) >> 2, right - 1], axis=1)
    return rows.astype(np.int32)


def _channel_weights(call: KernelCall) -> np.ndarray:
    """[channels padded to groups of 8, taps] int64: the weights of the paired table (words w[c] + w[c+1] * 2^22)."""
    words = _table(call, "paired_filter").astype(np.int64).reshape(-1, PAIRED_GROUP // 2)  # [group * taps, pair]
    low = (words + (1 << 21)) % (1 << 22) - (1 << 21)
    pairs = np.stack([low, (words - low) >> 22], axis=-1)  # [group * taps, pair, 2]
    groups = _table(call, "folded_bias").size // PAIRED_GROUP
    return pairs.reshape(groups, -1, PAIRED_GROUP).transpose(0, 2, 1).reshape(groups * PAIRED_GROUP, -1)


def _floor_row(bias: int, multiplier: int, right: int, accumulators: tuple[int, int],
               low_start: int) -> list[int] | None:
    """One channel's fg_floor_channel, or None: its accumulator's smallest and largest values, its field's start
    `low_start` (2^21 per call for the low field, 0 for the high one). A channel whose outputs are all one value q
    (multiplier 0, a constant accumulator, or the largest one rounding to 0) gets the start q * 2^32, multiplier 0."""
    m, r, (smallest, largest) = multiplier, right, accumulators
    constant = None
    if m == 0:
        constant = -128
    elif smallest == largest and r >= 0:
        constant = min(max(multiply_by_quantized_multiplier(largest, m, -r) - 128, -128), 127)  # zero point -128
    elif m > 0 and 0 < r <= 62 and largest * m + (1 << 30) + (1 << (30 + r)) < 1 << (31 + r):
        constant = -128
    if constant is not None:
        return [0, constant, 0, 0]
    if not (1 <= r <= 23 and m > 0):
        return None
    start = (bias - low_start) * m + (1 << 30) + (1 << (30 + r)) - (1 << (38 + r))
    return [start & 0xFFFFFFFF, start >> 32, m, r - 1]


def floor_constants(call: KernelCall) -> np.ndarray | None:
    """[channels padded to groups of 8, 4] int32 fg_floor_channel rows (start low and high words, multiplier, r - 1),
    or None where the floor stage does not serve the fused call: an output zero point other than -128, an accumulator
    or a field that could wrap, or a channel whose right shift r is outside [1, 23] and whose outputs are not all one
    value."""
    if tuple(call.params["requant"][1:4]) != (-128, -128, 127):
        return None
    bias = [int(b) for b in _table(call, "folded_bias")]
    calls, weights = _calls(call), _channel_weights(call)
    multipliers = [int(m) for m in _per_channel(call, "multipliers", len(bias))]
    right = [-int(s) for s in _per_channel(call, "shifts", len(bias))]
    largest = np.where(weights > 0, 127 * weights, -128 * weights).sum(axis=1)
    smallest = np.where(weights > 0, -128 * weights, 127 * weights).sum(axis=1)
    bound = np.abs(weights).sum(axis=1) * 128 + calls * LOW_START
    rows = []
    for c in range(len(bias)):
        extremes = (bias[c] + int(smallest[c]), bias[c] + int(largest[c]))
        row = _floor_row(bias[c], multipliers[c], right[c], extremes, (c % 2 == 0) * calls * LOW_START)
        if row is None or abs(bias[c]) + int(bound[c]) >= 1 << 31:
            return None
        rows.append(row)
    return wrap_int32(np.array(rows, np.int64))


def gathered_pays(call: KernelCall) -> bool:
    """Whether the folded fused kernel's windows are better read as one run of taps each, their rows copied side by
    side once per pixel (fg_conv2d_folded_gathered_s8): the whole window in one call of the paired loop, and its
    groups of eight outputs enough to repay the copy (each group then enters the loop once instead of once per row and
    runs from registers: ~14 instructions a row and ~30 a group saved, for ~3 per word or byte copied and ~4 a row).
    With one group it does not (vww_96_int8's first layer, 27 taps in 3 rows: 3 % slower so); kws_ref_model's first
    layer (10 rows of 4 taps, 8 groups) gains 14 %."""
    _, rows, run, call_rows, call_taps, *_ = call.params["blocked"]
    groups = -(-call.params["out_c"] // PAIRED_GROUP)
    return (rows > 1 and groups > 1 and call_taps == run and call_rows >= rows
            and groups * ((rows - 1) * 14 + 30) > rows * ((run // 4 + run % 4) * 3 + 4))


def rows_serve(call: KernelCall) -> bool:
    """Whether fg_conv2d_folded_rows_s8 serves a folded fused call: windows of rows of at most ROW_TAPS taps that take
    one call of the paired loop, whole groups of eight outputs, not dilated along x. Each row is then one pass of a
    sixteen-tap loop entered by a computed jump (7 instructions a row besides its taps, ~30 a row by the general
    walk; vww_96_int8's first layer on mps2_an385 1,219,440 -> 877,560 instructions), and the kernel links no other
    walk (~500 B less flash than the general one with its window group)."""
    _, rows, run, call_rows, call_taps, *_ = call.params["blocked"]
    return (call.params["dilation_w"] == 1 and call_taps == run and call_rows >= rows and run <= ROW_TAPS
            and call.params["out_c"] % PAIRED_GROUP == 0)


def fused_call(call: KernelCall) -> KernelCall:
    """The paired call with its output stage fused: the channel constants replace the folded bias, and the
    window walk (fg_paired_window_s8) is not linked for it."""
    table = ConstTable("fused_channels", "int32_t", channel_constants(call).ravel())
    blocked = (*call.params["blocked"][:6], 0)
    params = {**call.params, "folded_bias": 0, "blocked": blocked, "packed": TableRef(table.suffix)}
    tables = [t for t in call.tables if t.suffix != "folded_bias"]
    fused = dataclasses.replace(call, function=FUSED[call.function], params=params, variant=DESCRIPTION,
                                tables=[*tables, table])
    if fused.function == FOLDED and gathered_pays(fused):
        fused = dataclasses.replace(fused, function=GATHERED)
    elif fused.function in (FOLDED, FUSED["fg_depthwise_conv2d_one_channel_paired_s8"]) and rows_serve(fused):
        fused = dataclasses.replace(fused, function=ROWS)
    floor = floor_constants(call)
    if floor is None:
        return fused
    return dataclasses.replace(fused, function=FLOOR[fused.function],
                               tables=[*tables, ConstTable(table.suffix, table.c_type, floor.ravel())])


def compact_fusable(call: KernelCall) -> bool:
    """A compact 1x1 call fg_conv2d_pointwise_blocked_fused_s8 serves: its window in one call of the blocked loop,
    whole groups of four channels, at most FG_PAIR_MAX_OUT of them, the output stage served."""
    if call.function != COMPACT:
        return False
    _, _, run, _, call_taps, *_ = call.params["blocked"]
    out_c = call.params["out_c"]
    return call_taps == run and out_c <= PAIR_MAX_OUT and out_c % GROUP == 0 and _served(call)


def compact_fused_call(call: KernelCall) -> KernelCall:
    """The compact 1x1 call with its output stage fused: no extra table, its shifts (right shifts of 2..31) as int8
    at `packed` (3 bytes less per channel; a channel of multiplier 0 gets the right shift 2, its output the zero point
    whatever the shift, so that the kernel derives every channel's fast constants alike), and the window walk
    (fg_blocked_window_s8) not linked for it."""
    multipliers, shifts = _table(call, "multipliers"), _table(call, "shifts")
    shifts = np.where(multipliers == 0, -2, shifts).astype(np.int8)
    tables = [ConstTable(t.suffix, "int8_t", shifts) if t.suffix == "shifts" else t for t in call.tables]
    params = {**call.params, "blocked": (*call.params["blocked"][:6], 0), "packed": TableRef("shifts"),
              "requant": (*call.params["requant"][:6], 0)}  # fg_requant_params.shifts: NULL
    return dataclasses.replace(call, function=COMPACT_FUSED, isa=Isa(COMPACT_REQUIRES).name,
                               variant=COMPACT_DESCRIPTION, params=params, tables=tables)
