"""The int8 DSP convolutions with their weights staged in RAM (runtime_c/include/fg/isa/dsp_staged.h):
fg_conv2d_pointwise_staged_dsp and fg_conv2d_folded_staged_dsp, the 3 x 2 SMLAD tile of dsp.py's POINTWISE and FOLDED
on a block of channel pairs copied to the stack, read there by a block of pixels' tiles.

In place, every tile of three pixels reads the weights of every channel pair again: from flash, each read pays the
flash's wait states again (an STM32L4R5 at 120 MHz: 5 per 8 bytes, 2.5 per int16 weight word), what made the late
1x1 layers of vww_96_int8 cost 2.15 ESTIMATED cycles per instruction on the M4. Staged, a weight word is read from
flash once per pixel block (once per call when one channel block holds every channel pair) at the cost of its copy
(LDM + STM, 0.5 instructions a word), and a tile calls the SMLAD loop once per channel block instead of once.

`staging` picks the blocks by the estimate (docs/cycle_model.md's in-order timing, the board's flash as its file
states it: Isa.flash_wait_per_byte; the wait states saved against the copies and the calls added; the channels'
output stages are staged with their weights; the copies' and calls' instructions are in those cycles), the arrays
within the board's stack less STAGING_RESERVE. A layer that gains nothing so runs POINTWISE or
FOLDED (the specializer says None): every layer on a board whose flash has no data wait states (the QEMU boards; an
STM32L4R5 at 120 MHz has 5 per 8-byte read, 2.5 per int16 weight word).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant
from firmware_gen.ops.variants.dsp import MAX_DEPTH, REQUIRES, conv_taps, packed_call, rows_padded, tile_table

# ESTIMATED cycles of the M4: an int16 weight word read from flash in place pays its wait states (4 bytes x
# Isa.flash_wait_per_byte), one copied those waits and the copy (LDM + STM: 2 x 9 cycles per 8 words, the loop's CMP
# and taken BNE 4), a tile's extra call of the SMLAD loop for one more channel block (measured on mps2_an386: ~85
# instructions, ~110 cycles).
WORD_BYTES = 4
COPY_CYCLES_PER_WORD = 22 / 8
CALL_CYCLES, CALL_INSTRUCTIONS = 110, 85
COPY_INSTRUCTIONS_PER_WORD = 0.5
# A channel pair's two fg_dsp_channel (staged with its weights), of which each tile's two bias loads are placed in
# flash by the estimate (the rest are loaded through a pointer read in the same block: placed in RAM).
CONSTANT_WORDS, BIAS_WORDS = 8, 2
STAGING_RESERVE = 4096  # stack bytes left to everything else: the kernels' fixed arrays, the calls, an exception


@dataclass(frozen=True)
class Staging:
    tiles: int  # tiles of three pixels a pixel block
    block: int  # channel pairs a staged block
    saved: float  # ESTIMATED cycles saved against the weights in place
    extra_instructions: float
    stack: int  # bytes of the two arrays


def _evened(total: int, most: int) -> int:
    """The block that takes `total` in as few blocks of at most `most` as possible, each as small as it can be."""
    return -(-total // -(-total // most))


def staged_blocks(tiles: int, channel_pairs: int, pairs: int, tile_block: int, pair_block: int,
                  wait_per_word: float) -> Staging:
    """The staging of `tiles` tiles a block of `tile_block` tiles and `pair_block` channel pairs (of `pairs` input
    pairs each) against the weights read in place, `wait_per_word` wait states per word read from flash."""
    words = channel_pairs * (CONSTANT_WORDS + 2 * pairs)  # staged: a channel pair's output stages and weights
    read = channel_pairs * (BIAS_WORDS + 2 * pairs)  # in place, each tile's reads that the estimate places in flash
    pixel_blocks, channel_blocks = -(-tiles // tile_block), -(-channel_pairs // pair_block)
    copies = 1 if channel_blocks == 1 else pixel_blocks  # one block stays staged from one pixel block to the next
    calls = tiles * (channel_blocks - 1)
    saved = (tiles * read * wait_per_word - copies * words * (wait_per_word + COPY_CYCLES_PER_WORD)
             - calls * CALL_CYCLES)
    extra = copies * words * COPY_INSTRUCTIONS_PER_WORD + calls * CALL_INSTRUCTIONS
    stack = 4 * (3 * pairs * tile_block + (CONSTANT_WORDS + 2 * pairs) * pair_block)
    return Staging(tile_block, pair_block, saved, extra, stack)


def staging(pixels: int, out_c: int, depth: int, isa: Isa) -> Staging | None:
    """The blocks of the staged kernel for a layer of `pixels` output pixels, `out_c` channels and windows of `depth`
    taps (the kernel's, padded) on a board of `isa`'s stack and flash wait states: the most ESTIMATED cycles saved
    within the stack (module docstring); None when no blocking
    gains."""
    pairs, tiles, channel_pairs = -(-depth // 8) * 4, -(-pixels // 3), -(-out_c // 2)
    words = (isa.stack_bytes - STAGING_RESERVE) // 4
    wait_per_word = WORD_BYTES * isa.flash_wait_per_byte
    best = None
    for tile_block in range(1, tiles + 1):
        tile_block = _evened(tiles, tile_block)
        pair_block = min(channel_pairs, (words - 3 * pairs * tile_block) // (CONSTANT_WORDS + 2 * pairs))
        if pair_block < 1:
            break
        candidate = staged_blocks(tiles, channel_pairs, pairs, tile_block, _evened(channel_pairs, pair_block),
                                  wait_per_word)
        if candidate.saved > 0 and (best is None or candidate.saved > best.saved):
            best = candidate
    return best


def _tiled_staged(variant_name: str):
    """The specializer of a staged variant: the plain variant's table after the blocks, when staging pays."""
    def specialize(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
        padded = rows_padded(np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8))
        if padded.shape[1] > MAX_DEPTH:
            return None
        p = call.params
        chosen = staging(p["batches"] * p["out_h"] * p["out_w"], p["out_c"], padded.shape[1], isa)
        if chosen is None:
            return None
        constants, words = tile_table(graph, op, call, conv_taps(graph, op), padded)
        header = np.array([chosen.tiles, chosen.block], np.int32)
        staged = packed_call(call, globals()[variant_name], np.concatenate([header, constants.ravel()]), words,
                             [op.inputs[0], -1])
        return replace(staged, run_time_stack=chosen.stack)
    return specialize


POINTWISE_STAGED = Variant("fg_conv2d_pointwise_staged_dsp", "fg_conv2d_pointwise_s8", REQUIRES,
                           _tiled_staged("POINTWISE_STAGED"), "3 pixels x 2 channels per SMLAD tile on weights staged "
                           "in RAM a block of channel pairs at a time (flash read once per block of pixels), SMMULR "
                           "output stage", precedence=1, takes_isa=True)
FOLDED_STAGED = Variant("fg_conv2d_folded_staged_dsp", "fg_conv2d_folded_s8", REQUIRES, _tiled_staged("FOLDED_STAGED"),
                        "im2col of 3 pixels, then the 3 x 2 SMLAD tile on weights staged in RAM a block of channel "
                        "pairs at a time; SMMULR output stage", precedence=1, takes_isa=True)

VARIANTS = [POINTWISE_STAGED, FOLDED_STAGED]
