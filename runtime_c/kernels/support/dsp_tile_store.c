/* The DSP tile-store functions of fg/isa/dsp_tile_store.h, one copy per firmware (they were static in every kernel
 * file that ran them); their assembly is fg/isa/dsp.h's, whose macros FG_DSP_TILE_STORES keeps defined here. */
#define FG_DSP_TILE_STORES
#include "fg/isa/dsp_tile_store.h"

#if defined(__ARM_FEATURE_DSP)
/* The 3 x 2 tile of fg_dsp_tile_3x2 for the pairs of narrow channels from job->ch to job->end in turn (their weight
 * blocks one after the other), the bias loaded and the output stage fused while the accumulators are in registers.
 * The accumulators are doubled (the channels' weights and biases doubled at generation time: 2 acc fits a narrow
 * channel's): per output SMMULR + 3 for the rounding shift, the clamp (one SSAT when it is all of int8), STRB. Per
 * channel pair on the M4 timing (relu): the first input pair and the BX 14 + 2 cycles, the output stage and the
 * stores with the frame's bookkeeping 48 (the passes 13 an input pair, 2 a round of FG_DSP_ROUND_PAIRS and 2 for
 * each taken loop branch apart). */
FG_DSP_TILE_STORE_FUNCTION(fg_dsp_tile_store_doubled, FG_DSP_NARROW_DOUBLED, CLAMPING)
/* For a layer whose output zero point is -128 and clamp all of int8: SMMLAR adding the offset, no rounding
 * correction of negative values (they clamp to -128 either way) and no check of the clamp. */
FG_DSP_TILE_STORE_FUNCTION(fg_dsp_tile_store_relu_doubled, FG_DSP_RELU_DOUBLED, RELU)
#if FG_DSP_TILES_STORES
/* The two over a block's tiles (fg_dsp_tiles_job). */
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_tile_store_doubled_tiles, fg_dsp_tiles_job, FG_DSP_TILE_STORE_TILES,
                         FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_tile_store_relu_doubled_tiles, fg_dsp_tiles_job, FG_DSP_TILE_STORE_TILES,
                         FG_DSP_RELU_DOUBLED, RELU)
#endif
/* The two doubled ones for 4 and 8 input pairs (the pointwise kernels' in_c <= 8 and <= 16). */
#undef FG_DSP_PAIR_NEXT
#define FG_DSP_PAIR_NEXT ""
#undef FG_DSP_STAGE_CH
#define FG_DSP_STAGE_CH ""
#undef FG_DSP_PAIR_CH_STORE
#define FG_DSP_PAIR_CH_STORE ""
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_4, FG_DSP_TILE_SHORT_4, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_8, FG_DSP_TILE_SHORT_8, FG_DSP_NARROW_DOUBLED, CLAMPING)
#if defined(FG_CORE_CORTEX_M7)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_4, FG_DSP_TILE_SHORT_4, FG_DSP_RELU_DOUBLED, RELU)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_8, FG_DSP_TILE_SHORT_8, FG_DSP_RELU_DOUBLED, RELU)
/* The M7's 4 x 2 tile (fg_dsp_quad_job): accumulators r4-r7 channel A's pixels 0-3, r8-r11 channel B's; A's
 * weights in lr, B's in r3, the pixels' pairs by turns in r2 and r12. Pass p reads x at [x + 16 p] and w at
 * [w + 8 p], each LDR issued with an SMLAD that does not read it (llvm-mca cortex-m7: 8 cycles, 14 instructions
 * for 16 MACs, against 6 cycles, 11 instructions for 12 in FG_DSP_TILE_PASS_M7), loading its B, then the next
 * pass's first pixel and A. */
#define FG_DSP_QUAD_PASS(NEXT_PIXEL, NEXT_A) \
    "ldr r3, [r1, #8 * \\p + 4]\n\t"          \
    "smlad r4, r2, lr, r4\n\t"                \
    "ldr r12, [r0, #16 * \\p + 4]\n\t"        \
    "smlad r8, r2, r3, r8\n\t"                \
    "ldr r2, [r0, #16 * \\p + 8]\n\t"         \
    "smlad r5, r12, lr, r5\n\t"               \
    "smlad r9, r12, r3, r9\n\t"               \
    "ldr r12, [r0, #16 * \\p + 12]\n\t"       \
    "smlad r6, r2, lr, r6\n\t"                \
    "smlad r10, r2, r3, r10\n\t"              \
    NEXT_PIXEL                                 \
    "smlad r7, r12, lr, r7\n\t"               \
    NEXT_A                                     \
    "smlad r11, r12, r3, r11\n\t"
/* A channel pair's first input pair from the biases (r3 at its table; r4 and r8 hold the biases until their own
 * SMLAD), with pass 1's first pixel and A loaded: 12 cycles in llvm-mca's cortex-m7 model (hill-climbed; pixels 2 and
 * 3 by one LDRD, the others' LDRDs cost 1-2 cycles more). */
#define FG_DSP_QUAD_FIRST               \
    "ldr r0, [sp, #12]\n\t"             \
    "ldr lr, [r1]\n\t"                  \
    "ldr r8, [r3, #12]\n\t"             \
    "ldr r4, [r3, #-4]\n\t"             \
    "ldrd r2, r12, [r0, #8]\n\t"        \
    "ldr r3, [r1, #4]\n\t"              \
    "smlad r7, r12, lr, r4\n\t"         \
    "smlad r11, r12, r3, r8\n\t"        \
    "ldr r12, [r0, #4]\n\t"             \
    "smlad r6, r2, lr, r4\n\t"          \
    "smlad r5, r12, lr, r4\n\t"         \
    "smlad r10, r2, r3, r8\n\t"         \
    "ldr r2, [r0]\n\t"                  \
    "smlad r9, r12, r3, r8\n\t"         \
    "smlad r4, r2, lr, r4\n\t"          \
    "ldr lr, [r1, #8]\n\t"              \
    "smlad r8, r2, r3, r8\n\t"          \
    "ldr r2, [r0, #16]\n\t"
/* A call's channel pairs in turn (the deep tiles: pairs a multiple of ROUND, 16 or 32): FG_DSP_QUAD_FIRST, then
 * into pass 1 of the round of ROUND passes (LIST: 1 to ROUND - 2, LAST: ROUND - 1); x and w move past a round at its
 * last pass (which loads nothing of the next), the rounds end at the frame's x_end; STAGE; back while pairs remain
 * (r3 at the next pair's table). */
#define FG_DSP_TILE_QUAD_ROUND(ROUND, LIST, LAST, STAGE, FRAME, OUT_OF_LINE)                                       \
    FG_DSP_TILE_ASM(                                                                                                \
        "ldm %[job], {" FRAME "}\n\t"                                                                               \
        "stm sp, {" FRAME "}\n"                                                                                     \
        "1:\n\t"                                                                                                    \
        FG_DSP_QUAD_FIRST                                                                                           \
        "b 11f\n"                                                                                                   \
        "9:\n\t"                                                                                                    \
        "ldr r2, [r0]\n\t"                                                                                          \
        "ldr lr, [r1]\n"                                                                                            \
        "10:\n\t"                                                                                                   \
        ".irp p, 0\n\t" FG_DSP_QUAD_PASS(FG_DSP_QUAD_NEXT_PIXEL, FG_DSP_QUAD_NEXT_A) ".endr\n"                      \
        "11:\n\t"                                                                                                   \
        ".irp p, " LIST "\n\t" FG_DSP_QUAD_PASS(FG_DSP_QUAD_NEXT_PIXEL, FG_DSP_QUAD_NEXT_A) ".endr\n\t"           \
        ".irp p, " LAST "\n\t"                                                                                      \
        FG_DSP_QUAD_PASS("add r0, r0, #16 * " #ROUND "\n\t", "add r1, r1, #8 * " #ROUND "\n\t") ".endr\n\t"         \
        "ldr r12, [sp, #20]\n\t"                                                                                    \
        "cmp r0, r12\n\t"                                                                                           \
        "bne 9b\n\t"                                                                                                \
        STAGE                                                                                                       \
        "bne 1b\n\t"                                                                                                \
        OUT_OF_LINE)
#define FG_DSP_QUAD_PASSES_14 "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14"
#define FG_DSP_TILE_QUAD(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_QUAD_ROUND(16, FG_DSP_QUAD_PASSES_14, "15", STAGE, FRAME, OUT_OF_LINE)
/* Rounds of 32 passes for pairs a multiple of 32: a round's end (5 instructions) every 32 pairs. */
#define FG_DSP_QUAD_PASSES_30 FG_DSP_QUAD_PASSES_14 ", 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30"
#define FG_DSP_TILE_QUAD_32(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_QUAD_ROUND(32, FG_DSP_QUAD_PASSES_30, "31", STAGE, FRAME, OUT_OF_LINE)
/* Rounds of 20 passes for pairs a multiple of 20 (the folded stems' windows of 40 taps: kws_ref_model, vww_96_int8). */
#define FG_DSP_QUAD_PASSES_18 FG_DSP_QUAD_PASSES_14 ", 15, 16, 17, 18"
#define FG_DSP_TILE_QUAD_20(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_QUAD_ROUND(20, FG_DSP_QUAD_PASSES_18, "19", STAGE, FRAME, OUT_OF_LINE)
/* The short tiles (4 to 64 input pairs, the depth 2 * pairs: LIST the passes after the first but the last, LAST the
 * last), every tile of the call in it: past a tile's last channel pair, while the frame's tiles count down, the next
 * four pixels' WORDS words (DEPTH bytes apart, from the frame's next) sign-extended into x, the table (r3 and the
 * frame's ch), w and out back to the tile's first pair (the frame's ch0, w0, and tile_out moved 4 rows on). */
#define FG_DSP_TILE_QUAD_SHORT(LIST, LAST, WORDS, DEPTH, STAGE, FRAME, OUT_OF_LINE)                               \
    FG_DSP_TILE_ASM(                                                                                                \
        "ldm %[job], {" FRAME "}\n\t"                                                                               \
        "stm sp, {" FRAME "}\n"                                                                                     \
        "7:\n\t"                                                                                                    \
        FG_DSP_QUAD_FIRST                                                                                           \
        ".irp p, " LIST "\n\t" FG_DSP_QUAD_PASS(FG_DSP_QUAD_NEXT_PIXEL, FG_DSP_QUAD_NEXT_A) ".endr\n\t"           \
        ".irp p, " LAST "\n\t" FG_DSP_QUAD_PASS("", "add r1, r1, #8 * \\p + 8\n\t") ".endr\n\t"                    \
        STAGE                                                                                                       \
        "bne 7b\n\t"                                                                                                \
        "ldr r12, [sp, #20]\n\t"                                                                                    \
        "subs r12, r12, #1\n\t"                                                                                     \
        "beq 8f\n\t"                                                                                                \
        "str r12, [sp, #20]\n\t"                                                                                    \
        "ldr lr, [sp, #24]\n\t"                                                                                     \
        "ldr r0, [sp, #12]\n\t"                                                                                     \
        ".irp k, " WORDS "\n\t"                                                                                     \
        "ldr r4, [lr, #4 * \\k]\n\t"                                                                                \
        "ldr r5, [lr, #4 * \\k + " #DEPTH "]\n\t"                                                                   \
        "ldr r6, [lr, #4 * \\k + 2 * " #DEPTH "]\n\t"                                                               \
        "ldr r7, [lr, #4 * \\k + 3 * " #DEPTH "]\n\t"                                                               \
        FG_DSP_EXTEND_FOUR_WORDS("r0", "", "", "")                                                                  \
        ".endr\n\t"                                                                                                 \
        "add lr, lr, #4 * " #DEPTH "\n\t"                                                                           \
        "str lr, [sp, #24]\n\t"                                                                                     \
        "ldr r3, [sp, #28]\n\t"                                                                                     \
        "ldr r1, [sp, #32]\n\t"                                                                                     \
        "ldr r2, [sp, #36]\n\t"                                                                                     \
        "ldr r10, [sp, #8]\n\t"                                                                                     \
        "str r3, [sp, #0]\n\t"                                                                                      \
        "add r2, r2, r10, lsl #2\n\t"                                                                               \
        "str r2, [sp, #36]\n\t"                                                                                     \
        "str r2, [sp, #4]\n\t"                                                                                      \
        "b 7b\n"                                                                                                    \
        "8:\n\t"                                                                                                    \
        OUT_OF_LINE)
#define FG_DSP_TILE_QUAD_SHORT_4(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_QUAD_SHORT("1, 2", "3", "0, 1", 8, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_QUAD_SHORT_8(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_QUAD_SHORT("1, 2, 3, 4, 5, 6", "7", "0, 1, 2, 3", 16, STAGE, FRAME, OUT_OF_LINE)
/* 16 and 32 pairs too (in_c 32 and 64): no round's end, no call a tile (the code of 32 pairs ~2.3 KB). */
#define FG_DSP_TILE_QUAD_SHORT_16(STAGE, FRAME, OUT_OF_LINE)                                                     \
    FG_DSP_TILE_QUAD_SHORT(FG_DSP_QUAD_PASSES_14, "15", "0, 1, 2, 3, 4, 5, 6, 7", 32, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_QUAD_WORDS_16 "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15"
#define FG_DSP_TILE_QUAD_SHORT_32(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_QUAD_SHORT(FG_DSP_QUAD_PASSES_30, "31", FG_DSP_QUAD_WORDS_16, 64, STAGE, FRAME, OUT_OF_LINE)
/* And 64 (in_c 128; ~5 KB of code): 9 instructions of the rounds' a channel pair fewer than in rounds of 32. */
#define FG_DSP_QUAD_PASSES_62                                                                                      \
    FG_DSP_QUAD_PASSES_30 ", 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, " \
                          "53, 54, 55, 56, 57, 58, 59, 60, 61, 62"
#define FG_DSP_QUAD_WORDS_32 FG_DSP_QUAD_WORDS_16 ", 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31"
#define FG_DSP_TILE_QUAD_SHORT_64(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_QUAD_SHORT(FG_DSP_QUAD_PASSES_62, "63", FG_DSP_QUAD_WORDS_32, 128, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_QUAD_NEXT_PIXEL "ldr r2, [r0, #16 * \\p + 16]\n\t"
#define FG_DSP_QUAD_NEXT_A "ldr lr, [r1, #8 * \\p + 8]\n\t"
/* The relu's output stage of the 4 x 2 tile (w, r1, kept: the next pair's weights follow; ne while pairs remain):
 * channel A's multiplier, offset (one LDRD) and shift in r12, lr, r0, B's in r12, lr, r2, then the stores at offsets
 * of out (r2, 1 to 3 strides: r0, r0 lsl 1, r12; out and stride one LDRD) with out moved on by each channel's first,
 * in the order hill-climbed in llvm-mca's cortex-m7 model: 32 cycles (49 with each channel's outputs in turn; 51
 * instructions with rows' pointers added and single loads, the same cycles; B's words by LDRD too: 33). */
#define FG_DSP_QUAD_RELU_STAGE(OUT)              \
    "ldr r3, [sp]\n\t"                        \
    "ldrd r12, lr, [r3]\n\t"                  \
    "ldr r0, [r3, #8]\n\t"                    \
    "smmlar r7, r7, r12, lr\n\t"              \
    "ldr r2, [r3, #24]\n\t"                   \
    "smmlar r5, r5, r12, lr\n\t"              \
    "asr r7, r7, r0\n\t"                      \
    "smmlar r6, r6, r12, lr\n\t"              \
    "asr r5, r5, r0\n\t"                      \
    "smmlar r4, r4, r12, lr\n\t"              \
    "asr r6, r6, r0\n\t"                      \
    "ldr r12, [r3, #16]\n\t"                  \
    "ldr lr, [r3, #20]\n\t"                   \
    "asr r4, r4, r0\n\t"                      \
    "ssat r7, #8, r7\n\t"                     \
    "smmlar r10, r10, r12, lr\n\t"            \
    "ssat r6, #8, r6\n\t"                     \
    "smmlar r11, r11, r12, lr\n\t"            \
    "asr r10, r10, r2\n\t"                    \
    "smmlar r9, r9, r12, lr\n\t"              \
    "asr r11, r11, r2\n\t"                    \
    "smmlar r8, r8, r12, lr\n\t"              \
    "asr r9, r9, r2\n\t"                      \
    "add r3, r3, #32\n\t"                     \
    "asr r8, r8, r2\n\t"                      \
    "str r3, [sp]\n\t"                        \
    "ldrd r2, r0, [sp, #4]\n\t"               \
    "ssat r5, #8, r5\n\t"                     \
    "add r12, r0, r0, lsl #1\n\t"             \
    "strb r5, [r2, r0]\n\t"                   \
    "ssat r4, #8, r4\n\t"                     \
    "strb r6, [r2, r0, lsl #1]\n\t"           \
    "ssat r9, #8, r9\n\t"                     \
    "strb r7, [r2, r12]\n\t"                  \
    "strb r4, [r2], #1\n\t"                   \
    "ssat r8, #8, r8\n\t"                     \
    "strb r9, [r2, r0]\n\t"                   \
    "ssat r10, #8, r10\n\t"                   \
    "ssat r11, #8, r11\n\t"                   \
    "strb r10, [r2, r0, lsl #1]\n\t"          \
    "strb r11, [r2, r12]\n\t"                 \
    "strb r8, [r2], #1\n\t"                   \
    "str r2, [sp, #4]\n\t"                    \
    "ldr lr, [sp, #16]\n\t"                   \
    "cmp r3, lr\n\t"
#define FG_DSP_QUAD_RELU_FRAME "r3, r4, r5, r6, r7, r8"
#define FG_DSP_QUAD_RELU_OUT_OF_LINE ""
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled, fg_dsp_quad_job, FG_DSP_TILE_QUAD, FG_DSP_RELU_DOUBLED,
                         QUAD_RELU)
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled_32, fg_dsp_quad_job, FG_DSP_TILE_QUAD_32, FG_DSP_RELU_DOUBLED,
                         QUAD_RELU)
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled_20, fg_dsp_quad_job, FG_DSP_TILE_QUAD_20, FG_DSP_RELU_DOUBLED,
                         QUAD_RELU)
/* The short ones: the frame all of fg_dsp_quad_job. */
#define FG_DSP_QUAD_SHORT_RELU_STAGE FG_DSP_QUAD_RELU_STAGE
#define FG_DSP_QUAD_SHORT_RELU_FRAME "r3, r4, r5, r6, r7, r8, r9, r10, r11, r12"
#define FG_DSP_QUAD_SHORT_RELU_OUT_OF_LINE ""
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled_4, fg_dsp_quad_job, FG_DSP_TILE_QUAD_SHORT_4,
                         FG_DSP_RELU_DOUBLED, QUAD_SHORT_RELU)
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled_8, fg_dsp_quad_job, FG_DSP_TILE_QUAD_SHORT_8,
                         FG_DSP_RELU_DOUBLED, QUAD_SHORT_RELU)
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled_16, fg_dsp_quad_job, FG_DSP_TILE_QUAD_SHORT_16,
                         FG_DSP_RELU_DOUBLED, QUAD_SHORT_RELU)
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled_32s, fg_dsp_quad_job, FG_DSP_TILE_QUAD_SHORT_32,
                         FG_DSP_RELU_DOUBLED, QUAD_SHORT_RELU)
FG_DSP_TILE_JOB_FUNCTION(fg_dsp_quad_store_relu_doubled_64s, fg_dsp_quad_job, FG_DSP_TILE_QUAD_SHORT_64,
                         FG_DSP_RELU_DOUBLED, QUAD_SHORT_RELU)
#else  /* the relu's two channel pairs a round (the loop's code within ~0.8 KB: the L4R5's ART caches 1 KB) */
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_4, FG_DSP_TILE_SHORT_PAIRED_4, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_8, FG_DSP_TILE_SHORT_PAIRED_8, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_16, FG_DSP_TILE_SHORT_16, FG_DSP_NARROW_DOUBLED, CLAMPING)
#if FG_DSP_DEEP_SHORT_STORES  /* the M33: the relu's two channel pairs a round at 16, 32 and 64 pairs too */
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_16, FG_DSP_TILE_SHORT_PAIRED_16, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_32, FG_DSP_TILE_SHORT_32, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_32, FG_DSP_TILE_SHORT_PAIRED_32, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_64, FG_DSP_TILE_SHORT_64, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_64, FG_DSP_TILE_SHORT_PAIRED_64, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
#else
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_16, FG_DSP_TILE_SHORT_16, FG_DSP_RELU_DOUBLED, RELU)
#endif
#endif

#endif
