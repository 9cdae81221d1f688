"""The 3x3 DSP convolution on a band of sign-extended input rows (runtime_c/kernels/convolution/conv2d_3x3_band_dsp.c):
fg_conv2d_folded_dsp's 3 x 2 SMLAD tile and output stage, its windows read from three int16 rows on the stack,
each input row sign-extended once instead of once per window that holds it (nine times at stride 1).

The band's rows are in_c / 2 lines of columns, line g holding input pair g of every column: one LDM gives three
pixels' pair g at a tap, the next two taps need one more word each (25 instructions and 36 ESTIMATED cycles a line of
three taps on the M4, against 24 and 39 for the im2col tile's three passes). So the weights take the window's pairs
in the order (ky, g, kx): fg_conv2d_folded_dsp's table with each window row's pairs reordered.

At stride 2 each line holds its even columns, then its odd ones: three pixels' pairs at taps 0 and 2 are the even
half's words 0-2 and 1-3, at tap 1 the odd half's 0-2 (two LDMs, an LDR and two ADDs a line: 26 instructions and 39
ESTIMATED M4 cycles, the im2col tile's cycles), the weights in the order of the taps so read (0, 2, 1); what the band
saves there is the im2col's extension of every window (each input value 2.25 times on average).

Where the flash has wait states the table is staged on the stack as dsp_staged.py weighs it (band_staging): whole once
per call when it fits beside the band, else a block of channel pairs at a time, each block again for each group of
output rows' tiles: one row, or up to GROUP_ROWS where spare band rows (two a row at stride 2) hold the later
rows' windows beside the block (each staged word then read by that many rows' tiles for one copy). The stack left
beside them holds up to SPARE_ROWS spare rows of the band (band_spare_rows), which the window moves down (a row an
output row, two at stride 2) before the rows it keeps are copied back to the top: one copy every few output rows
instead of one every row. The layer runs fg_conv2d_folded_staged_dsp instead where that one's blocks save more
ESTIMATED cycles than the band and its own staging together.

Not on the M7: its single LDRs dual-issue with the SMLADs (fg/isa/dsp.h's FG_DSP_TILE_PASS_M7), the band's line has
no such order yet, and the kernel's M7 build gathers every tile from the band in C (pretrainedResnet_quant on
mps2_an500: 8.53 -> 9.08 M ESTIMATED cycles with it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant
from firmware_gen.ops.variants.dsp import REQUIRES, WIDE, conv_taps, packed_call, rows_padded, tile_table
from firmware_gen.ops.variants.dsp_staged import (
    BAND_COSTS,
    CONSTANT_WORDS,
    STAGING_RESERVE,
    WORD_BYTES,
    staged_blocks,
    staging,
    staging_costs,
)

LINES_A_ROUND = 24  # the tile store's unrolled lines: 3 in_c / 2 a multiple of it (in_c % 16 == 0)
# ESTIMATED M4 cycles (docs/cycle_model.md's in-order timing) the band saves against the im2col tile: a window's
# input value sign-extended (LDR, two SXTB16 and two STR per four, with the window's gathering), three taps' line
# of a channel pair, and what the band costs again per input value of a row (extended into the band, moved up).
EXTEND_CYCLES_PER_VALUE = 1.7
LINE_CYCLES_SAVED = 2.5
BAND_CYCLES_PER_VALUE = 3.0
SPARE_ROWS = 3  # one copy every four output rows at most; each further row saves less and costs a row of stack
GROUP_ROWS = 6  # output rows a staged block at most: their windows' spare rows may pass SPARE_ROWS


def band_columns(p: dict) -> int:
    """The band's columns (fg_dsp_band_columns): the image's after the left padding, or the last tile's taps and the
    two words past them; at stride 2 an even count, the columns to 2 out_w + 1 and one more."""
    image = p["pad_left"] + p["in_w"]
    if p["stride_w"] == 2:
        return max(image + image % 2, 2 * p["out_w"] + 2)
    return max(image, p["out_w"] + 2)


def band_fits(p: dict) -> bool:
    """The kernel's geometry: a 3x3 filter of stride 1 or 2 (the same both ways) and dilation 1 on in_c a multiple of
    16."""
    return (p["filter_h"], p["filter_w"], p["dilation_h"], p["dilation_w"]) == (3, 3, 1, 1) and p["stride_h"] == p[
        "stride_w"] in (1, 2) and p["in_c"] % 4 == 0 and 3 * p["in_c"] // 2 % LINES_A_ROUND == 0 and p["out_w"] >= 3


def band_held_bytes(p: dict) -> int:
    """Bytes of three pixels' window pairs (the held pixels', or a gathered tile's)."""
    return 4 * 3 * 9 * (p["in_c"] // 2)


def band_stack(p: dict, gathered: bool, held_in_block: bool = False) -> int:
    """Bytes of the kernel's arrays besides a staged table: the band, the held pixels' pairs (unless they share the
    staged block's words) and their three outputs, and (gathered: a tile store cannot take the layer, a wide channel
    or an odd out_c) a tile's gathered pairs."""
    pixel_pairs = band_held_bytes(p)
    sizes = [4 * 3 * (p["in_c"] // 2) * band_columns(p), 4 if held_in_block else pixel_pairs,
             pixel_pairs if gathered else 4, 3 * p["out_c"]]
    return sum(-(-size // 8) * 8 for size in sizes)  # gcc rounds each allocation up to the stack's 8 bytes


def band_row_bytes(p: dict) -> int:
    """Bytes of a band row: in_c / 2 lines of band_columns words."""
    return 4 * (p["in_c"] // 2) * band_columns(p)


def band_spare_rows(p: dict, room: int) -> int:
    """The band's spare rows within `room` bytes of stack (fg_conv2d_3x3_band_dsp): up to SPARE_ROWS, and no more
    than the output rows after the first need."""
    return max(0, min(SPARE_ROWS, p["out_h"] - 1, room // band_row_bytes(p)))


def band_saving(p: dict) -> float:
    """ESTIMATED cycles the band saves against fg_conv2d_folded_dsp on the same weights (module docstring)."""
    pixels, in_c = p["batches"] * p["out_h"] * p["out_w"], p["in_c"]
    extension = pixels * 9 * in_c * EXTEND_CYCLES_PER_VALUE
    lines = pixels / 3 * -(-p["out_c"] // 2) * 3 * in_c // 2 * LINE_CYCLES_SAVED if p["stride_w"] == 1 else 0.0
    band = p["batches"] * p["out_h"] * p["stride_h"] * band_columns(p) * in_c * BAND_CYCLES_PER_VALUE
    return extension + lines - band


def band_order(words: np.ndarray, channel_pairs: int, in_c: int, stride: int = 1) -> np.ndarray:
    """interleaved_pairs' words of a 3x3 filter (per channel pair its window's pairs in the order (ky, kx, g), two
    words each) with the pairs in the band's order (ky, g, kx), the taps kx in the order 0, 2, 1 at stride 2."""
    pairs = words.reshape(channel_pairs, 3, 3, in_c // 2, 2)[:, :, [0, 2, 1] if stride == 2 else [0, 1, 2]]
    return np.ascontiguousarray(pairs.transpose(0, 1, 3, 2, 4)).reshape(-1)


def band_group_spare(p: dict, rows: int) -> int:
    """The spare band rows a group of `rows` output rows' windows needs: (rows - 1) strides beyond three rows."""
    return (rows - 1) * p["stride_h"]


def band_pair_tiles(p: dict, stored: bool) -> bool:
    """Whether each output row's last two pixels (out_w % 3 == 2) run as the band's pair tile (the tile store running
    every tile) instead of being held, gathered and flushed three at a time."""
    return stored and p["out_w"] % 3 == 2


def band_row_tiles(p: dict, stored: bool) -> int:
    """The tiles a row that read the staged block: the whole ones and the pair tile."""
    return p["out_w"] // 3 + band_pair_tiles(p, stored)


def band_staging(p: dict, pairs: int, room: int, blocks_allowed: bool, isa: Isa,
                 groups: Iterable[int] = range(1, 1 + GROUP_ROWS)) -> tuple[int, float, int]:
    """(channel pairs a staged block, 0 for none; the ESTIMATED cycles staging saves; the output rows a group) for the
    band kernel's table of `pairs` input pairs a window within `room` bytes of stack, as dsp_staged.staging weighs it:
    a pixel block is a group's whole tiles, each block staged again for each group unless one block holds the table
    (blocks_allowed: the tile store runs the layer). A group of more rows only where the table is staged a block at
    a time, the later rows' windows in band_group_spare spare rows taken from `room`; of `groups` rows."""
    channel_pairs, wait = -(-p["out_c"] // 2), WORD_BYTES * isa.flash_wait_per_byte
    row_tiles = band_row_tiles(p, blocks_allowed)
    best = (0, 0.0, 1)
    for rows in groups:
        spare = band_group_spare(p, rows)
        most = min(channel_pairs, (room - spare * band_row_bytes(p)) // (4 * (CONSTANT_WORDS + 2 * pairs)))
        if (not wait or most < 1 or (most < channel_pairs and not blocks_allowed)
                or rows > p["out_h"] or (rows > 1 and most == channel_pairs)):
            continue
        saved = staged_blocks(p["batches"] * p["out_h"] * row_tiles, channel_pairs, pairs, rows * row_tiles, most,
                              wait, staging_costs(BAND_COSTS, isa), blocked_tiles=False).saved
        if saved > best[1]:
            blocks = -(-channel_pairs // most)
            best = (-(-channel_pairs // blocks), saved, rows)
    return best


def band_shared_held(p: dict, pairs: int, room: int, isa: Isa) -> tuple[int, float, int] | None:
    """band_staging within `room` (the stack without the held pixels' own pairs) where the held pixels' pairs share
    the staged block's words: groups of rows whose held pixels (out_w % 3 a row) are whole triples, flushed before the
    next group's block is staged, and a block at least as large as the pairs; None where no such staging saves."""
    held = p["out_w"] % 3
    groups = [rows for rows in range(2, 1 + GROUP_ROWS) if rows * held % 3 == 0]
    block, saved, group = band_staging(p, pairs, room, True, isa, groups)
    if saved <= 0 or 4 * block * (CONSTANT_WORDS + 2 * pairs) < band_held_bytes(p):
        return None
    return block, saved, group


def _band(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
    p = call.params
    if not band_fits(p) or isa.core == "cortex-m7":
        return None
    padded = rows_padded(np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8))
    constants, words = tile_table(graph, op, call, conv_taps(graph, op), padded)
    stored = bool((constants[:, 3] != WIDE).all()) and p["out_c"] % 2 == 0  # the tile store runs every tile
    fixed = band_stack(p, gathered=not stored)
    room = isa.stack_bytes - STAGING_RESERVE - fixed
    if room < 0:  # or the board's stack is not known: the band's rows grow with the image's width
        return None
    pairs, channel_pairs = padded.shape[1] // 2, -(-p["out_c"] // 2)
    block, staged_saving, group = band_staging(p, pairs, room, stored, isa)
    held_in_block = False
    if band_pair_tiles(p, stored):  # no held pixels: no array of their pairs
        fixed = band_stack(p, False, True)
        room = isa.stack_bytes - STAGING_RESERVE - fixed
        block, staged_saving, group = band_staging(p, pairs, room, stored, isa)
    elif stored:  # the held pixels' pairs in the staged block's words: more room for the block and the spare rows
        shared = band_shared_held(p, pairs, isa.stack_bytes - STAGING_RESERVE - band_stack(p, False, True), isa)
        if shared is not None and shared[1] > staged_saving:
            (block, staged_saving, group), held_in_block = shared, True
            fixed = band_stack(p, False, True)
            room = isa.stack_bytes - STAGING_RESERVE - fixed
    alone = staging(p["batches"] * p["out_h"] * p["out_w"], p["out_c"], padded.shape[1], isa)
    if alone is not None and alone.saved >= band_saving(p) + staged_saving:
        return None  # fg_conv2d_folded_staged_dsp's blocks save more
    staged = 4 * block * (CONSTANT_WORDS + 2 * pairs)
    spare = max(band_group_spare(p, group), band_spare_rows(p, room - staged))  # room - staged holds the group's
    table = np.concatenate([[block, spare, group, held_in_block], constants.ravel()]).astype(np.int32)
    ordered = band_order(words, channel_pairs, p["in_c"], p["stride_w"])
    banded = packed_call(call, BAND, table, ordered, [op.inputs[0], -1])
    return replace(banded, run_time_stack=fixed + staged + spare * band_row_bytes(p))


BAND = Variant("fg_conv2d_3x3_band_dsp", "fg_conv2d_folded_s8", REQUIRES, _band,
               "each input row sign-extended once into a band of three int16 rows on the stack, the 3 x 2 SMLAD tile "
               "reading its windows there (one LDM a line of three taps); SMMULR output stage", precedence=2,
               takes_isa=True)

VARIANTS = [BAND]
