#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"
#include "fg/isa/dsp_ring.h"
#include "fg/support/weights_s4.h"

/* Four channels at a time (a group), the whole image: the input rows a window needs are sign-extended into a band
 * of rows on the stack, each pixel's four channels as the two words SXTB16 gives, (c, c + 2) and (c + 1, c + 3).
 * The padding holds the input zero point, so every window reads the band the same way: its nine taps and the
 * group's 18 weight words sit at offsets known to the assembler (loads with an immediate offset). The band holds the
 * input rows of a block of output rows (fg_dsp_dw_ring_group), which run in one call; only the rows two blocks share
 * are extended again. A small image is extended whole instead, and all its output rows run in one call. */

/* A group's table (ops/variants/dsp_window.py's ring_groups), in halves: half h (channels h and h + 2, the word of each
 * ring pixel at byte 4h) at word FG_DSP_DW_QUAD_WORDS * h: the two channels' doubled biases (words 0, 1), channel h's
 * and channel h + 2's multiplier, offset and shift (words 2 .. 7), then tap t's doubled weight pair (w_t[h],
 * w_t[h + 2]) at word 8 + t (t = 3i + j). The quad kernel copies one half whole; the pair kernel reads both. */
#define FG_DSP_DW_QUAD_WORDS 17
#define FG_DSP_DW_RING_GROUP_WORDS (2 * FG_DSP_DW_QUAD_WORDS)
/* Byte offset of channel j's multiplier (then offset, shift) in the group's table. */
#define FG_DSP_DW_CONSTANTS(j) "(68 * (" #j " & 1) + 8 + 12 * (" #j " >> 1))"
#define FG_DSP_DW_RING_ROW (8 * FG_DSP_DW_RING_COLUMNS)  /* bytes of a ring row */
#define FG_DSP_DW_RING_ROW_S FG_DSP_RING_XSTR(FG_DSP_DW_RING_ROW)
/* A small image (at most FG_DSP_DW_SMALL_COLUMNS padded columns and FG_DSP_DW_SMALL_ROWS padded rows) is extended
 * whole, group by group, and run in one call; its rows FG_DSP_DW_SMALL_ROW bytes apart. 25 x 28 (5,600 bytes of
 * stack, 3,136 at 14 x 28): vww_96_int8's 24 x 24 input of stride 2 whole instead of row by row (ESTIMATED M33
 * 199,318 -> 152,186 cycles, M4 201,018 -> 152,566, M7 107,831 -> 85,529), and still kws_ref_model's 25 x 5 (27 rows
 * padded: through the band its layers cost M33 214 K -> 291 K each). */
#define FG_DSP_DW_SMALL_COLUMNS 25
#define FG_DSP_DW_SMALL_ROWS 28
#define FG_DSP_DW_SMALL_ROW (8 * FG_DSP_DW_SMALL_COLUMNS)
#define FG_DSP_DW_SMALL_ROW_S FG_DSP_RING_XSTR(FG_DSP_DW_SMALL_ROW)
#define FG_DSP_DW_RING_WORDS (FG_DSP_DW_SMALL_ROWS * FG_DSP_DW_SMALL_ROW / 4)
#define FG_DSP_DW_BAND_ROWS (4 * FG_DSP_DW_RING_WORDS / FG_DSP_DW_RING_ROW)  /* ring rows the buffer holds: 11 */

/* Words a and b from base + off (both strings): by LDRD on the M7 (FG_CORE_CORTEX_M7), by two LDR on the M4 and M33,
 * where a load after an LDRD does not pipeline (LDRD 3 cycles and the next LDR 2, two LDR in a run of loads 2); LDR's
 * immediate offset reaches 4095, LDRD's 1020. */
#if defined(FG_CORE_CORTEX_M7)
#define FG_DSP_DW_LOAD2(a, b, base, off) "ldrd " a ", " b ", [" base ", #(" off ")]\n\t"
#else
#define FG_DSP_DW_LOAD2(a, b, base, off) \
    "ldr " a ", [" base ", #(" off ")]\n\t" "ldr " b ", [" base ", #(4 + " off ")]\n\t"
#endif
/* Tap (i, j) of a window whose rows are `pitch` bytes apart. */
#define FG_DSP_DW_RING_TAP(pitch, i, j)                                                  \
    FG_DSP_DW_LOAD2("r8", "r9", "%[x]", #i " * " pitch " + 8 * " #j)                    \
    "ldr r10, [%[w], #(32 + 4 * (3 * " #i " + " #j "))]\n\t"                          \
    "ldr r11, [%[w], #(100 + 4 * (3 * " #i " + " #j "))]\n\t"                         \
    "smlabb r4, r8, r10, r4\n\t"                                                       \
    "smlatt r6, r8, r10, r6\n\t"                                                       \
    "smlabb r5, r9, r11, r5\n\t"                                                       \
    "smlatt r7, r9, r11, r7\n\t"
#define FG_DSP_DW_RING_ROW_TAPS(pitch, i) \
    FG_DSP_DW_RING_TAP(pitch, i, 0) FG_DSP_DW_RING_TAP(pitch, i, 1) FG_DSP_DW_RING_TAP(pitch, i, 2)
#define FG_DSP_DW_RING_TAPS(pitch) \
    FG_DSP_DW_RING_ROW_TAPS(pitch, 0) FG_DSP_DW_RING_ROW_TAPS(pitch, 1) FG_DSP_DW_RING_ROW_TAPS(pitch, 2)

/* What FG_DSP_DW_PAIR_ASM reads at job. */
typedef struct {
    fg_dsp_ring_job ring;  /* step, count, rows and the windows' skip (fg/isa/dsp_ring.h) */
    int32_t out_skip;      /* bytes from the end of a row's outputs to the next row's first */
} fg_dsp_dw_pair_job;

/* Two horizontally adjacent pixels of stride 1 (the first's channels in r4 .. r7, the second's in r8 .. r11) read
 * four columns per window row: per row 4 pairs of inputs (FG_DSP_DW_LOAD2) and 3 of weights, each weight pair applied
 * to both pixels. */
#define FG_DSP_DW_PAIR_SMLA(a0, a1, a2, a3)       \
    "smlabb " a0 ", r2, r12, " a0 "\n\t"          \
    "smlatt " a2 ", r2, r12, " a2 "\n\t"          \
    "smlabb " a1 ", r3, lr, " a1 "\n\t"           \
    "smlatt " a3 ", r3, lr, " a3 "\n\t"
#define FG_DSP_DW_PAIR_FIRST FG_DSP_DW_PAIR_SMLA("r4", "r5", "r6", "r7")
#define FG_DSP_DW_PAIR_SECOND FG_DSP_DW_PAIR_SMLA("r8", "r9", "r10", "r11")
#define FG_DSP_DW_PAIR_COLUMN(pitch, i, j) FG_DSP_DW_LOAD2("r2", "r3", "%[x]", #i " * " pitch " + 8 * " #j)
#define FG_DSP_DW_PAIR_WEIGHT(i, j)                                  \
    "ldr r12, [%[w], #(32 + 4 * (3 * " #i " + " #j "))]\n\t"          \
    "ldr lr, [%[w], #(100 + 4 * (3 * " #i " + " #j "))]\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The M7's order of the three (FG_CORE_CORTEX_M7; same MACs in the same order): LDRD issues alone in llvm-mca's
 * cortex-m7 model and a single LDR beside a MAC, so each input and weight word loads alone between two MACs of the
 * unit before the one that reads it, as soon as its register is free: a FIRST (r4 .. r7) loads the next column's
 * inputs (r2, r3), a SECOND (r8 .. r11) the next weights (r12, lr) or, where both change (a new row or column, stride
 * 2's odd columns), the next inputs and the low weight word, the FIRST after it the high one (E). The third window row
 * at its own offset (LDR's reaches 4095). */
#define FG_DSP_DW_PSMLA(a0, a1, a2, a3, L1, L2, L3, L4)                                      \
    "smlabb " a0 ", r2, r12, " a0 "\n\t" L1 "smlatt " a2 ", r2, r12, " a2 "\n\t" L2           \
    "smlabb " a1 ", r3, lr, " a1 "\n\t" L3 "smlatt " a3 ", r3, lr, " a3 "\n\t" L4
#define FG_DSP_DW_PX(pitch, r, c, h, reg) "ldr " reg ", [%[x], #(" #r " * " pitch " + 8 * " #c " + " #h ")]\n\t"
#define FG_DSP_DW_PW(i, j, reg, base) "ldr " reg ", [%[w], #(" #base " + 4 * (3 * " #i " + " #j "))]\n\t"
#define FG_DSP_DW_PFS(E, pitch, r, c) \
    FG_DSP_DW_PSMLA("r4", "r5", "r6", "r7", E, FG_DSP_DW_PX(pitch, r, c, 0, "r2"), "", FG_DSP_DW_PX(pitch, r, c, 4, "r3"))
#define FG_DSP_DW_PSS(i, j) \
    FG_DSP_DW_PSMLA("r8", "r9", "r10", "r11", "", FG_DSP_DW_PW(i, j, "r12", 32), "", FG_DSP_DW_PW(i, j, "lr", 100))
#define FG_DSP_DW_PSN(N1, N2, N3) FG_DSP_DW_PSMLA("r8", "r9", "r10", "r11", "", N1, N2, N3)
#define FG_DSP_DW_PSN_(...) FG_DSP_DW_PSN(__VA_ARGS__)
/* Column c of image row r and the weights (i, j) next: N1 .. N3 of a SECOND, and E. */
#define FG_DSP_DW_PNEXT(pitch, r, c, i, j) \
    FG_DSP_DW_PX(pitch, r, c, 0, "r2"), FG_DSP_DW_PW(i, j, "r12", 32), FG_DSP_DW_PX(pitch, r, c, 4, "r3")
#define FG_DSP_DW_PE(i, j) FG_DSP_DW_PW(i, j, "lr", 100)
#define FG_DSP_DW_PSTART(pitch)                                                                  \
    FG_DSP_DW_PX(pitch, 0, 0, 0, "r2") FG_DSP_DW_PW(0, 0, "r12", 32) FG_DSP_DW_PX(pitch, 0, 0, 4, "r3") \
    FG_DSP_DW_PE(0, 0)
#define FG_DSP_DW_PAIR_ROW_TAPS(pitch, i, E, ...)                                                  \
    FG_DSP_DW_PFS(E, pitch, i, 1) FG_DSP_DW_PSS(i, 1) FG_DSP_DW_PFS("", pitch, i, 2) FG_DSP_DW_PSS(i, 2) \
    FG_DSP_DW_PFS("", pitch, i, 3) FG_DSP_DW_PSN_(__VA_ARGS__)
#define FG_DSP_DW_PAIR_TAPS(pitch)                                                               \
    FG_DSP_DW_PSTART(pitch) FG_DSP_DW_PAIR_ROW_TAPS(pitch, 0, "", FG_DSP_DW_PNEXT(pitch, 1, 0, 1, 0)) \
    FG_DSP_DW_PAIR_ROW_TAPS(pitch, 1, FG_DSP_DW_PE(1, 0), FG_DSP_DW_PNEXT(pitch, 2, 0, 2, 0))        \
    FG_DSP_DW_PAIR_ROW_TAPS(pitch, 2, FG_DSP_DW_PE(2, 0), FG_DSP_DW_PAIR_OUT_PRELOAD)
#define FG_DSP_DW_PAIR2_ROW_TAPS(pitch, i, E, ...)                                                 \
    FG_DSP_DW_PFS(E, pitch, i, 2) FG_DSP_DW_PSS(i, 2) FG_DSP_DW_PFS("", pitch, i, 4)                \
    FG_DSP_DW_PSN_(FG_DSP_DW_PNEXT(pitch, i, 1, i, 1)) FG_DSP_DW_PFS(FG_DSP_DW_PE(i, 1), pitch, i, 3) \
    FG_DSP_DW_PSN_(__VA_ARGS__)
#define FG_DSP_DW_PAIR2_TAPS(pitch)                                                              \
    FG_DSP_DW_PSTART(pitch) FG_DSP_DW_PAIR2_ROW_TAPS(pitch, 0, "", FG_DSP_DW_PNEXT(pitch, 1, 0, 1, 0)) \
    FG_DSP_DW_PAIR2_ROW_TAPS(pitch, 1, FG_DSP_DW_PE(1, 0), FG_DSP_DW_PNEXT(pitch, 2, 0, 2, 0))        \
    FG_DSP_DW_PAIR2_ROW_TAPS(pitch, 2, FG_DSP_DW_PE(2, 0), FG_DSP_DW_PAIR_OUT_PRELOAD)
#define FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, j, E, ...)                                              \
    FG_DSP_DW_PFS(E, pitch, 1, j) FG_DSP_DW_PSS(1, j) FG_DSP_DW_PFS("", pitch, 2, j) FG_DSP_DW_PSS(2, j) \
    FG_DSP_DW_PFS("", pitch, 3, j) FG_DSP_DW_PSN_(__VA_ARGS__)
#define FG_DSP_DW_VPAIR_TAPS(pitch)                                                              \
    FG_DSP_DW_PSTART(pitch) FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, 0, "", FG_DSP_DW_PNEXT(pitch, 0, 1, 0, 1)) \
    FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, 1, FG_DSP_DW_PE(0, 1), FG_DSP_DW_PNEXT(pitch, 0, 2, 0, 2))        \
    FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, 2, FG_DSP_DW_PE(0, 2), FG_DSP_DW_PAIR_OUT_PRELOAD)
#else
#define FG_DSP_DW_PAIR_ROW_TAPS(pitch, i)                                                                  \
    FG_DSP_DW_PAIR_COLUMN(pitch, i, 0) FG_DSP_DW_PAIR_WEIGHT(i, 0) FG_DSP_DW_PAIR_FIRST                   \
    FG_DSP_DW_PAIR_COLUMN(pitch, i, 1) FG_DSP_DW_PAIR_SECOND FG_DSP_DW_PAIR_WEIGHT(i, 1) FG_DSP_DW_PAIR_FIRST \
    FG_DSP_DW_PAIR_COLUMN(pitch, i, 2) FG_DSP_DW_PAIR_SECOND FG_DSP_DW_PAIR_WEIGHT(i, 2) FG_DSP_DW_PAIR_FIRST \
    FG_DSP_DW_PAIR_COLUMN(pitch, i, 3) FG_DSP_DW_PAIR_SECOND
#define FG_DSP_DW_PAIR_TAPS(pitch) \
    FG_DSP_DW_PAIR_ROW_TAPS(pitch, 0) FG_DSP_DW_PAIR_ROW_TAPS(pitch, 1) FG_DSP_DW_PAIR_ROW_TAPS(pitch, 2)
/* Stride 2: the pixels share one column of each window row (the first's column 2, the second's 0): 5 pairs of inputs
 * and 3 of weights per row. Row r of the image at x, the weights' row i. */
#define FG_DSP_DW_PAIR2_ROW_TAPS(pitch, r, i)                                                              \
    FG_DSP_DW_PAIR_COLUMN(pitch, r, 0) FG_DSP_DW_PAIR_WEIGHT(i, 0) FG_DSP_DW_PAIR_FIRST                   \
    FG_DSP_DW_PAIR_COLUMN(pitch, r, 2) FG_DSP_DW_PAIR_SECOND FG_DSP_DW_PAIR_WEIGHT(i, 2) FG_DSP_DW_PAIR_FIRST \
    FG_DSP_DW_PAIR_COLUMN(pitch, r, 4) FG_DSP_DW_PAIR_SECOND                                              \
    FG_DSP_DW_PAIR_COLUMN(pitch, r, 1) FG_DSP_DW_PAIR_WEIGHT(i, 1) FG_DSP_DW_PAIR_FIRST                   \
    FG_DSP_DW_PAIR_COLUMN(pitch, r, 3) FG_DSP_DW_PAIR_SECOND
#define FG_DSP_DW_PAIR2_TAPS(pitch)                                                                  \
    FG_DSP_DW_PAIR2_ROW_TAPS(pitch, 0, 0) FG_DSP_DW_PAIR2_ROW_TAPS(pitch, 1, 1) FG_DSP_DW_PAIR2_ROW_TAPS(pitch, 2, 2)

/* A small image's column (stride 1): the second pixel one row down, sharing two rows of each window column. */
#define FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, j)                                                              \
    FG_DSP_DW_PAIR_COLUMN(pitch, 0, j) FG_DSP_DW_PAIR_WEIGHT(0, j) FG_DSP_DW_PAIR_FIRST                   \
    FG_DSP_DW_PAIR_COLUMN(pitch, 1, j) FG_DSP_DW_PAIR_SECOND FG_DSP_DW_PAIR_WEIGHT(1, j) FG_DSP_DW_PAIR_FIRST \
    FG_DSP_DW_PAIR_COLUMN(pitch, 2, j) FG_DSP_DW_PAIR_SECOND FG_DSP_DW_PAIR_WEIGHT(2, j) FG_DSP_DW_PAIR_FIRST \
    FG_DSP_DW_PAIR_COLUMN(pitch, 3, j) FG_DSP_DW_PAIR_SECOND
#define FG_DSP_DW_VPAIR_TAPS(pitch) \
    FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, 0) FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, 1) FG_DSP_DW_VPAIR_COLUMN_TAPS(pitch, 2)
#endif
/* Channel j's two outputs a (stored at lr + j) and b (kept for the second pixel's stores): its multiplier, offset and
 * shift by three LDR that pipeline behind the previous channel's STRB, then OUT of both. */
#define FG_DSP_DW_PAIR_CHANNEL(OUT, a, b, j)                  \
    "ldr r2, [%[w], #" FG_DSP_DW_CONSTANTS(j) "]\n\t"        \
    "ldr r3, [%[w], #(4 + " FG_DSP_DW_CONSTANTS(j) ")]\n\t"  \
    "ldr r12, [%[w], #(8 + " FG_DSP_DW_CONSTANTS(j) ")]\n\t" \
    OUT(a) OUT(b)                                            \
    "strb " a ", [lr, #" #j "]\n\t"
/* Channel j's one output (the last pixel of an odd row): FG_DSP_RING_OUT's and FG_DSP_RING_OUT_RELU's (fg/isa/dsp_ring.h)
 * arithmetic, its constants by three LDR at the halves' layout's offsets instead of an LDM of the shared one. */
#define FG_DSP_DW_ONE_LOAD(j)                                  \
    "ldr r8, [%[w], #" FG_DSP_DW_CONSTANTS(j) "]\n\t"          \
    "ldr r9, [%[w], #(4 + " FG_DSP_DW_CONSTANTS(j) ")]\n\t"    \
    "ldr r10, [%[w], #(8 + " FG_DSP_DW_CONSTANTS(j) ")]\n\t"
#define FG_DSP_DW_ONE_OUT(acc, j) FG_DSP_DW_ONE_LOAD(j) FG_DSP_RING_REQUANT(acc, j)
#define FG_DSP_DW_ONE_OUT_RELU(acc, j) FG_DSP_DW_ONE_LOAD(j) FG_DSP_RING_REQUANT_RELU(acc, j)
/* The output stage's steps on one accumulator (multiplier r2, offset r3, shift r12). */
#define FG_DSP_DW_SMMULR(acc) "smmulr " acc ", " acc ", r2\n\t"
#define FG_DSP_DW_CORRECT(acc) "add " acc ", " acc ", " acc ", asr #31\n\t"
#define FG_DSP_DW_OFFSET(acc) "add " acc ", " acc ", r3\n\t"
#define FG_DSP_DW_SMMLAR(acc) "smmlar " acc ", " acc ", r2, r3\n\t"
#define FG_DSP_DW_SHIFT(acc) "asr " acc ", " acc ", r12\n\t"
#define FG_DSP_DW_SSAT(acc) "ssat " acc ", #8, " acc "\n\t"
/* SMMULR, the offset and the rounding correction of negative values (FG_DSP_RING_OUT's), shift, SSAT. */
#define FG_DSP_DW_PAIR_OUT(acc) \
    FG_DSP_DW_SMMULR(acc) FG_DSP_DW_CORRECT(acc) FG_DSP_DW_OFFSET(acc) FG_DSP_DW_SHIFT(acc) FG_DSP_DW_SSAT(acc)
/* Without the correction (FG_DSP_RING_OUT_RELU's). */
#define FG_DSP_DW_PAIR_OUT_RELU(acc) FG_DSP_DW_SMMLAR(acc) FG_DSP_DW_SHIFT(acc) FG_DSP_DW_SSAT(acc)

#if defined(FG_CORE_CORTEX_M7)
/* The M7's output stage of a pair (FG_CORE_CORTEX_M7; FG_DSP_DW_PAIR_CHANNEL's arithmetic): channel j's multiplier
 * and offset in r2, r3 (loaded once channel j - 1's first step is done) and its shift in r12 or lr (a channel ahead;
 * the taps' last gaps load channel 0's), each channel's SSATs beside the next one's high multiplies; then out in lr
 * and the first pixel's stores beside the last SSATs. */
#define FG_DSP_DW_PAIR_K(r, j, c) "ldr " r ", [%[w], #(" #c " + " FG_DSP_DW_CONSTANTS(j) ")]\n\t"
#define FG_DSP_DW_PAIR_OUT_PRELOAD \
    FG_DSP_DW_PAIR_K("r2", 0, 0), FG_DSP_DW_PAIR_K("r12", 0, 8), FG_DSP_DW_PAIR_K("r3", 0, 4)
#define FG_DSP_DW_PAIR_OUT_FIRST(a, b)                                                       \
    "smmulr " a ", " a ", r2\n\t" "smmulr " b ", " b ", r2\n\t"                            \
    "add " a ", " a ", " a ", asr #31\n\t" "add " b ", " b ", " b ", asr #31\n\t"          \
    "add " a ", " a ", r3\n\t" "add " b ", " b ", r3\n\t"
#define FG_DSP_DW_PAIR_OUT_RELU_FIRST(a, b) "smmlar " a ", " a ", r2, r3\n\t" "smmlar " b ", " b ", r2, r3\n\t"
#define FG_DSP_DW_PAIR_SHIFT(a, b, sh, j)                                                    \
    "asr " a ", " a ", " sh "\n\t" FG_DSP_DW_PAIR_K("r2", j, 0)                              \
    "asr " b ", " b ", " sh "\n\t" FG_DSP_DW_PAIR_K("r3", j, 4)
#define FG_DSP_DW_PAIR_SSAT(a, b) "ssat " a ", #8, " a "\n\t" "ssat " b ", #8, " b "\n\t"
#define FG_DSP_DW_PAIR_OUTS_M7(FIRST)                                                        \
    FG_DSP_DW_PAIR_K("lr", 1, 8) FIRST("r4", "r8") FG_DSP_DW_PAIR_SHIFT("r4", "r8", "r12", 1) \
    FG_DSP_DW_PAIR_K("r12", 2, 8) FIRST("r5", "r9") FG_DSP_DW_PAIR_SSAT("r4", "r8")           \
    FG_DSP_DW_PAIR_SHIFT("r5", "r9", "lr", 2)                                                 \
    FG_DSP_DW_PAIR_K("lr", 3, 8) FIRST("r6", "r10") FG_DSP_DW_PAIR_SSAT("r5", "r9")           \
    FG_DSP_DW_PAIR_SHIFT("r6", "r10", "r12", 3)                                               \
    FIRST("r7", "r11") FG_DSP_DW_PAIR_SSAT("r6", "r10")                                       \
    "asr r7, r7, lr\n\t" "asr r11, r11, lr\n\t" "ldr lr, [sp, #12]\n\t"                      \
    "ssat r7, #8, r7\n\t" "strb r4, [lr]\n\t" "ssat r11, #8, r11\n\t" "strb r5, [lr, #1]\n\t" \
    "strb r6, [lr, #2]\n\t" "strb r7, [lr, #3]\n\t"
#define FG_DSP_DW_PAIR_OUTS(PAIR_OUT) FG_DSP_DW_PAIR_OUTS_M7(PAIR_OUT##_FIRST)
#else
#define FG_DSP_DW_PAIR_OUTS(PAIR_OUT)                                                                                 \
        "ldr lr, [sp, #12]\n\t"                                                                                       \
        FG_DSP_DW_PAIR_CHANNEL(PAIR_OUT, "r4", "r8", 0) FG_DSP_DW_PAIR_CHANNEL(PAIR_OUT, "r5", "r9", 1)               \
        FG_DSP_DW_PAIR_CHANNEL(PAIR_OUT, "r6", "r10", 2) FG_DSP_DW_PAIR_CHANNEL(PAIR_OUT, "r7", "r11", 3)
#endif
/* job's rows, each as pairs of pixels (PAIR_TAPS, the biases by two FG_DSP_DW_LOAD2 and four MOV; x advances `pair`
 * bytes), then an odd count's last pixel (TAPS, OUT; `one` bytes); the next row's outputs out_skip bytes on. The
 * frame: (a word unused), rows left, step, out, the end of the row's pairs' outputs, their span, skip, out_skip, the
 * odd pixel (0 or 1), all read from job once. It is the caller's local `uint32_t frame[10]` (so that its frame size
 * in the call graph counts it), which the assembler checks is at sp, as FG_DSP_TILE_STORE's (fg/isa/dsp.h). */
#define FG_DSP_DW_PAIR_ASM(pitch, PAIR_TAPS, pair, one, PAIR_OUT, OUT)                                                \
    __asm__ volatile(                                                                                                 \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t"                   \
        "ldm %[job], {r2, r4-r7}\n\t"                                                                                 \
        "asrs r8, r4, #1\n\t"                                                                                         \
        "and r9, r4, #1\n\t"                                                                                          \
        "mul r8, r8, r2\n\t"                                                                                          \
        "lsl r8, r8, #1\n\t"                                                                                          \
        "str r5, [sp, #4]\n\t"                                                                                        \
        "str r2, [sp, #8]\n\t"                                                                                        \
        "str %[out], [sp, #12]\n\t"                                                                                   \
        "str r8, [sp, #20]\n\t"                                                                                       \
        "str r6, [sp, #24]\n\t"                                                                                       \
        "str r7, [sp, #28]\n\t"                                                                                       \
        "str r9, [sp, #32]\n"                                                                                         \
        "2:\n\t"                                                                                                      \
        "ldr r2, [sp, #20]\n\t"                                                                                       \
        "ldr lr, [sp, #12]\n\t"                                                                                       \
        "cmp r2, #0\n\t"                                                                                              \
        "beq 4f\n\t"                                                                                                  \
        "add lr, lr, r2\n\t"                                                                                          \
        "str lr, [sp, #16]\n"                                                                                         \
        "1:\n\t"                                                                                                      \
        FG_DSP_DW_LOAD2("r4", "r6", "%[w]", "0")                                                                      \
        FG_DSP_DW_LOAD2("r5", "r7", "%[w]", "68")                                                                     \
        "mov r8, r4\n\t"                                                                                              \
        "mov r9, r5\n\t"                                                                                              \
        "mov r10, r6\n\t"                                                                                             \
        "mov r11, r7\n\t"                                                                                             \
        PAIR_TAPS                                                                                                     \
        FG_DSP_DW_PAIR_OUTS(PAIR_OUT)                                                                                 \
        "ldr r2, [sp, #8]\n\t"                                                                                        \
        "add r4, lr, r2\n\t"                                                                                          \
        "add lr, r4, r2\n\t"                                                                                          \
        "strb r8, [r4]\n\t"                                                                                           \
        "strb r9, [r4, #1]\n\t"                                                                                       \
        "strb r10, [r4, #2]\n\t"                                                                                      \
        "strb r11, [r4, #3]\n\t"                                                                                      \
        "str lr, [sp, #12]\n\t"                                                                                       \
        "ldr r2, [sp, #16]\n\t"                                                                                       \
        "add %[x], %[x], #" pair "\n\t"                                                                               \
        "cmp lr, r2\n\t"                                                                                              \
        "bne 1b\n"                                                                                                    \
        "4:\n\t"                                                                                                      \
        "ldr r2, [sp, #32]\n\t"                                                                                       \
        "cmp r2, #0\n\t"                                                                                              \
        "beq 5f\n\t"                                                                                                  \
        "ldr %[out], [sp, #12]\n\t"                                                                                   \
        FG_DSP_DW_LOAD2("r4", "r6", "%[w]", "0")                                                                      \
        FG_DSP_DW_LOAD2("r5", "r7", "%[w]", "68")                                                                     \
        FG_DSP_DW_RING_TAPS(pitch)                                                                                    \
        OUT("r4", 0) OUT("r5", 1) OUT("r6", 2) OUT("r7", 3)                                                           \
        "add %[x], %[x], #" one "\n\t"                                                                                \
        "ldr r2, [sp, #8]\n\t"                                                                                        \
        "add %[out], %[out], r2\n\t"                                                                                  \
        "str %[out], [sp, #12]\n"                                                                                     \
        "5:\n\t"                                                                                                      \
        "ldr r2, [sp, #24]\n\t"                                                                                       \
        "ldr r12, [sp, #28]\n\t"                                                                                      \
        "ldr lr, [sp, #12]\n\t"                                                                                       \
        "ldr r4, [sp, #4]\n\t"                                                                                        \
        "add %[x], %[x], r2\n\t"                                                                                      \
        "add lr, lr, r12\n\t"                                                                                         \
        "subs r4, r4, #1\n\t"                                                                                         \
        "str lr, [sp, #12]\n\t"                                                                                       \
        "str r4, [sp, #4]\n\t"                                                                                        \
        "bne 2b\n\t"                                                                                                  \
        "ldr %[out], [sp, #12]\n\t"                                                                                   \
        : [x] "+r"(rx), [out] "+r"(ro), [job] "+r"(rj), [frame] "=m"(frame)                                           \
        : [w] "r"(rw)                                                                                                 \
        : "r2", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory")

#define FG_DSP_DW_RING_ROWS(PAIR_OUT, OUT, pitch)                                          \
    if (stride == 1) {                                                                     \
        FG_DSP_DW_PAIR_ASM(pitch, FG_DSP_DW_PAIR_TAPS(pitch), "16", "8", PAIR_OUT, OUT);   \
    } else {                                                                               \
        FG_DSP_DW_PAIR_ASM(pitch, FG_DSP_DW_PAIR2_TAPS(pitch), "32", "16", PAIR_OUT, OUT); \
    }

/* Output rows of one group, two pixels per pass (FG_DSP_DW_PAIR_ASM): per window row 4 (stride 1) or 5 (stride 2)
 * pairs of inputs (FG_DSP_DW_LOAD2) and 3 LDR pairs of weights for 24 SMLAxy, each channel's constants loaded once for
 * both pixels; an odd row's last pixel alone, 9 x (a pair + 2 LDR + 4 SMLAxy), the biases by two pairs, and per output
 * 3 LDR of its constants and 4 (relu) or 6 more. Rows of four pixels or more run their first multiple of four on the
 * quad kernel (fg_dsp_dw_rows), this the rest.
 * x: the first window's top left, its rows a ring row apart (small: FG_DSP_DW_SMALL_ROW bytes apart); stride:
 * stride_w, 1 or 2, or 0 for a small image's column of stride 1 (job's one row: its pixels down the column, paired
 * by FG_DSP_DW_VPAIR_TAPS). */
static __attribute__((noinline)) void fg_dsp_dw_ring_rows(const uint32_t *x, const uint32_t *w, int8_t *out,
                                                          const fg_dsp_dw_pair_job *job, int relu, int stride,
                                                          int small) {
    register const uint32_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    register int8_t *ro __asm__("r3") = out;
    register const fg_dsp_dw_pair_job *rj __asm__("r12") = job;
    uint32_t frame[10];  /* FG_DSP_DW_PAIR_ASM's, at sp */
    if (small && stride == 0 && relu) {
        FG_DSP_DW_PAIR_ASM(FG_DSP_DW_SMALL_ROW_S, FG_DSP_DW_VPAIR_TAPS(FG_DSP_DW_SMALL_ROW_S),
                           "(2 * " FG_DSP_DW_SMALL_ROW_S ")", FG_DSP_DW_SMALL_ROW_S, FG_DSP_DW_PAIR_OUT_RELU,
                           FG_DSP_DW_ONE_OUT_RELU);
    } else if (small && stride == 0) {
        FG_DSP_DW_PAIR_ASM(FG_DSP_DW_SMALL_ROW_S, FG_DSP_DW_VPAIR_TAPS(FG_DSP_DW_SMALL_ROW_S),
                           "(2 * " FG_DSP_DW_SMALL_ROW_S ")", FG_DSP_DW_SMALL_ROW_S, FG_DSP_DW_PAIR_OUT,
                           FG_DSP_DW_ONE_OUT);
    } else if (small && relu) {
        FG_DSP_DW_RING_ROWS(FG_DSP_DW_PAIR_OUT_RELU, FG_DSP_DW_ONE_OUT_RELU, FG_DSP_DW_SMALL_ROW_S)
    } else if (small) {
        FG_DSP_DW_RING_ROWS(FG_DSP_DW_PAIR_OUT, FG_DSP_DW_ONE_OUT, FG_DSP_DW_SMALL_ROW_S)
    } else if (relu) {
        FG_DSP_DW_RING_ROWS(FG_DSP_DW_PAIR_OUT_RELU, FG_DSP_DW_ONE_OUT_RELU, FG_DSP_DW_RING_ROW_S)
    } else {
        FG_DSP_DW_RING_ROWS(FG_DSP_DW_PAIR_OUT, FG_DSP_DW_ONE_OUT, FG_DSP_DW_RING_ROW_S)
    }
}
/* Four pixels of one half of the group per pass (the quad kernel): the half's two channels h and h + 2, whose int16
 * pairs are one word of each ring pixel (x + 4h), in r4 .. r7 (channel h, pixels 0 .. 3) and r8 .. r11 (channel
 * h + 2). Per window line the line's three weight words by 3 LDR from the frame, then its six (stride 2: nine)
 * input words two LDR at a time (r1, lr), each applied by SMLABB/SMLATT to every pixel that reads it: 9 (stride 2:
 * 12) loads per 24 MACs, against the pair kernel's 7 LDRD. The half's table (FG_DSP_DW_QUAD_WORDS words, built once
 * per group by fg_dsp_dw_quad_table) is copied into the frame, so the weights need no pointer: its two doubled biases
 * (words 0, 1), channel h's and channel h + 2's multiplier, offset and shift (words 2 .. 7), the weight words of taps
 * (i, j) at word 8 + 3i + j. The first touch of each pixel in the first line adds the bias from r7 / r11 (the last
 * pixel's registers, which are its first touch's own), so no MOV copies them. The four pixels' eight outputs by 8
 * STRB back to back (register offsets: out, + step, + 2 step, + 3 step). */
#define FG_DSP_DW_QH(pitch, i, k) "(" #i " * " pitch " + 8 * " #k ")"  /* line i is window row i, k along it */
#define FG_DSP_DW_QV(pitch, i, k) "(" #k " * " pitch " + 8 * " #i ")"  /* line i is window column i, k down it */
#define FG_DSP_DW_QWH(i, t) "(32 + 12 * " #i " + 4 * " #t ")"  /* tap (i, t) */
#define FG_DSP_DW_QWV(i, t) "(32 + 4 * " #i " + 12 * " #t ")"  /* tap (t, i) */
#define FG_DSP_DW_QM(a, b, xr, wr) \
    "smlabb " a ", " xr ", " wr ", " a "\n\t" "smlatt " b ", " xr ", " wr ", " b "\n\t"
#define FG_DSP_DW_QF(a, b, xr, wr) \
    "smlabb " a ", " xr ", " wr ", r7\n\t" "smlatt " b ", " xr ", " wr ", r11\n\t"
#define FG_DSP_DW_QW(WO, i)                          \
    "ldr r2, [sp, #" WO(i, 0) "]\n\t"               \
    "ldr r3, [sp, #" WO(i, 1) "]\n\t"               \
    "ldr r12, [sp, #" WO(i, 2) "]\n\t"
#define FG_DSP_DW_QX(XO, pitch, i, k0, k1)                    \
    "ldr r1, [%[x], #" XO(pitch, i, k0) "]\n\t"              \
    "ldr lr, [%[x], #" XO(pitch, i, k1) "]\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The M7's order (FG_CORE_CORTEX_M7; same MACs in the same order): llvm-mca's Cortex-M7 pairs a single LDR with a
 * MAC and waits 2 cycles for its result, so each input word loads alone, as soon as its register is free and at
 * least two MACs before its first use, and the next line's first input and weights (NEXT: four loads, of r2 when
 * tap 0 is done, r3 when tap 1 is, r1 when the last input but one is, r12 at the end; the last line's: the output
 * stage's constants, step and out) load inside this line instead of back to back before it. A line enters with its
 * weights and its first input (r1) loaded; its second input loads between its first two MACs, not before them beside
 * the line before's last load (vww_96_int8's passes: 107 -> 105 cycles a pass in llvm-mca's cortex-m7 model). */
#define FG_DSP_DW_QX1(XO, pitch, i, k, r) "ldr " r ", [%[x], #" XO(pitch, i, k) "]\n\t"
#define FG_DSP_DW_QNEXT_TO(XO, WO, pitch, i, x0)                                                         \
    "ldr r2, [sp, #" WO(i, 0) "]\n\t", "ldr r3, [sp, #" WO(i, 1) "]\n\t", FG_DSP_DW_QX1(XO, pitch, i, 0, x0),   \
    "ldr r12, [sp, #" WO(i, 2) "]\n\t"
#define FG_DSP_DW_QNEXT(XO, WO, pitch, i) FG_DSP_DW_QNEXT_TO(XO, WO, pitch, i, "r1")
/* The last line's: the output stage's constants, channel h's in r2, r3, r12 and channel h + 2's multiplier and
 * offset in r1, lr. */
#define FG_DSP_DW_QNEXT_OUT \
    "ldr r2, [sp, #8]\n\t", "ldr r3, [sp, #12]\n\t", "ldr r1, [sp, #20]\n\t", "ldr r12, [sp, #16]\n\tldr lr, [sp, #24]\n\t"
/* FG_DSP_DW_QM and FG_DSP_DW_QF with a load L between their two MACs (a load beside another issues alone). */
#define FG_DSP_DW_QMS(a, b, xr, wr, L) \
    "smlabb " a ", " xr ", " wr ", " a "\n\t" L "smlatt " b ", " xr ", " wr ", " b "\n\t"
#define FG_DSP_DW_QFS(a, b, xr, wr, L) \
    "smlabb " a ", " xr ", " wr ", r7\n\t" L "smlatt " b ", " xr ", " wr ", r11\n\t"
#define FG_DSP_DW_QLINE1(XO, WO, pitch, i, T0, W0, W1, X0, W2)                                          \
    T0##S("r4", "r8", "r1", "r2", FG_DSP_DW_QX1(XO, pitch, i, 1, "lr"))                                  \
    FG_DSP_DW_QX1(XO, pitch, i, 2, "r1")                                                                 \
    FG_DSP_DW_QMS("r4", "r8", "lr", "r3", "") T0##S("r5", "r9", "lr", "r2", "")                          \
    FG_DSP_DW_QX1(XO, pitch, i, 3, "lr")                                                                 \
    FG_DSP_DW_QMS("r4", "r8", "r1", "r12", "") FG_DSP_DW_QMS("r5", "r9", "r1", "r3", "")                 \
    T0##S("r6", "r10", "r1", "r2", "") FG_DSP_DW_QX1(XO, pitch, i, 4, "r1")                              \
    FG_DSP_DW_QMS("r5", "r9", "lr", "r12", "") FG_DSP_DW_QMS("r6", "r10", "lr", "r3", "")                \
    T0##S("r7", "r11", "lr", "r2", "") FG_DSP_DW_QX1(XO, pitch, i, 5, "lr")                              \
    FG_DSP_DW_QMS("r6", "r10", "r1", "r12", W0) FG_DSP_DW_QMS("r7", "r11", "r1", "r3", "") X0            \
    FG_DSP_DW_QMS("r7", "r11", "lr", "r12", W1) W2
/* Stride 2: nine inputs a line, so its two input registers swap from line to line (A: the line's first input's, B:
 * its second's), and the next line's first input loads into B between the line's last two MACs instead of after them
 * (llvm-mca cortex-m7: 107 -> 105 cycles a pass with the ReLU-like clamp, 116 -> 114 without). */
#define FG_DSP_DW_QLINE2(XO, WO, pitch, i, T0, A, B, W0, W1, X0, W2)                                    \
    T0##S("r4", "r8", A, "r2", FG_DSP_DW_QX1(XO, pitch, i, 1, B))                                        \
    FG_DSP_DW_QX1(XO, pitch, i, 2, A) FG_DSP_DW_QMS("r4", "r8", B, "r3", "")                            \
    FG_DSP_DW_QX1(XO, pitch, i, 3, B)                                                                    \
    FG_DSP_DW_QMS("r4", "r8", A, "r12", "") T0##S("r5", "r9", A, "r2", "")                               \
    FG_DSP_DW_QX1(XO, pitch, i, 4, A) FG_DSP_DW_QMS("r5", "r9", B, "r3", "")                            \
    FG_DSP_DW_QX1(XO, pitch, i, 5, B)                                                                    \
    FG_DSP_DW_QMS("r5", "r9", A, "r12", "") T0##S("r6", "r10", A, "r2", "")                              \
    FG_DSP_DW_QX1(XO, pitch, i, 6, A) FG_DSP_DW_QMS("r6", "r10", B, "r3", "")                           \
    FG_DSP_DW_QX1(XO, pitch, i, 7, B)                                                                    \
    FG_DSP_DW_QMS("r6", "r10", A, "r12", "") T0##S("r7", "r11", A, "r2", "")                             \
    FG_DSP_DW_QX1(XO, pitch, i, 8, A) FG_DSP_DW_QMS("r7", "r11", B, "r3", W0) W1                        \
    FG_DSP_DW_QMS("r7", "r11", A, "r12", X0) W2
#define FG_DSP_DW_QLINE2_(XO, WO, pitch, i, T0, A, B, ...) FG_DSP_DW_QLINE2(XO, WO, pitch, i, T0, A, B, __VA_ARGS__)
/* The last line's (its first input's register is r1): FG_DSP_DW_QNEXT_OUT's loads, r1's after the line. */
#define FG_DSP_DW_QNEXT_OUT2                                                                             \
    "ldr r2, [sp, #8]\n\t", "ldr r3, [sp, #12]\n\t", "",                                                   \
    "ldr r1, [sp, #20]\n\tldr r12, [sp, #16]\n\tldr lr, [sp, #24]\n\t"
#define FG_DSP_DW_QLINE_(LINE, XO, WO, pitch, i, T0, ...) LINE(XO, WO, pitch, i, T0, __VA_ARGS__)
#define FG_DSP_DW_QLINE1_TAPS(XO, WO, pitch)                                                             \
    FG_DSP_DW_QW(WO, 0) FG_DSP_DW_QX1(XO, pitch, 0, 0, "r1")                                             \
    FG_DSP_DW_QLINE_(FG_DSP_DW_QLINE1, XO, WO, pitch, 0, FG_DSP_DW_QF, FG_DSP_DW_QNEXT(XO, WO, pitch, 1)) \
    FG_DSP_DW_QLINE_(FG_DSP_DW_QLINE1, XO, WO, pitch, 1, FG_DSP_DW_QM, FG_DSP_DW_QNEXT(XO, WO, pitch, 2)) \
    FG_DSP_DW_QLINE_(FG_DSP_DW_QLINE1, XO, WO, pitch, 2, FG_DSP_DW_QM, FG_DSP_DW_QNEXT_OUT)
#define FG_DSP_DW_QLINE2_TAPS(XO, WO, pitch)                                                             \
    FG_DSP_DW_QW(WO, 0) FG_DSP_DW_QX1(XO, pitch, 0, 0, "r1")                                             \
    FG_DSP_DW_QLINE2_(XO, WO, pitch, 0, FG_DSP_DW_QF, "r1", "lr", FG_DSP_DW_QNEXT_TO(XO, WO, pitch, 1, "lr")) \
    FG_DSP_DW_QLINE2_(XO, WO, pitch, 1, FG_DSP_DW_QM, "lr", "r1", FG_DSP_DW_QNEXT_TO(XO, WO, pitch, 2, "r1")) \
    FG_DSP_DW_QLINE2_(XO, WO, pitch, 2, FG_DSP_DW_QM, "r1", "lr", FG_DSP_DW_QNEXT_OUT2)
/* The taps of a pass: FG_DSP_DW_QLINE1_TAPS or FG_DSP_DW_QLINE2_TAPS. */
#define FG_DSP_DW_QTAPS(LINE, XO, WO, pitch) LINE##_TAPS(XO, WO, pitch)
/* The output stage of both channels at once (channel h: r4 .. r7 by r2, r3, r12; channel h + 2: r8 .. r11 by r1, lr,
 * and its shift loaded into r2 once channel h's multiplies are done): each step of four accumulators after the step
 * before, a high multiply (the MAC unit) beside a shift or an add, so that they issue in pairs and no step waits on
 * the one before; it leaves channel h + 2's shifts and both channels' SSATs to the stores. */
#define FG_DSP_DW_QSTEP3(OP, r, a, b, c) OP(a, r) OP(b, r) OP(c, r)
#define FG_DSP_DW_QSTEP(OP, r, a, b, c, d) FG_DSP_DW_QSTEP3(OP, r, a, b, c) OP(d, r)
#define FG_DSP_DW_QZIP3(OP1, r1, OP2, r2, a, b, c, e, f, g) \
    OP1(a, r1) OP2(e, r2) OP1(b, r1) OP2(f, r2) OP1(c, r1) OP2(g, r2)
#define FG_DSP_DW_QZIP(OP1, r1, OP2, r2, a, b, c, d, e, f, g, h) \
    FG_DSP_DW_QZIP3(OP1, r1, OP2, r2, a, b, c, e, f, g) OP1(d, r1) OP2(h, r2)
#define FG_DSP_DW_QSMMLAR(acc, mo) "smmlar " acc ", " acc ", " mo "\n\t"
#define FG_DSP_DW_QSMMULR(acc, m) "smmulr " acc ", " acc ", " m "\n\t"
#define FG_DSP_DW_QCORRECT(acc, unused) "add " acc ", " acc ", " acc ", asr #31\n\t"
#define FG_DSP_DW_QOFFSET(acc, o) "add " acc ", " acc ", " o "\n\t"
#define FG_DSP_DW_QSHIFT(acc, s) "asr " acc ", " acc ", " s "\n\t"
#define FG_DSP_DW_H "r4", "r5", "r6", "r7"
#define FG_DSP_DW_H2 "r8", "r9", "r10", "r11"
#define FG_DSP_DW_QSTEP_(...) FG_DSP_DW_QSTEP(__VA_ARGS__)
#define FG_DSP_DW_QZIP_(...) FG_DSP_DW_QZIP(__VA_ARGS__)
#define FG_DSP_DW_QSTEP3_(...) FG_DSP_DW_QSTEP3(__VA_ARGS__)
#define FG_DSP_DW_QZIP3_(...) FG_DSP_DW_QZIP3(__VA_ARGS__)
/* Both channels' steps (STEP, ZIP: the 4- or 3-pixel forms; H, H2: channel h's and h + 2's sums; channel h + 2's
 * multiplier and offset in m2, o2; MID between channel h's multiplies and the rest). */
#define FG_DSP_DW_OUT_M7(STEP, ZIP, H, H2, m2, o2, MID)                                                  \
    STEP(FG_DSP_DW_QSMMULR, "r2", H) MID ZIP(FG_DSP_DW_QSMMULR, m2, FG_DSP_DW_QCORRECT, "", H2, H)        \
    ZIP(FG_DSP_DW_QCORRECT, "", FG_DSP_DW_QOFFSET, "r3", H2, H) ZIP(FG_DSP_DW_QOFFSET, o2, FG_DSP_DW_QSHIFT, "r12", H2, H)
#define FG_DSP_DW_OUT_RELU_M7(STEP, ZIP, H, H2, m2, o2, MID) \
    STEP(FG_DSP_DW_QSMMLAR, "r2, r3", H) MID ZIP(FG_DSP_DW_QSMMLAR, m2 ", " o2, FG_DSP_DW_QSHIFT, "r12", H2, H)
#define FG_DSP_DW_PAIR_OUT_M7 \
    FG_DSP_DW_OUT_M7(FG_DSP_DW_QSTEP_, FG_DSP_DW_QZIP_, FG_DSP_DW_H, FG_DSP_DW_H2, "r1", "lr", "ldr r2, [sp, #28]\n\t")
#define FG_DSP_DW_PAIR_OUT_RELU_M7                                                                  \
    FG_DSP_DW_OUT_RELU_M7(FG_DSP_DW_QSTEP_, FG_DSP_DW_QZIP_, FG_DSP_DW_H, FG_DSP_DW_H2, "r1", "lr", \
                          "ldr r2, [sp, #28]\n\t")
/* Then channel h + 2's shifts and channel h's SSATs in turn (an SSAT's result is 3 cycles away), the stores'
 * addresses (lr: out, r3: step, r1: 3 step, r12: out + 2; r2: out moved on four pixels) between them, each store
 * beside the next SSAT, and the loop's compare with the end of the row's outputs (loaded into r4 once its byte is
 * stored), so that the loop's end (FG_DSP_DW_QUAD_NEXT) waits on no load. */
#define FG_DSP_DW_QOUT(OUT)                                                                                 \
    OUT##_M7 "ldr r3, [sp, #76]\n\t" "asr r8, r8, r2\n\t" "ldr lr, [sp, #80]\n\t" "ssat r4, #8, r4\n\t"        \
    "asr r9, r9, r2\n\t" "ssat r5, #8, r5\n\t" "asr r10, r10, r2\n\t" "add r1, r3, r3, lsl #1\n\t"             \
    "ssat r6, #8, r6\n\t" "add r12, lr, #2\n\t" "asr r11, r11, r2\n\t" "strb r4, [lr]\n\t"                    \
    "ssat r7, #8, r7\n\t" "strb r5, [lr, r3]\n\t" "add r2, lr, r3, lsl #2\n\t" "strb r6, [lr, r3, lsl #1]\n\t" \
    "ssat r8, #8, r8\n\t" "strb r7, [lr, r1]\n\t" "ldr r4, [sp, #84]\n\t" "ssat r9, #8, r9\n\t"                \
    "strb r8, [r12]\n\t" "ssat r10, #8, r10\n\t" "strb r9, [r12, r3]\n\t" "ssat r11, #8, r11\n\t"             \
    "cmp r2, r4\n\t" "strb r10, [r12, r3, lsl #1]\n\t" "str r2, [sp, #80]\n\t" "strb r11, [r12, r1]\n\t"
/* A pass's end: x on a pass (OUTS has compared out with the end of the row's outputs). */
#define FG_DSP_DW_QUAD_NEXT(quad) "add %[x], %[x], #" quad "\n\t"
#else
/* Stride 1: pixel p reads inputs p .. p + 2 of the line; T0 applies tap 0 (each pixel's first in the line). */
#define FG_DSP_DW_QLINE1(XO, WO, pitch, i, T0)                                                           \
    FG_DSP_DW_QW(WO, i) FG_DSP_DW_QX(XO, pitch, i, 0, 1)                                                 \
    T0("r4", "r8", "r1", "r2") FG_DSP_DW_QM("r4", "r8", "lr", "r3") T0("r5", "r9", "lr", "r2")          \
    FG_DSP_DW_QX(XO, pitch, i, 2, 3)                                                                     \
    FG_DSP_DW_QM("r4", "r8", "r1", "r12") FG_DSP_DW_QM("r5", "r9", "r1", "r3") T0("r6", "r10", "r1", "r2") \
    FG_DSP_DW_QM("r5", "r9", "lr", "r12") FG_DSP_DW_QM("r6", "r10", "lr", "r3") T0("r7", "r11", "lr", "r2") \
    FG_DSP_DW_QX(XO, pitch, i, 4, 5)                                                                     \
    FG_DSP_DW_QM("r6", "r10", "r1", "r12") FG_DSP_DW_QM("r7", "r11", "r1", "r3")                        \
    FG_DSP_DW_QM("r7", "r11", "lr", "r12")
/* Stride 2: pixel p reads inputs 2p .. 2p + 2. A line's first three pixels up to the third's last tap (inputs 0 .. 5
 * loaded; the triple kernel's line at stride 2 too, FG_DSP_DW_TLINE2), then the quad's. */
#define FG_DSP_DW_LINE2_THREE(XO, WO, pitch, i, T0)                                                      \
    FG_DSP_DW_QW(WO, i) FG_DSP_DW_QX(XO, pitch, i, 0, 1)                                                 \
    T0("r4", "r8", "r1", "r2") FG_DSP_DW_QM("r4", "r8", "lr", "r3")                                     \
    FG_DSP_DW_QX(XO, pitch, i, 2, 3)                                                                     \
    FG_DSP_DW_QM("r4", "r8", "r1", "r12") T0("r5", "r9", "r1", "r2") FG_DSP_DW_QM("r5", "r9", "lr", "r3") \
    FG_DSP_DW_QX(XO, pitch, i, 4, 5)                                                                     \
    FG_DSP_DW_QM("r5", "r9", "r1", "r12") T0("r6", "r10", "r1", "r2") FG_DSP_DW_QM("r6", "r10", "lr", "r3")
#define FG_DSP_DW_QLINE2(XO, WO, pitch, i, T0)                                                           \
    FG_DSP_DW_LINE2_THREE(XO, WO, pitch, i, T0)                                                          \
    FG_DSP_DW_QX(XO, pitch, i, 6, 7)                                                                     \
    FG_DSP_DW_QM("r6", "r10", "r1", "r12") T0("r7", "r11", "r1", "r2") FG_DSP_DW_QM("r7", "r11", "lr", "r3") \
    "ldr r1, [%[x], #" XO(pitch, i, 8) "]\n\t"                                                           \
    FG_DSP_DW_QM("r7", "r11", "r1", "r12")
#define FG_DSP_DW_QTAPS(LINE, XO, WO, pitch)                                                  \
    LINE(XO, WO, pitch, 0, FG_DSP_DW_QF) LINE(XO, WO, pitch, 1, FG_DSP_DW_QM)                \
    LINE(XO, WO, pitch, 2, FG_DSP_DW_QM)
/* The eight outputs (OUT: FG_DSP_DW_PAIR_OUT or its RELU form, on r2, r3, r12), stored at out + p * step (+ 2) (lr:
 * out, r1: step), the first three of channel h while channel h + 2's constants load; r2: out moved on four pixels. */
#define FG_DSP_DW_QOUT(OUT)                                                                                 \
    "ldr r2, [sp, #8]\n\t" "ldr r3, [sp, #12]\n\t" "ldr r12, [sp, #16]\n\t"                                \
    "ldr lr, [sp, #80]\n\t" "ldr r1, [sp, #76]\n\t"                                                        \
    OUT("r4") OUT("r5") OUT("r6") OUT("r7")                                                                 \
    "ldr r2, [sp, #20]\n\t" "ldr r3, [sp, #24]\n\t" "ldr r12, [sp, #28]\n\t"                               \
    "strb r4, [lr]\n\t" "strb r5, [lr, r1]\n\t" "strb r6, [lr, r1, lsl #1]\n\t"                            \
    OUT("r8") OUT("r9") OUT("r10") OUT("r11")                                                               \
    "add r3, r1, r1, lsl #1\n\t" "add r12, lr, #2\n\t" "add r2, lr, r1, lsl #2\n\t"                         \
    "strb r7, [lr, r3]\n\t" "strb r8, [r12]\n\t" "strb r9, [r12, r1]\n\t"                                  \
    "strb r10, [r12, r1, lsl #1]\n\t" "strb r11, [r12, r3]\n\t" "str r2, [sp, #80]\n\t"
#define FG_DSP_DW_QUAD_NEXT(quad) "ldr r1, [sp, #84]\n\t" "add %[x], %[x], #" quad "\n\t" "cmp r2, r1\n\t"
#endif
/* Three pixels of a small image's row of stride 1 per pass (the triple kernel: a row's last three, where the pair
 * kernel would run two and one alone): the quad kernel's frame and loop, channel h's sums in r4 .. r6 and channel h + 2's in
 * r8 .. r10; r7 and r11 keep the biases, which each pixel's first touch in the first line adds (FG_DSP_DW_QF). Per
 * window row 3 LDR of weights and 5 of inputs for 18 MACs. */
#if defined(FG_CORE_CORTEX_M7)
/* The M7's order (FG_CORE_CORTEX_M7; same MACs in the same order): FG_DSP_DW_QLINE1's without its last pixel. Line
 * 0's first input is in r1, lines 1 and 2's in r7 (free once line 0's last first touch has added its bias), and a
 * line enters with its second input (lr) loaded too, so that the next line's loads (X1, its second input, and W0, W1,
 * X0, W2: FG_DSP_DW_QNEXT_TO's; the last line's: the output stage's constants) issue beside this line's MACs and the
 * MACs run without a gap from line to line: 79 cycles a pass with the ReLU-like clamp in llvm-mca's cortex-m7 model
 * (86 without), against 84 (90) in the M4's order. */
#define FG_DSP_DW_TLINE(pitch, i, T0, x0, X1, W0, W1, X0, W2)                                           \
    T0##S("r4", "r8", x0, "r2", "") FG_DSP_DW_QX1(FG_DSP_DW_QH, pitch, i, 2, "r1")                       \
    FG_DSP_DW_QMS("r4", "r8", "lr", "r3", "") T0##S("r5", "r9", "lr", "r2", "")                          \
    FG_DSP_DW_QX1(FG_DSP_DW_QH, pitch, i, 3, "lr")                                                       \
    FG_DSP_DW_QMS("r4", "r8", "r1", "r12", "") FG_DSP_DW_QMS("r5", "r9", "r1", "r3", "")                 \
    T0##S("r6", "r10", "r1", "r2", "") FG_DSP_DW_QX1(FG_DSP_DW_QH, pitch, i, 4, "r1")                    \
    FG_DSP_DW_QMS("r5", "r9", "lr", "r12", W0) FG_DSP_DW_QMS("r6", "r10", "lr", "r3", X0) X1             \
    FG_DSP_DW_QMS("r6", "r10", "r1", "r12", W1) W2
#define FG_DSP_DW_TLINE_(pitch, i, T0, x0, X1, ...) FG_DSP_DW_TLINE(pitch, i, T0, x0, X1, __VA_ARGS__)
#define FG_DSP_DW_TX1(pitch, i) FG_DSP_DW_QX1(FG_DSP_DW_QH, pitch, i, 1, "lr")
/* The last line's: channel h's multiplier, offset and shift in r2, r3, r12, channel h + 2's multiplier and offset in
 * r7, lr (its shift, r11, and step, r1, load beside the output stage's first multiplies). */
#define FG_DSP_DW_TNEXT_OUT                                                                              \
    "ldr r2, [sp, #8]\n\t", "ldr r3, [sp, #12]\n\t", "ldr r7, [sp, #20]\n\t",                            \
    "ldr lr, [sp, #24]\n\tldr r12, [sp, #16]\n\t"
#define FG_DSP_DW_TTAPS(pitch)                                                                           \
    FG_DSP_DW_QW(FG_DSP_DW_QWH, 0) FG_DSP_DW_QX1(FG_DSP_DW_QH, pitch, 0, 0, "r1") FG_DSP_DW_TX1(pitch, 0)  \
    FG_DSP_DW_TLINE_(pitch, 0, FG_DSP_DW_QF, "r1", FG_DSP_DW_TX1(pitch, 1),                                  \
                     FG_DSP_DW_QNEXT_TO(FG_DSP_DW_QH, FG_DSP_DW_QWH, pitch, 1, "r7"))                         \
    FG_DSP_DW_TLINE_(pitch, 1, FG_DSP_DW_QM, "r7", FG_DSP_DW_TX1(pitch, 2),                                  \
                     FG_DSP_DW_QNEXT_TO(FG_DSP_DW_QH, FG_DSP_DW_QWH, pitch, 2, "r7"))                         \
    FG_DSP_DW_TLINE_(pitch, 2, FG_DSP_DW_QM, "r7", "", FG_DSP_DW_TNEXT_OUT)
#define FG_DSP_DW_T "r4", "r5", "r6"
#define FG_DSP_DW_T2 "r8", "r9", "r10"
/* The output stage (OUT: FG_DSP_DW_PAIR_OUT or its RELU form): channel h's high multiplies beside the loads of
 * channel h + 2's shift (r11), step (r1) and out (r2), then each shift as soon as its multiply is done and the
 * stores' addresses (r3: 3 step, r12: out + 2) beside channel h + 2's multiplies; then the SSATs, each store beside
 * the next one, and the loop's compare with the end of the row's outputs (r4, loaded once its byte is stored; r2: out
 * moved on three pixels). */
#define FG_DSP_DW_TSTORE                                                                                  \
    "ssat r4, #8, r4\n\t" "ssat r5, #8, r5\n\t" "asr r9, r9, r11\n\t" "strb r4, [r2]\n\t" "ssat r6, #8, r6\n\t"   \
    "strb r5, [r2, r1]\n\t" "ssat r8, #8, r8\n\t" "strb r6, [r2, r1, lsl #1]\n\t" "add r2, r2, r3\n\t"          \
    "ldr r4, [sp, #84]\n\t" "ssat r9, #8, r9\n\t" "strb r8, [r12]\n\t" "ssat r10, #8, r10\n\t"                  \
    "strb r9, [r12, r1]\n\t" "cmp r2, r4\n\t" "str r2, [sp, #80]\n\t" "strb r10, [r12, r1, lsl #1]\n\t"
#define FG_DSP_DW_PAIR_OUT_RELU_TRIPLE_M7                                                                 \
    "smmlar r4, r4, r2, r3\n\t" "ldr r11, [sp, #28]\n\t" "smmlar r6, r6, r2, r3\n\t" "ldr r1, [sp, #76]\n\t"     \
    "smmlar r5, r5, r2, r3\n\t" "ldr r2, [sp, #80]\n\t" "smmlar r8, r8, r7, lr\n\t" "asr r5, r5, r12\n\t"        \
    "asr r4, r4, r12\n\t" "smmlar r9, r9, r7, lr\n\t" "add r3, r1, r1, lsl #1\n\t" "smmlar r10, r10, r7, lr\n\t" \
    "asr r8, r8, r11\n\t" "asr r6, r6, r12\n\t" "add r12, r2, #2\n\t" "asr r10, r10, r11\n\t"
#define FG_DSP_DW_PAIR_OUT_TRIPLE_M7                                                                      \
    "ldr r11, [sp, #28]\n\t" "ldr r1, [sp, #76]\n\t"                                                           \
    FG_DSP_DW_OUT_M7(FG_DSP_DW_QSTEP3_, FG_DSP_DW_QZIP3_, FG_DSP_DW_T, FG_DSP_DW_T2, "r7", "lr", "ldr r2, [sp, #80]\n\t") \
    "asr r8, r8, r11\n\t" "add r3, r1, r1, lsl #1\n\t" "add r12, r2, #2\n\t" "asr r10, r10, r11\n\t"
#define FG_DSP_DW_TOUT(OUT) OUT##_TRIPLE_M7 FG_DSP_DW_TSTORE
#else
#define FG_DSP_DW_TLINE(pitch, i, T0)                                                                    \
    FG_DSP_DW_QW(FG_DSP_DW_QWH, i) FG_DSP_DW_QX(FG_DSP_DW_QH, pitch, i, 0, 1)                           \
    T0("r4", "r8", "r1", "r2") FG_DSP_DW_QM("r4", "r8", "lr", "r3") T0("r5", "r9", "lr", "r2")          \
    FG_DSP_DW_QX(FG_DSP_DW_QH, pitch, i, 2, 3)                                                           \
    FG_DSP_DW_QM("r4", "r8", "r1", "r12") FG_DSP_DW_QM("r5", "r9", "r1", "r3") T0("r6", "r10", "r1", "r2") \
    FG_DSP_DW_QM("r5", "r9", "lr", "r12") FG_DSP_DW_QM("r6", "r10", "lr", "r3")                         \
    "ldr r1, [%[x], #" FG_DSP_DW_QH(pitch, i, 4) "]\n\t"                                                 \
    FG_DSP_DW_QM("r6", "r10", "r1", "r12")
/* Lines 1 and 2 (their biases added, r7 free): the third input with the weights and the first two, then the last two,
 * two load runs instead of three (28 cycles a line against 29 by the M4's table). */
#define FG_DSP_DW_TLINE_ON(pitch, i)                                                                     \
    FG_DSP_DW_QW(FG_DSP_DW_QWH, i) FG_DSP_DW_QX(FG_DSP_DW_QH, pitch, i, 0, 1)                           \
    "ldr r7, [%[x], #" FG_DSP_DW_QH(pitch, i, 2) "]\n\t"                                                 \
    FG_DSP_DW_QM("r4", "r8", "r1", "r2") FG_DSP_DW_QM("r4", "r8", "lr", "r3")                           \
    FG_DSP_DW_QM("r5", "r9", "lr", "r2") FG_DSP_DW_QM("r4", "r8", "r7", "r12")                          \
    FG_DSP_DW_QM("r5", "r9", "r7", "r3") FG_DSP_DW_QM("r6", "r10", "r7", "r2")                          \
    FG_DSP_DW_QX(FG_DSP_DW_QH, pitch, i, 3, 4)                                                           \
    FG_DSP_DW_QM("r5", "r9", "r1", "r12") FG_DSP_DW_QM("r6", "r10", "r1", "r3")                         \
    FG_DSP_DW_QM("r6", "r10", "lr", "r12")
#define FG_DSP_DW_TTAPS(pitch) \
    FG_DSP_DW_TLINE(pitch, 0, FG_DSP_DW_QF) FG_DSP_DW_TLINE_ON(pitch, 1) FG_DSP_DW_TLINE_ON(pitch, 2)
/* Stride 2 (the M4 and M33 only): pixel p reads inputs 2p .. 2p + 2 of the line, seven a line. Line 0 (the biases in
 * r7 and r11) two inputs at a time; lines 1 and 2 the weights and the first four inputs in one run of loads (r7 and
 * r11 free), then the last three. */
#define FG_DSP_DW_TLINE2(pitch, i, T0)                                                                   \
    FG_DSP_DW_LINE2_THREE(FG_DSP_DW_QH, FG_DSP_DW_QWH, pitch, i, T0)                                     \
    "ldr r1, [%[x], #" FG_DSP_DW_QH(pitch, i, 6) "]\n\t"                                                 \
    FG_DSP_DW_QM("r6", "r10", "r1", "r12")
#define FG_DSP_DW_TLINE2_ON(pitch, i)                                                                    \
    FG_DSP_DW_QW(FG_DSP_DW_QWH, i) FG_DSP_DW_QX(FG_DSP_DW_QH, pitch, i, 0, 1)                           \
    "ldr r7, [%[x], #" FG_DSP_DW_QH(pitch, i, 2) "]\n\t"                                                 \
    "ldr r11, [%[x], #" FG_DSP_DW_QH(pitch, i, 3) "]\n\t"                                                \
    FG_DSP_DW_QM("r4", "r8", "r1", "r2") FG_DSP_DW_QM("r4", "r8", "lr", "r3")                           \
    FG_DSP_DW_QM("r4", "r8", "r7", "r12") FG_DSP_DW_QM("r5", "r9", "r7", "r2")                          \
    FG_DSP_DW_QM("r5", "r9", "r11", "r3")                                                                \
    FG_DSP_DW_QX(FG_DSP_DW_QH, pitch, i, 4, 5)                                                           \
    "ldr r7, [%[x], #" FG_DSP_DW_QH(pitch, i, 6) "]\n\t"                                                 \
    FG_DSP_DW_QM("r5", "r9", "r1", "r12") FG_DSP_DW_QM("r6", "r10", "r1", "r2")                         \
    FG_DSP_DW_QM("r6", "r10", "lr", "r3") FG_DSP_DW_QM("r6", "r10", "r7", "r12")
#define FG_DSP_DW_TTAPS2(pitch) \
    FG_DSP_DW_TLINE2(pitch, 0, FG_DSP_DW_QF) FG_DSP_DW_TLINE2_ON(pitch, 1) FG_DSP_DW_TLINE2_ON(pitch, 2)
/* The six outputs (OUT on r2, r3, r12), stored at out + p * step (+ 2) (lr: out, r1: step); r2: out moved on three
 * pixels. */
#define FG_DSP_DW_TOUT(OUT)                                                                                 \
    "ldr r2, [sp, #8]\n\t" "ldr r3, [sp, #12]\n\t" "ldr r12, [sp, #16]\n\t"                                \
    "ldr lr, [sp, #80]\n\t" "ldr r1, [sp, #76]\n\t"                                                        \
    OUT("r4") OUT("r5") OUT("r6")                                                                           \
    "ldr r2, [sp, #20]\n\t" "ldr r3, [sp, #24]\n\t" "ldr r12, [sp, #28]\n\t"                               \
    "strb r4, [lr]\n\t" "strb r5, [lr, r1]\n\t" "strb r6, [lr, r1, lsl #1]\n\t"                            \
    OUT("r8") OUT("r9") OUT("r10")                                                                          \
    "add r12, lr, #2\n\t" "add r2, r1, r1, lsl #1\n\t" "add r2, lr, r2\n\t"                                \
    "strb r8, [r12]\n\t" "strb r9, [r12, r1]\n\t" "strb r10, [r12, r1, lsl #1]\n\t" "str r2, [sp, #80]\n\t"
#endif
/* job's rows (count a multiple of 4; of 3 with the triples' TAPS and OUTS), each as quads (x advances `quad` bytes;
 * OUTS stores them and leaves the next pass's out in r2), for each half of the group in turn (its
 * table copied into the frame, x and out one word and one byte on for the second); the next row's outputs out_skip
 * bytes on, its windows skip bytes on. The frame after the table: a row's outputs' span, rows left, step, out, the end
 * of the row's outputs, skip, out_skip, job's rows, the half's x and out, halves left, the next half's table. The frame
 * is the caller's local `uint32_t frame[30]`, checked at sp as FG_DSP_DW_PAIR_ASM's. */
#define FG_DSP_DW_QUAD_ASM(TAPS, quad, OUTS)                                                         \
    __asm__ volatile(                                                                                \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t" \
        "ldm %[job], {r2, r4-r7}\n\t"                                                               \
        "mul r4, r4, r2\n\t"                                                                        \
        "str r4, [sp, #68]\n\t"                                                                     \
        "str r2, [sp, #76]\n\t"                                                                     \
        "str r6, [sp, #88]\n\t"                                                                     \
        "str r7, [sp, #92]\n\t"                                                                     \
        "str r5, [sp, #96]\n\t"                                                                     \
        "str %[x], [sp, #100]\n\t"                                                                  \
        "str %[out], [sp, #104]\n\t"                                                                \
        "movs r2, #2\n\t"                                                                           \
        "str r2, [sp, #108]\n"                                                                      \
        "3:\n\t"                                                                                    \
        "ldm r1!, {r2, r4-r11}\n\t"                                                                 \
        "stm sp, {r2, r4-r11}\n\t"                                                                  \
        "ldm r1!, {r2, r4-r10}\n\t"                                                                 \
        "add lr, sp, #36\n\t"                                                                       \
        "stm lr, {r2, r4-r10}\n\t"                                                                  \
        "str r1, [sp, #112]\n\t"                                                                    \
        "ldr r3, [sp, #104]\n\t"                                                                    \
        "ldr r5, [sp, #96]\n\t"                                                                     \
        "ldr r4, [sp, #68]\n\t"                                                                     \
        "str r3, [sp, #80]\n\t"                                                                     \
        "str r5, [sp, #72]\n\t"                                                                     \
        "add lr, r3, r4\n\t"                                                                        \
        "str lr, [sp, #84]\n"                                                                       \
        "1:\n\t"                                                                                    \
        "ldr r7, [sp]\n\t"                                                                          \
        "ldr r11, [sp, #4]\n\t"                                                                     \
        TAPS                                                                                         \
        OUTS                                                                                         \
        FG_DSP_DW_QUAD_NEXT(quad)                                                                    \
        "bne 1b\n\t"                                                                                \
        "ldr r1, [sp, #88]\n\t"                                                                     \
        "ldr r12, [sp, #92]\n\t"                                                                    \
        "ldr r3, [sp, #68]\n\t"                                                                     \
        "ldr r5, [sp, #72]\n\t"                                                                     \
        "add %[x], %[x], r1\n\t"                                                                    \
        "add lr, r2, r12\n\t"                                                                       \
        "add r3, lr, r3\n\t"                                                                        \
        "subs r5, r5, #1\n\t"                                                                       \
        "str lr, [sp, #80]\n\t"                                                                     \
        "str r3, [sp, #84]\n\t"                                                                     \
        "str r5, [sp, #72]\n\t"                                                                     \
        "bne 1b\n\t"                                                                                \
        "ldr r2, [sp, #108]\n\t"                                                                    \
        "ldr %[x], [sp, #100]\n\t"                                                                  \
        "ldr r3, [sp, #104]\n\t"                                                                    \
        "ldr r1, [sp, #112]\n\t"                                                                    \
        "subs r2, r2, #1\n\t"                                                                       \
        "add %[x], %[x], #4\n\t"                                                                    \
        "add r3, r3, #1\n\t"                                                                        \
        "str r2, [sp, #108]\n\t"                                                                    \
        "str %[x], [sp, #100]\n\t"                                                                  \
        "str r3, [sp, #104]\n\t"                                                                    \
        "bne 3b\n\t"                                                                                \
        : [x] "+r"(rx), [q] "+r"(rq), [out] "+r"(ro), [job] "+r"(rj), [frame] "=m"(frame)             \
        :                                                                                              \
        : "r2", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory")

#define FG_DSP_DW_QUAD_ROWS(OUT, pitch)                                                                          \
    if (stride == 1) {                                                                                           \
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_QTAPS(FG_DSP_DW_QLINE1, FG_DSP_DW_QH, FG_DSP_DW_QWH, pitch), "32",          \
                           FG_DSP_DW_QOUT(OUT));                                                                 \
    } else {                                                                                                     \
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_QTAPS(FG_DSP_DW_QLINE2, FG_DSP_DW_QH, FG_DSP_DW_QWH, pitch), "64",          \
                           FG_DSP_DW_QOUT(OUT));                                                                 \
    }

/* The quad kernel over job's rows of a group, both halves: x and out at its first word and channel, q its table.
 * stride: stride_w, 1 or 2, or 0 for a small image's column of stride 1 (job's one row: its pixels down the
 * column). */
static __attribute__((noinline)) void fg_dsp_dw_quad_rows(const uint32_t *x, const uint32_t *q, int8_t *out,
                                                          const fg_dsp_dw_pair_job *job, int relu, int stride,
                                                          int small) {
    register const uint32_t *rx __asm__("r0") = x;
    register const uint32_t *rq __asm__("r1") = q;
    register int8_t *ro __asm__("r3") = out;
    register const fg_dsp_dw_pair_job *rj __asm__("r12") = job;
    uint32_t frame[30];  /* FG_DSP_DW_QUAD_ASM's, at sp */
    if (small && stride == 0 && relu) {
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_QTAPS(FG_DSP_DW_QLINE1, FG_DSP_DW_QV, FG_DSP_DW_QWV, FG_DSP_DW_SMALL_ROW_S),
                           "(4 * " FG_DSP_DW_SMALL_ROW_S ")", FG_DSP_DW_QOUT(FG_DSP_DW_PAIR_OUT_RELU));
    } else if (small && stride == 0) {
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_QTAPS(FG_DSP_DW_QLINE1, FG_DSP_DW_QV, FG_DSP_DW_QWV, FG_DSP_DW_SMALL_ROW_S),
                           "(4 * " FG_DSP_DW_SMALL_ROW_S ")", FG_DSP_DW_QOUT(FG_DSP_DW_PAIR_OUT));
    } else if (small && relu) {
        FG_DSP_DW_QUAD_ROWS(FG_DSP_DW_PAIR_OUT_RELU, FG_DSP_DW_SMALL_ROW_S)
    } else if (small) {
        FG_DSP_DW_QUAD_ROWS(FG_DSP_DW_PAIR_OUT, FG_DSP_DW_SMALL_ROW_S)
    } else if (relu) {
        FG_DSP_DW_QUAD_ROWS(FG_DSP_DW_PAIR_OUT_RELU, FG_DSP_DW_RING_ROW_S)
    } else {
        FG_DSP_DW_QUAD_ROWS(FG_DSP_DW_PAIR_OUT, FG_DSP_DW_RING_ROW_S)
    }
}

/* The triple kernel over job's rows of a small image's group at stride 1, both halves (fg_dsp_dw_quad_rows'
 * arguments). */
static __attribute__((noinline)) void fg_dsp_dw_triple_rows(const uint32_t *x, const uint32_t *q, int8_t *out,
                                                            const fg_dsp_dw_pair_job *job, int relu, int stride) {
    register const uint32_t *rx __asm__("r0") = x;
    register const uint32_t *rq __asm__("r1") = q;
    register int8_t *ro __asm__("r3") = out;
    register const fg_dsp_dw_pair_job *rj __asm__("r12") = job;
    uint32_t frame[30];  /* FG_DSP_DW_QUAD_ASM's, at sp */
#if !defined(FG_CORE_CORTEX_M7)
    if (stride == 2 && relu) {
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_TTAPS2(FG_DSP_DW_SMALL_ROW_S), "48", FG_DSP_DW_TOUT(FG_DSP_DW_PAIR_OUT_RELU));
        return;
    }
    if (stride == 2) {
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_TTAPS2(FG_DSP_DW_SMALL_ROW_S), "48", FG_DSP_DW_TOUT(FG_DSP_DW_PAIR_OUT));
        return;
    }
#else
    (void)stride;  /* stride 1 only (fg_dsp_dw_triples) */
#endif
    if (relu) {
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_TTAPS(FG_DSP_DW_SMALL_ROW_S), "24", FG_DSP_DW_TOUT(FG_DSP_DW_PAIR_OUT_RELU));
    } else {
        FG_DSP_DW_QUAD_ASM(FG_DSP_DW_TTAPS(FG_DSP_DW_SMALL_ROW_S), "24", FG_DSP_DW_TOUT(FG_DSP_DW_PAIR_OUT));
    }
}

/* Passes of the triple kernel per row of `count` pixels: a small image's last three, or its last six instead of a quad
 * and a pair (vww_96_int8's 3- and 6-wide layers at stride 1: ESTIMATED M4 cycles -3 % and -4 %). At stride 2 on the
 * M4 and M33 (FG_DSP_DW_TTAPS2) too, against a pair and a pixel alone or a quad and a pair, and the table no longer
 * copied into RAM for the pair kernel (fg_dsp_dw_table_in_ram): vww's 3- and 6-wide layers of stride 2, ESTIMATED M33
 * 57.0 -> 54.9 K and 88.7 -> 81.8 K cycles. Not on the M7, which has no stride-2 order of the pass. */
static inline int32_t fg_dsp_dw_triples(int32_t count, int stride, int small) {
#if defined(FG_CORE_CORTEX_M7)
    const int strides = stride == 1;
#else
    const int strides = stride == 1 || stride == 2;
#endif
    if (!small || !strides) {
        return 0;
    }
    if ((count & 3) == 3) {
        return 1;
    }
    return (count & 3) == 2 && count >= 6 ? 2 : 0;
}

/* A part of job's rows, `count` pixels of each (advance: bytes from one pixel's windows to the next). */
static inline fg_dsp_dw_pair_job fg_dsp_dw_part(const fg_dsp_dw_pair_job *job, int32_t count, int32_t advance) {
    const int32_t left = job->ring.count - count;  /* the row's pixels outside the part */
    const fg_dsp_dw_pair_job part = {{job->ring.step, count, job->ring.rows, job->ring.skip + left * advance},
                                     job->out_skip + left * job->ring.step};
    return part;
}

/* job's rows of a group: the first four pixels of each row at a time by the quad kernel (both halves), the rest
 * (fewer than four) by fg_dsp_dw_ring_rows. w: the group's table, its halves the quad kernel's. */
static __attribute__((noinline)) void fg_dsp_dw_split_rows(const uint32_t *x, const uint32_t *w, int8_t *out, const fg_dsp_dw_pair_job *job,
                           int relu, int stride, int small) {
    const int32_t count = job->ring.count, quads = count >> 2, rest = count & 3, step = job->ring.step;
    const int32_t advance = stride ? 8 * stride : FG_DSP_DW_SMALL_ROW;  /* bytes from one pixel's windows to the next */
    if (quads) {
        const fg_dsp_dw_pair_job quad = fg_dsp_dw_part(job, 4 * quads, advance);
        fg_dsp_dw_quad_rows(x, w, out, &quad, relu, stride, small);
    }
    if (rest) {
        const int32_t done = 4 * quads;
        const fg_dsp_dw_pair_job tail = fg_dsp_dw_part(job, rest, advance);
        fg_dsp_dw_ring_rows(x + done * advance / 4, w, out + done * step, &tail, relu, stride, small);
    }
}

/* job's rows of a small image's group (stride 1, or 2 on the M4 and M33) whose last `triples` passes (1 or 2: the
 * rest after the quads) are the triple kernel's. */
static __attribute__((noinline)) void fg_dsp_dw_split_triples(const uint32_t *x, const uint32_t *w, int8_t *out,
                                                              const fg_dsp_dw_pair_job *job, int relu,
                                                              int stride, int32_t triples) {
    const int32_t done = job->ring.count - 3 * triples;  /* a multiple of 4: the quads' */
    if (done) {
        const fg_dsp_dw_pair_job quad = fg_dsp_dw_part(job, done, 8 * stride);
        fg_dsp_dw_quad_rows(x, w, out, &quad, relu, stride, 1);
    }
    const fg_dsp_dw_pair_job triple = fg_dsp_dw_part(job, 3 * triples, 8 * stride);
    fg_dsp_dw_triple_rows(x + 2 * stride * done, w, out + done * job->ring.step, &triple, relu, stride);
}

/* A group's rows: a small image's of stride 1 with the triple kernel's passes (fg_dsp_dw_triples), rows of fewer than
 * four pixels straight to the pair kernel, the others split. */
static inline __attribute__((always_inline)) void fg_dsp_dw_rows(const uint32_t *x, const uint32_t *w, int8_t *out,
                                                                 const fg_dsp_dw_pair_job *job, int relu,
                                                                 int stride, int small) {
    const int32_t triples = fg_dsp_dw_triples(job->ring.count, stride, small);
    if (triples) {
        fg_dsp_dw_split_triples(x, w, out, job, relu, stride, triples);
    } else if (job->ring.count < 4) {
        fg_dsp_dw_ring_rows(x, w, out, job, relu, stride, small);
    } else {
        fg_dsp_dw_split_rows(x, w, out, job, relu, stride, small);
    }
}
#undef FG_DSP_DW_QUAD_ROWS
#undef FG_DSP_DW_QUAD_ASM
#undef FG_DSP_DW_QUAD_NEXT
#undef FG_DSP_DW_TOUT
#undef FG_DSP_DW_TSTORE
#undef FG_DSP_DW_PAIR_OUT_TRIPLE_M7
#undef FG_DSP_DW_PAIR_OUT_RELU_TRIPLE_M7
#undef FG_DSP_DW_T2
#undef FG_DSP_DW_T
#undef FG_DSP_DW_TNEXT_OUT
#undef FG_DSP_DW_TX1
#undef FG_DSP_DW_TLINE_
#undef FG_DSP_DW_TTAPS
#undef FG_DSP_DW_TTAPS2
#undef FG_DSP_DW_TLINE2
#undef FG_DSP_DW_TLINE2_ON
#undef FG_DSP_DW_TLINE
#undef FG_DSP_DW_QOUT
#undef FG_DSP_DW_PAIR_OUT_RELU_M7
#undef FG_DSP_DW_PAIR_OUT_M7
#undef FG_DSP_DW_OUT_RELU_M7
#undef FG_DSP_DW_OUT_M7
#undef FG_DSP_DW_QZIP3_
#undef FG_DSP_DW_QSTEP3_
#undef FG_DSP_DW_QZIP_
#undef FG_DSP_DW_QSTEP_
#undef FG_DSP_DW_H2
#undef FG_DSP_DW_H
#undef FG_DSP_DW_QSHIFT
#undef FG_DSP_DW_QOFFSET
#undef FG_DSP_DW_QCORRECT
#undef FG_DSP_DW_QSMMULR
#undef FG_DSP_DW_QSMMLAR
#undef FG_DSP_DW_QZIP
#undef FG_DSP_DW_QZIP3
#undef FG_DSP_DW_QSTEP
#undef FG_DSP_DW_QSTEP3
#undef FG_DSP_DW_QLINE_
#undef FG_DSP_DW_QLINE2_
#undef FG_DSP_DW_QLINE2_TAPS
#undef FG_DSP_DW_QLINE1_TAPS
#undef FG_DSP_DW_QNEXT_OUT2
#undef FG_DSP_DW_QNEXT_OUT
#undef FG_DSP_DW_QNEXT
#undef FG_DSP_DW_QNEXT_TO
#undef FG_DSP_DW_QX1
#undef FG_DSP_DW_QFS
#undef FG_DSP_DW_QMS
#undef FG_DSP_DW_QTAPS
#undef FG_DSP_DW_QLINE2
#undef FG_DSP_DW_LINE2_THREE
#undef FG_DSP_DW_QLINE1
#undef FG_DSP_DW_QX
#undef FG_DSP_DW_QW
#undef FG_DSP_DW_QF
#undef FG_DSP_DW_QM
#undef FG_DSP_DW_QWV
#undef FG_DSP_DW_QWH
#undef FG_DSP_DW_QV
#undef FG_DSP_DW_QH
#undef FG_DSP_DW_RING_ROWS
#undef FG_DSP_DW_PAIR_ASM
#undef FG_DSP_DW_PAIR_OUTS
#undef FG_DSP_DW_PAIR_OUTS_M7
#undef FG_DSP_DW_PAIR_SSAT
#undef FG_DSP_DW_PAIR_SHIFT
#undef FG_DSP_DW_PAIR_OUT_RELU_FIRST
#undef FG_DSP_DW_PAIR_OUT_FIRST
#undef FG_DSP_DW_PAIR_OUT_PRELOAD
#undef FG_DSP_DW_PAIR_K
#undef FG_DSP_DW_PAIR_OUT_RELU
#undef FG_DSP_DW_PAIR_OUT
#undef FG_DSP_DW_SSAT
#undef FG_DSP_DW_SHIFT
#undef FG_DSP_DW_SMMLAR
#undef FG_DSP_DW_OFFSET
#undef FG_DSP_DW_CORRECT
#undef FG_DSP_DW_SMMULR
#undef FG_DSP_DW_PAIR_CHANNEL
#undef FG_DSP_DW_VPAIR_TAPS
#undef FG_DSP_DW_VPAIR_COLUMN_TAPS
#undef FG_DSP_DW_PAIR2_TAPS
#undef FG_DSP_DW_PAIR2_ROW_TAPS
#undef FG_DSP_DW_PAIR_TAPS
#undef FG_DSP_DW_PAIR_ROW_TAPS
#undef FG_DSP_DW_PAIR_WEIGHT
#undef FG_DSP_DW_PAIR_COLUMN
#undef FG_DSP_DW_PAIR_SECOND
#undef FG_DSP_DW_PAIR_FIRST
#undef FG_DSP_DW_PAIR_SMLA
#undef FG_DSP_DW_PSTART
#undef FG_DSP_DW_PE
#undef FG_DSP_DW_PNEXT
#undef FG_DSP_DW_PSN_
#undef FG_DSP_DW_PSN
#undef FG_DSP_DW_PSS
#undef FG_DSP_DW_PFS
#undef FG_DSP_DW_PW
#undef FG_DSP_DW_PX
#undef FG_DSP_DW_PSMLA
#undef FG_DSP_DW_RING_TAPS
#undef FG_DSP_DW_RING_ROW_TAPS
#undef FG_DSP_DW_RING_TAP
#undef FG_DSP_DW_LOAD2

/* Four pixels' words at dst, src advanced past them: 4 LDR back to back, 8 SXTB16, one STM of 8 words. */
#define FG_DSP_DW_EXTEND_FOUR                             \
    "ldr r4, [%[src]]\n\t"                               \
    "ldr r6, [%[src], %[step]]\n\t"                      \
    "ldr r8, [%[src], %[step], lsl #1]\n\t"              \
    "ldr r10, [%[src], %[step3]]\n\t"                    \
    "add %[src], %[src], %[step], lsl #2\n\t"            \
    "sxtb16 r5, r4, ror #8\n\t"                          \
    "sxtb16 r4, r4\n\t"                                  \
    "sxtb16 r7, r6, ror #8\n\t"                          \
    "sxtb16 r6, r6\n\t"                                  \
    "sxtb16 r9, r8, ror #8\n\t"                          \
    "sxtb16 r8, r8\n\t"                                  \
    "sxtb16 r11, r10, ror #8\n\t"                        \
    "sxtb16 r10, r10\n\t"                                \
    "stm %[dst]!, {r4-r11}\n\t"
/* Eight pixels a pass (label 1), %[quads] passes (>= 1): the loop's SUBS and branch once per eight pixels, not four
 * (ESTIMATED M33: 25 -> 23 cycles per four pixels). */
#define FG_DSP_DW_EXTEND_EIGHTS \
    FG_DSP_DW_EXTEND_FOUR FG_DSP_DW_EXTEND_FOUR "subs %[quads], %[quads], #1\n\t" "bne 1b\n\t"

#if defined(FG_CORE_CORTEX_M7)
/* The M7 (FG_CORE_CORTEX_M7): each SXTB16's word stored at an offset beside the next (no STM, which issues alone and
 * writes its base back): 7 cycles a pair in llvm-mca's cortex-m7 model (hill-climbed), against 9. */
#define FG_DSP_DW_SMALL_PAIR                        \
    "ldr r4, [%[src]]\n\t"                          \
    "ldr r6, [%[src], %[step]]\n\t"                 \
    "sxtb16 r5, r4, ror #8\n\t"                     \
    "str r5, [%[dst], #4]\n\t"                      \
    "sxtb16 r4, r4\n\t"                             \
    "str r4, [%[dst]]\n\t"                          \
    "sxtb16 r7, r6, ror #8\n\t"                     \
    "subs %[k], %[k], #1\n\t"                       \
    "add %[src], %[src], %[step], lsl #1\n\t"       \
    "str r7, [%[dst], #12]\n\t"                     \
    "sxtb16 r6, r6\n\t"                             \
    "str r6, [%[dst], #8]\n\t"                      \
    "add %[dst], %[dst], #16\n\t"

/* A small image's rows of the group (its first channel at src, in_c bytes from pixel to pixel, the rows one after
 * the other) into the buffer's image columns at dst, FG_DSP_DW_SMALL_ROW bytes from row to row, in one pass: per
 * row its pairs, then an odd count's last pixel. in_h >= 1. */
static void fg_dsp_dw_small_extend(const int8_t *src, int32_t step, int32_t n, int32_t rows, uint32_t *dst) {
    const int32_t pairs = n >> 1, odd = n & 1, skip = FG_DSP_DW_SMALL_ROW - 8 * n;
    int32_t k;
    __asm__ volatile(
        "2:\n\t"
        "movs %[k], %[pairs]\n\t"
        "beq 3f\n"
        "1:\n\t"
        FG_DSP_DW_SMALL_PAIR
        "bne 1b\n"
        "3:\n\t"
        "cmp %[odd], #0\n\t"
        "beq 4f\n\t"
        "ldr r4, [%[src]]\n\t"
        "add %[src], %[src], %[step]\n\t"
        "sxtb16 r5, r4, ror #8\n\t"
        "sxtb16 r4, r4\n\t"
        "strd r4, r5, [%[dst]], #8\n"
        "4:\n\t"
        "add %[dst], %[dst], %[skip]\n\t"
        "subs %[rows], %[rows], #1\n\t"
        "bne 2b\n\t"
        : [src] "+r"(src), [dst] "+r"(dst), [rows] "+r"(rows), [k] "=&r"(k)
        : [step] "r"(step), [pairs] "r"(pairs), [odd] "r"(odd), [skip] "r"(skip)
        : "r4", "r5", "r6", "r7", "cc", "memory");
}
#endif
/* `rows` input rows of the group (its first channel at src, in_c bytes from pixel to pixel, the rows one after the
 * other) into the buffer's image columns at dst, `pitch` bytes from row to row, in one pass (a block's rows in the
 * band; on the M4 and M33 a small image's too): per row eight pixels a pass (FG_DSP_DW_EXTEND_EIGHTS: loads back to
 * back, one STM per four), then four, a pair and a pixel as n's bits 2, 1 and 0 say. The passes take every other
 * register: rows_n holds the rows left but one (bits 8 up: negative after the last) and n (bits 0 .. 7), skip is read
 * from the frame. n < 256 (the buffer's columns), rows >= 1. */
static inline __attribute__((always_inline)) void fg_dsp_dw_extend_rows(const int8_t *src, int32_t step, int32_t n,
                                                                        int32_t rows, int32_t pitch, uint32_t *dst) {
    const int32_t skip = pitch - 8 * n, step3 = 3 * step;
    int32_t rows_n = (rows - 1) << 8 | n, quads;
    __asm__ volatile(
        "2:\n\t"
        "lsls %[quads], %[rows_n], #24\n\t"
        "lsrs %[quads], %[quads], #27\n\t"
        "beq 3f\n"
        "1:\n\t"
        FG_DSP_DW_EXTEND_EIGHTS
        "3:\n\t"
        "lsls %[quads], %[rows_n], #30\n\t"  /* C: four pixels left */
        "bcc 6f\n\t"
        FG_DSP_DW_EXTEND_FOUR
        "6:\n\t"
        "lsls %[quads], %[rows_n], #31\n\t"  /* C: a pair left, N: a pixel */
        "bcc 4f\n\t"
        FG_DSP_EXTEND_TWO_PIXELS
        "stm %[dst]!, {r4-r7}\n"
        "4:\n\t"
        "bpl 5f\n\t"
        "ldr r4, [%[src]]\n\t"
        "add %[src], %[src], %[step]\n\t"
        "sxtb16 r5, r4, ror #8\n\t"
        "sxtb16 r4, r4\n\t"
        "strd r4, r5, [%[dst]], #8\n"
        "5:\n\t"
        "ldr %[quads], %[skip]\n\t"
        "add %[dst], %[dst], %[quads]\n\t"
        "subs %[rows_n], %[rows_n], #256\n\t"
        "bpl 2b\n\t"
        : [src] "+r"(src), [dst] "+r"(dst), [rows_n] "+r"(rows_n), [quads] "=&r"(quads)
        : [step] "r"(step), [step3] "r"(step3), [skip] "m"(skip)
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory");
}
#if !defined(FG_CORE_CORTEX_M7)
/* A small image's rows (fg_dsp_dw_small_extend's on the M7). */
static inline __attribute__((always_inline)) void fg_dsp_dw_small_extend(const int8_t *src, int32_t step, int32_t n,
                                                                         int32_t rows, uint32_t *dst) {
    fg_dsp_dw_extend_rows(src, step, n, rows, FG_DSP_DW_SMALL_ROW, dst);
}
#endif
#undef FG_DSP_DW_SMALL_PAIR
#undef FG_DSP_DW_EXTEND_EIGHTS
#undef FG_DSP_DW_EXTEND_FOUR

/* A row in the padding: the zero point in the band row's image columns. */
static void fg_dsp_dw_ring_pad(int32_t n, uint32_t zero_point, uint32_t *dst) {
    for (int32_t x = 0; x < 2 * n; ++x) {
        dst[x] = zero_point;
    }
}

/* What a group's rows share. */
typedef struct {
    const fg_depthwise_conv2d_params *p;
    uint32_t zero_point;  /* the input zero point in both int16 halves */
    int relu;             /* the output zero point -128: no rounding correction */
} fg_dsp_dw_ring_layer;

/* Every output row of group g (channels 4g .. 4g + 3) of one image through the buffer as a band of
 * FG_DSP_DW_BAND_ROWS rows: blocks of as many output rows as the band holds the input rows of (5 at stride_h 2, 9 at
 * 1), each block's input rows extended into the band's rows 0, 1, ... (the one or two it shares with the next block
 * again), then the block in one call. Against the ring of 3 or 4 rows it replaced: a call per block instead of per
 * output row, and at stride_h 2 one input row in 8 extended a second time where the ring stored one in 4 twice
 * (vww_96_int8's 48 x 48 layer of stride 2, ESTIMATED M33 333,726 -> 300,493 cycles). */
FG_HOT_LOOP static void fg_dsp_dw_ring_group(const fg_dsp_dw_ring_layer *layer, const int8_t *image, int32_t g,
                                             const uint32_t *w, int8_t *output, uint32_t *band) {
    const fg_depthwise_conv2d_params *p = layer->p;
    const int32_t words = 2 * FG_DSP_DW_RING_COLUMNS, stride = p->stride_h;
    const int32_t block = (FG_DSP_DW_BAND_ROWS - 3) / stride + 1;  /* output rows whose windows the band holds */
    const int8_t *group = image + 4 * g;
    for (int32_t oy = 0; oy < p->out_h; oy += block) {
        const int32_t rows = p->out_h - oy < block ? p->out_h - oy : block, top = oy * stride - p->pad_top;
        const int32_t end = top + (rows - 1) * stride + 3;  /* past the block's last input row */
        const int32_t first = top > 0 ? top : 0, last = end < p->in_h ? end : p->in_h;  /* its rows in the image */
        uint32_t *row = band + 2 * p->pad_left;
        for (int32_t y = top; y < end; ++y, row += words) {
            if (y < 0 || y >= p->in_h) {
                fg_dsp_dw_ring_pad(p->in_w, layer->zero_point, row);
            }
        }
        if (last > first) {  /* the image's rows in one call (ESTIMATED M33: 27 cycles a row less at 48 x 48) */
            fg_dsp_dw_extend_rows(group + first * p->in_w * p->in_c, p->in_c, p->in_w, last - first,
                                  FG_DSP_DW_RING_ROW, band + 2 * p->pad_left + (first - top) * words);
        }
        const int32_t skip = stride * FG_DSP_DW_RING_ROW - p->out_w * 8 * p->stride_w;  /* a row's end to the next */
        const fg_dsp_dw_pair_job job = {{p->in_c, p->out_w, rows, skip}, 0};
        fg_dsp_dw_rows(band, w, output + oy * p->out_w * p->in_c + 4 * g, &job, layer->relu, p->stride_w, 0);
    }
}

/* Whether a small image's rows of stride 1 end in a column of pixels paired down it: odd rows, unless the triple kernel
 * takes a row's last three. */
static inline int32_t fg_dsp_dw_small_column(const fg_depthwise_conv2d_params *p) {
    return p->stride_w == 1 && p->stride_h == 1 && (p->out_w & 1) && p->out_h > 1 && !fg_dsp_dw_triples(p->out_w, 1, 1);
}

/* The same for a small image: its rows extended into the buffer's image part, then every output row in one call. */
FG_HOT_LOOP static void fg_dsp_dw_small_group(const fg_dsp_dw_ring_layer *layer, const int8_t *image, int32_t g,
                                              const uint32_t *w, int8_t *output,
                                              uint32_t *buffer) {
    const fg_depthwise_conv2d_params *p = layer->p;
    const int32_t step = p->in_c, words = 2 * FG_DSP_DW_SMALL_COLUMNS;
    fg_dsp_dw_small_extend(image + 4 * g, step, p->in_w, p->in_h, buffer + p->pad_top * words + 2 * p->pad_left);
    const int32_t column = fg_dsp_dw_small_column(p);  /* the last pixels paired down the column, not run alone */
    const int32_t count = p->out_w - column, advance = 8 * p->stride_w;
    if (count) {
        const fg_dsp_dw_pair_job job = {{step, count, p->out_h, p->stride_h * FG_DSP_DW_SMALL_ROW - count * advance},
                                        column * step};
        fg_dsp_dw_rows(buffer, w, output + 4 * g, &job, layer->relu, p->stride_w, 1);
    }
    if (column) {
        const fg_dsp_dw_pair_job down = {{p->out_w * step, p->out_h, 1, 0}, 0};
        fg_dsp_dw_rows(buffer + 2 * count, w, output + 4 * g + count * step, &down, layer->relu, 0, 1);
    }
}

/* The padded image's columns and rows the windows read: its own after the padding, or the last window's end. */
static inline int32_t fg_dsp_dw_padded(int32_t pad, int32_t size, int32_t out, int32_t stride) {
    const int32_t last = (out - 1) * stride + 3;
    return pad + size > last ? pad + size : last;
}

/* The zero point into every buffer column the windows read and no input row is extended into: the padding's columns
 * of each row (and a small image's padding rows whole). Once per call: a row stage calls for one output row at a
 * time, so the rest of the buffer is never touched. */
static void fg_dsp_dw_ring_padding(const fg_depthwise_conv2d_params *p, const fg_dsp_dw_ring_layer *layer, int small,
                                   int32_t rows, uint32_t *buffer) {
    const int32_t words = 2 * (small ? FG_DSP_DW_SMALL_COLUMNS : FG_DSP_DW_RING_COLUMNS);
    const int32_t right = 2 * (p->pad_left + p->in_w);
    const int32_t end = 2 * fg_dsp_dw_padded(p->pad_left, p->in_w, p->out_w, p->stride_w);
    for (int32_t y = 0; y < (small ? rows : FG_DSP_DW_BAND_ROWS); ++y, buffer += words) {
        const int pad_row = small && (y < p->pad_top || y >= p->pad_top + p->in_h);
        for (int32_t x = 0; x < (pad_row ? end : 2 * p->pad_left); ++x) {
            buffer[x] = layer->zero_point;
        }
        for (int32_t x = right; x < end; ++x) {
            buffer[x] = layer->zero_point;
        }
    }
}

/* Group g's words as the int8 table holds them (its two halves), from a 4-bit table (fg_depthwise_conv2d_3x3_ring_s4_dsp's):
 * its 16 constant words (fg/isa/dsp_ring.h's: the four doubled biases, then each channel's multiplier, offset and
 * shift), then per half h and tap t the doubled weight pair of channels (h, h + 2), from the group's 36 nibbles
 * ([channel][9 taps]). */
static void fg_dsp_dw_ring_unpack(const uint32_t *constants, const uint8_t *nibbles, uint32_t *w) {
    for (int32_t h = 0; h < 2; ++h, w += FG_DSP_DW_QUAD_WORDS) {
        w[0] = constants[h];
        w[1] = constants[2 + h];
        memcpy(w + 2, constants + 4 + 3 * h, 3 * sizeof *w);
        memcpy(w + 5, constants + 4 + 3 * (h + 2), 3 * sizeof *w);
        for (int32_t t = 0; t < 9; ++t) {
            const int32_t low = 2 * fg_nibble_s4(nibbles, 9 * h + t), high = 2 * fg_nibble_s4(nibbles, 9 * h + 18 + t);
            w[8 + t] = (uint32_t)(uint16_t)low | (uint32_t)high << 16;
        }
    }
}

/* A group's words from the table into the kernel's copy. */
static inline void fg_dsp_dw_ring_group_copy(const uint32_t *from, uint32_t *to) {
#if defined(FG_CORE_CORTEX_M7)
    /* The M7 (FG_CORE_CORTEX_M7): unrolled, two words by an LDRD and an STRD at offsets (34 cycles a group in
     * llvm-mca's cortex-m7 model, against ~100 and the call for the library's memcpy, whose post-indexed LDRs and
     * STRs wait for their base write-back). The empty asm keeps GCC from making the loop a memcpy call. */
#pragma GCC unroll 17
    for (int32_t k = 0; k < FG_DSP_DW_RING_GROUP_WORDS; k += 2) {
        uint32_t low = from[k], high = from[k + 1];
        __asm__("" : "+r"(low), "+r"(high));
        to[k] = low;
        to[k + 1] = high;
    }
#else
    memcpy(to, from, FG_DSP_DW_RING_GROUP_WORDS * sizeof *to);
#endif
}

/* Whether a group's table goes into RAM before its rows run: the pair kernel reads it at every pass (from flash, each
 * would wait), and the band calls the kernels once per block of output rows. The quad and triple kernels copy each half
 * into their frame once per call, so a small image that runs on them alone (one call per group: its rows a multiple
 * of 4 pixels, or ending in triples) copies it from the table itself. */
static int fg_dsp_dw_table_in_ram(const fg_depthwise_conv2d_params *p, int small) {
    if (!small || fg_dsp_dw_small_column(p)) {
        return 1;
    }
    return (p->out_w & 3) && !fg_dsp_dw_triples(p->out_w, p->stride_w, small);
}

/* The work of fg_depthwise_conv2d_3x3_ring_dsp (int4: of its 4-bit form), the buffer on its caller's stack frame. */
static inline __attribute__((always_inline)) void fg_dsp_dw_ring_work(const fg_depthwise_conv2d_params *p,
                                                                      const int8_t *input, int8_t *output,
                                                                      int int4) {
    const uint32_t *groups = (const uint32_t *)p->packed;
    const uint8_t *nibbles = (const uint8_t *)(groups + 4 * p->in_c);  /* 4-bit: after the groups' 16 words */
    const fg_dsp_dw_ring_layer layer = {p, (uint16_t)(int16_t)-p->requant.input_offset * 0x10001u,
                                        p->requant.output_offset == -128};
    uint32_t buffer[FG_DSP_DW_RING_WORDS];  /* the padding's columns (and a small image's rows) keep the zero point */
    const int32_t rows = fg_dsp_dw_padded(p->pad_top, p->in_h, p->out_h, p->stride_h);
    const int small = fg_dsp_dw_padded(p->pad_left, p->in_w, p->out_w, p->stride_w) <= FG_DSP_DW_SMALL_COLUMNS &&
                      rows <= FG_DSP_DW_SMALL_ROWS;
    fg_dsp_dw_ring_padding(p, &layer, small, rows, buffer);
    const int in_ram = fg_dsp_dw_table_in_ram(p, small);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        int8_t *out = output + b * p->out_h * p->out_w * p->in_c;
        for (int32_t g = 0; g < p->in_c / 4; ++g) {
            uint32_t w[FG_DSP_DW_RING_GROUP_WORDS];
            const uint32_t *table = groups + FG_DSP_DW_RING_GROUP_WORDS * g;
            if (int4) {
                fg_dsp_dw_ring_unpack(groups + 16 * g, nibbles + 18 * g, w);
                table = w;
            } else if (in_ram) {
                fg_dsp_dw_ring_group_copy(table, w);
                table = w;
            }
            if (small) {
                fg_dsp_dw_small_group(&layer, image, g, table, out, buffer);
            } else {
                fg_dsp_dw_ring_group(&layer, image, g, table, out, buffer);
            }
        }
    }
}

static __attribute__((noinline)) void fg_dsp_dw_ring_layer_run(const fg_depthwise_conv2d_params *p,
                                                               const int8_t *input, int8_t *output) {
    fg_dsp_dw_ring_work(p, input, output, 0);
}

void fg_dsp_dw_ring_s4_run(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    fg_dsp_dw_ring_work(p, input, output, 1);
}

/* params->packed: per group of four channels c .. c + 3, FG_DSP_DW_RING_GROUP_WORDS words in two halves (see
 * FG_DSP_DW_QUAD_WORDS): each half's two doubled biases, its channels' multiplier, offset and shift (fg_dsp_channel's),
 * its nine doubled weight pairs. The generator checks: dilation 1, stride_w 1 or 2, in_c a multiple of 4, every
 * channel narrow, the clamp all of int8, and the padded row within FG_DSP_DW_RING_COLUMNS. An output that overlaps
 * the input other than a whole number of pixels before it runs the portable kernel (pixel order). */
void fg_depthwise_conv2d_3x3_ring_dsp(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    if (fg_depthwise_channel_major(p, input, output)) {
        fg_dsp_dw_ring_layer_run(p, input, output);
    } else {
        fg_depthwise_conv2d_3x3_s8(p, input, output);
    }
}

#endif
