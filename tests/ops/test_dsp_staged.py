"""The staged DSP convolution's blocks (ops/variants/dsp_staged.py): chosen by the ESTIMATED cycles they save (their
copies' and calls' instructions counted in), within the board's stack."""

from __future__ import annotations

from firmware_gen.isa import ARMV7M, DSP, Isa
from firmware_gen.ops.variants.dsp_band import (
    GROUP_ROWS,
    SPARE_ROWS,
    band_columns,
    band_held_bytes,
    band_pair_tiles,
    band_row_bytes,
    band_row_tiles,
    band_shared_held,
    band_spare_rows,
    band_stack,
    band_staging,
)
from firmware_gen.ops.variants.dsp_staged import (
    BAND_COSTS,
    SHORT_STAGED_COSTS,
    STAGED_COSTS,
    STAGING_RESERVE,
    TILES_STAGED_COSTS,
    staged_blocks,
    staging,
    staging_costs,
)
from firmware_gen.target.disassembly import Instruction
from firmware_gen.target.timing_inorder import InorderTiming, block_timing

STACK = 16384
L4R5 = 5 / 8  # wait states per byte read: an STM32L4R5 at 120 MHz, 5 per 8-byte flash read


def _isa(stack: int = STACK, wait_per_byte: float = L4R5, core: str = "") -> Isa:
    return Isa(frozenset({ARMV7M, DSP}), 1 << 22, stack, wait_per_byte, core)


def test_the_copy_costs_what_fg_dsp_stage_words_pass_costs_on_each_core():
    """fg_dsp_stage_words' pass of sixteen words (dsp_staged.h), timed by the cycle estimate's in-order rules: the
    constant a staged word's copy is charged on the M4 and the M33 (which takes the M4's rules)."""
    eight = "{r4, r5, r6, r7, r8, r9, r10, r11}"
    copy_pass = [Instruction(0, "ldm", f"r0!, {eight}"), Instruction(4, "stm", f"r2!, {eight}"),
                 Instruction(8, "ldm", f"r0!, {eight}"), Instruction(12, "stm", f"r2!, {eight}"),
                 Instruction(16, "cmp", "r0, r1"), Instruction(18, "bne", "target")]
    for core, costs in STAGED_COSTS.items():
        timed = block_timing(copy_pass, InorderTiming(core))
        assert timed.cycles + timed.taken_penalty == 16 * costs.copy_per_word
        assert len(copy_pass) == 16 * costs.copy_instructions_per_word


def test_a_core_not_measured_takes_the_m4s_costs():
    assert staging_costs(STAGED_COSTS, _isa(core="cortex-m33")) is STAGED_COSTS["cortex-m33"]
    assert staging_costs(STAGED_COSTS, _isa(core="cortex-m3")) is staging_costs(STAGED_COSTS, _isa())
    assert staging_costs(STAGED_COSTS, _isa()) is STAGED_COSTS["cortex-m4"]


def test_the_band_calls_its_store_for_a_further_block_for_less_than_the_staged_kernels_set_up():
    """The band sets its tile store's job up once a block (fg_dsp_band_row_tiles), the staged kernels once a call
    (fg_dsp_gemm_3_strided): a further channel block's call costs the band less, on either core, and the band's tiles
    no blocked tile's cost."""
    for core in ("cortex-m4", "cortex-m33"):
        band, staged = BAND_COSTS[core], STAGED_COSTS[core]
        assert band.call < staged.call and band.call_instructions < staged.call_instructions
        assert band.blocked_tile == 0 < staged.blocked_tile
        assert (band.copy_per_word, band.copy_call) == (staged.copy_per_word, staged.copy_call)  # fg_dsp_stage_words


def test_blocked_staging_saves_what_the_whole_estimate_measured():
    """vww_96_int8's steps 14-22 (6x6 1x1 128 -> 128) run in place cost more ESTIMATED cycles a step (steps.py):
    67,089 on mps2_an521 with the U575's flash, 194,328 on mps2_an386 with the L4R5's (its relu store over a pixel
    block's tiles); each core's costs put the saving within 10 % and 3 % of it, and the instructions it adds (8,600
    and 8,071) within 2 %."""
    chosen = staging(36, 128, 128, _isa(wait_per_byte=4 / 16, core="cortex-m33"))
    assert chosen is not None and (chosen.tiles, chosen.block) == (12, 5)
    assert abs(chosen.saved - 67089) < 0.1 * 67089 and abs(chosen.extra_instructions - 8600) < 0.02 * 8600
    on_m4 = staging(36, 128, 128, _isa(core="cortex-m4"))
    assert on_m4 is not None and (on_m4.tiles, on_m4.block) == (12, 5)
    assert abs(on_m4.saved - 194328) < 0.03 * 194328 and abs(on_m4.extra_instructions - 8071) < 0.02 * 8071


def test_each_block_each_further_channel_block_and_each_blocked_tile_is_charged():
    """vww_96_int8's 6x6 128 -> 128 on the U575's flash (1 wait state a word): 12 tiles, 13 blocks of 5 pairs, its
    saving the in-place reads' wait states less the copy, 13 blocks, 144 further calls and 12 blocked tiles."""
    costs = STAGED_COSTS["cortex-m4"]
    words, reads = 64 * (8 + 128), 12 * 64 * (2 + 128)
    blocked = staged_blocks(12, 64, 64, 12, 5, 1.0, costs)
    assert blocked.saved == (reads - words * (1 + costs.copy_per_word) - 2 * 13 * costs.copy_call
                             - 13 * costs.block - 144 * costs.call - 12 * costs.blocked_tile)
    assert blocked.extra_instructions == (words * costs.copy_instructions_per_word
                                          + 2 * 13 * costs.copy_call_instructions + 13 * costs.block_instructions
                                          + 144 * costs.call_instructions + 12 * costs.blocked_tile_instructions)
    unblocked = staged_blocks(12, 64, 64, 12, 5, 1.0, costs, blocked_tiles=False)
    assert unblocked.saved == blocked.saved + 12 * costs.blocked_tile + 13 * costs.block
    whole = staged_blocks(12, 64, 64, 1, 64, 1.0, costs)  # one tile a block, one channel block: the in-place loop
    assert whole.saved == reads - words * (1 + costs.copy_per_word) - 2 * costs.copy_call


def test_the_m33s_32_and_64_pair_stores_cost_a_block_then_little_a_tile():
    """The M33's stores for 32 and 64 input pairs run a pixel block's tiles in one call (FG_DSP_SHORT_NEXT_X): a
    block costs about what the M4's does, a tile's further run a third of its call, and staging() charges them
    for those depths only, and only for blocks of more than one tile (one tile a block: a call a tile); the general
    stores over a block's tiles (TILES_STAGED_COSTS) are the M4's only."""
    short, m4, m33 = SHORT_STAGED_COSTS["cortex-m33"], STAGED_COSTS["cortex-m4"], STAGED_COSTS["cortex-m33"]
    assert short.call < m4.call / 2 and short.blocked_tile < 0 < m4.blocked_tile and short.block > 0.9 * m4.block
    assert m33 == m4
    u575 = _isa(wait_per_byte=4 / 16, core="cortex-m33")
    for depth, table in ((128, SHORT_STAGED_COSTS["cortex-m33"]), (256, m33)):  # 64 and 128 input pairs
        chosen = staging(36, 128, depth, u575)
        assert chosen is not None and chosen.tiles > 1
        pairs = depth // 2
        expected = staged_blocks(12, 64, pairs, chosen.tiles, chosen.block, 1.0, table)
        assert (chosen.saved, chosen.extra_instructions) == (expected.saved, expected.extra_instructions)


def test_the_general_stores_cost_a_block_then_little_a_tile_but_at_4_8_and_16_pairs():
    """The general tile stores run a pixel block's tiles in one call (fg_dsp_tile_store_relu_doubled_tiles): a
    further channel block costs a tile a third of a call, a blocked tile less than a tile in turn; staging() charges
    them for blocks of more than one tile on the M4, not at 4, 8 and 16 pairs (the short stores, a call a tile; 16
    pairs, whose tiles in turn run in one call) nor on another core (the M33's general stores: a call a tile)."""
    tiles, m4 = TILES_STAGED_COSTS, STAGED_COSTS["cortex-m4"]
    assert tiles.call < m4.call / 3 and tiles.blocked_tile < 0 < m4.blocked_tile and tiles.block > m4.block
    chosen = staging(36, 128, 96, _isa(core="cortex-m4"))  # 48 pairs
    assert chosen is not None and chosen.tiles > 1
    expected = staged_blocks(12, 64, 48, chosen.tiles, chosen.block, 2.5, tiles)
    assert (chosen.saved, chosen.extra_instructions) == (expected.saved, expected.extra_instructions)
    for out_c, depth, core in ((1024, 16, "cortex-m4"), (512, 32, "cortex-m4"), (128, 96, "cortex-m33"), (128, 96, "")):
        chosen = staging(36, out_c, depth, _isa(core=core))
        assert chosen is not None and chosen.tiles > 1
        expected = staged_blocks(12, out_c // 2, depth // 2, chosen.tiles, chosen.block, 2.5, m4)
        assert (chosen.saved, chosen.extra_instructions) == (expected.saved, expected.extra_instructions)


def test_a_table_that_fits_is_staged_once_for_the_whole_call():
    chosen = staging(1024, 16, 144, _isa())  # pretrainedResnet_quant's first 3x3 convolution: 342 tiles
    assert chosen is not None and chosen.tiles == 1 and chosen.block == 8  # every channel pair, one tile a block
    assert chosen.saved > 0 and chosen.extra_instructions < 1000


def test_a_table_larger_than_the_stack_is_staged_a_block_of_channels_for_a_block_of_pixels():
    chosen = staging(36, 128, 128, _isa())  # vww_96_int8's 6x6 1x1 128 -> 128: 12 tiles, 64 channel pairs
    assert chosen is not None and 1 < chosen.tiles and chosen.block < 64 and chosen.saved > 0
    assert chosen.stack <= STACK - STAGING_RESERVE


def test_few_pixels_read_the_weights_in_place():
    assert staging(6, 32, 64, _isa()) is None  # two tiles: the copy costs more than the wait states it saves


def test_staging_must_save_cycles():
    # pretrainedResnet_quant's 8x8 3x3 64 -> 64: a pixel block a few tiles wide would re-copy 74 KB per block
    assert staging(64, 64, 576, _isa()) is None
    for shape in [(36, 128, 128), (144, 64, 64), (256, 32, 288)]:
        chosen = staging(*shape, _isa())
        assert chosen.saved > 0 and chosen.extra_instructions > 0


def test_a_smaller_stack_takes_smaller_blocks_or_none():
    whole, blocked = staging(144, 64, 64, _isa()), staging(144, 64, 64, _isa(8192))  # 8 KB of weights and constants
    assert blocked.block < whole.block and blocked.tiles > whole.tiles and blocked.stack <= 8192 - STAGING_RESERVE
    assert blocked.saved < whole.saved  # each pixel block copies its channel blocks again
    assert staging(144, 64, 64, _isa(STAGING_RESERVE + 512)) is None  # not one channel pair beside a tile
    small = staging(576, 32, 32, _isa(8192))
    assert small is not None and small.stack <= 8192 - STAGING_RESERVE


def test_the_boards_flash_decides():
    """No data wait states (every QEMU board, a part whose cache hides data reads): the weights stay in place; fewer
    wait states per byte (an STM32U575 at 160 MHz: 4 per 16-byte read) save fewer cycles than the L4R5's."""
    for shape in [(1024, 16, 144), (36, 128, 128), (144, 64, 64)]:
        assert staging(*shape, _isa(wait_per_byte=0.0)) is None
        u575 = staging(*shape, _isa(wait_per_byte=4 / 16))
        assert u575 is None or u575.saved < staging(*shape, _isa()).saved


def _band_params(side: int, channels: int, stride: int = 1) -> dict:
    out = -(-side // stride)  # SAME
    return {"batches": 1, "in_h": side, "in_w": side, "in_c": channels, "out_h": out, "out_w": out,
            "out_c": channels, "pad_top": 1 if stride == 1 else 0, "pad_left": 1 if stride == 1 else 0,
            "stride_h": stride, "stride_w": stride}


def test_the_band_takes_spare_rows_from_the_stack_left_beside_its_staged_table():
    """fg_conv2d_3x3_band_dsp's spare rows (dsp_band.band_spare_rows): up to SPARE_ROWS where the stack left after the
    staged table holds them, fewer where it holds fewer or the image has fewer output rows after the first, none
    where not one row fits (then the band's rows move up every output row)."""
    resnet_32 = _band_params(32, 16)  # 34 columns of 8 pairs: 1,088 B a row
    assert band_spare_rows(resnet_32, 8192) == SPARE_ROWS
    assert band_spare_rows(resnet_32, 2 * 1088) == 2 and band_spare_rows(resnet_32, 1087) == 0
    assert band_spare_rows(_band_params(3, 16), 8192) == 2  # the last output row's window needs no further row
    assert band_spare_rows(_band_params(1, 16), 8192) == 0


def test_the_band_stages_a_block_for_a_group_of_output_rows_where_spare_rows_hold_their_windows():
    """band_staging: a table staged a block at a time serves a group of output rows' tiles (up to GROUP_ROWS)
    where the stack holds the block beside the later rows' windows (a spare band row each, two at stride 2): one copy
    for more tiles saves more; one row where one block holds the table (it is copied once a call either way), or
    where the image has one output row."""
    resnet_16 = _band_params(16, 32)  # pretrainedResnet_quant's 16 x 16 32 -> 32: 36.9 KB of table
    block, saved, rows = band_staging(resnet_16, 144, 7000, True, _isa())
    assert 1 < rows <= GROUP_ROWS and 0 < block < 16 and saved > 0
    band_costs = staging_costs(BAND_COSTS, _isa())
    # the same blocks copied for each row
    assert staged_blocks(16 * 5, 16, 144, 5, block, 4 * L4R5, band_costs, blocked_tiles=False).saved < saved
    pair_bytes = 4 * (8 + 2 * 144)  # a channel pair's output stages and weights
    assert band_staging(resnet_16, 144, pair_bytes + band_row_bytes(resnet_16) - 1, True, _isa())[2] == 1
    assert band_staging(_band_params(16, 16), 72, 7000, True, _isa())[2] == 1  # staged whole
    assert band_staging({**resnet_16, "out_h": 1}, 144, 7000, True, _isa())[2] == 1
    stride_2 = _band_params(17, 32, 2)  # two spare rows a row at stride 2: fewer rows in the same room
    assert 1 < band_staging(stride_2, 144, 7000, True, _isa())[2] < rows
    assert band_staging({**resnet_16, "out_h": 3}, 144, 7000, True, _isa())[2] <= 3  # the rows after the first
    assert band_staging(resnet_16, 144, 7000, False, _isa())[0] == 0  # no tile store: nothing blocked


def test_the_held_pixels_pairs_share_the_staged_block_where_each_group_flushes_whole_triples():
    """band_shared_held: pretrainedResnet_quant's 8 x 8 64 -> 64 (74 KB of table, two held pixels a row) stages
    nothing beside its held pixels' own pairs on the U575's flash; in their place, groups of three rows (six held
    pixels, flushed before the next group's block is staged) a block of channel pairs no smaller than those pairs."""
    resnet_8 = _band_params(8, 64)
    u575 = _isa(wait_per_byte=4 / 16)
    assert band_staging(resnet_8, 576, STACK - STAGING_RESERVE - band_stack(resnet_8, False), True, u575)[0] == 0
    room = STACK - STAGING_RESERVE - band_stack(resnet_8, False, held_in_block=True)
    block, saved, rows = band_shared_held(resnet_8, 576, room, u575)
    assert rows * (8 % 3) % 3 == 0 and saved > 0 and 4 * block * (8 + 2 * 576) >= band_held_bytes(resnet_8)
    assert band_shared_held(resnet_8, 576, room, _isa(wait_per_byte=0.0)) is None  # nothing to stage


def test_rows_whose_last_two_pixels_run_as_the_pair_tile_hold_none():
    """band_pair_tiles: out_w % 3 == 2 at stride 1 with the tile store: each row's last two pixels a pair tile reading
    the staged block as its whole tiles do (band_row_tiles), so pretrainedResnet_quant's 8 x 8 64 -> 64 stages blocks
    on the U575's flash in the stack its held pixels' pairs took, for groups of rows of any count."""
    resnet_8 = _band_params(8, 64)
    assert band_pair_tiles(resnet_8, True) and band_row_tiles(resnet_8, True) == 3
    assert not band_pair_tiles(resnet_8, False) and band_row_tiles(resnet_8, False) == 2  # gathered tiles
    assert not band_pair_tiles(_band_params(16, 32), True)  # out_w % 3 == 1: held, flushed three at a time
    assert band_pair_tiles(_band_params(16, 32, 2), True)  # stride 2: 8 outputs a row
    room = STACK - STAGING_RESERVE - band_stack(resnet_8, False, held_in_block=True)
    block, saved, rows = band_staging(resnet_8, 576, room, True, _isa(wait_per_byte=4 / 16))
    assert block > 0 and saved > 0 and rows > 1


def test_the_band_at_stride_2_holds_an_even_count_of_columns_past_its_last_window():
    """A line's even columns, then its odd ones (fg_dsp_band_columns): the last tile reads the even column past its
    windows, so columns to 2 out_w + 1 at least, and an even count (halves of equal words)."""
    assert band_columns(_band_params(16, 32, 2)) == 18  # pretrainedResnet_quant's 16x16 -> 8x8: 2 * 8 + 2
    assert band_columns(_band_params(17, 16, 2)) == 20  # 9 outputs
    assert band_columns({**_band_params(8, 16, 2), "in_w": 11, "pad_left": 2}) == 14  # the image's 13, made even
