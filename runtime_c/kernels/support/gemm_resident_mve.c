#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

/* What fg_mve_resident_pairs' assembly loop reads and updates in memory; the offsets are the loop's. */
typedef struct {
    int32_t sums[8];          /* 0: the accumulators on their way to vector registers */
    const int32_t *packed;    /* 32: the first block of the GEMM layout */
    int32_t blocks;           /* 36: blocks of four output channels (out_c / 4) */
    int32_t out_c;            /* 40 */
    int32_t pair_step;        /* 44: 2 x in_c */
    int32_t pairs;            /* 48: left to do */
    int32_t offset;           /* 52: the output offset */
    int32_t tail;             /* 56: taps in each row's last vector */
    int32_t in_c;             /* 60 */
    int32_t saved_vpr;        /* 64 */
    int32_t unused[3];        /* 68 */
    int32x4_t low, high;      /* 80, 96 */
    int32x4_t offsets;        /* 112: the output offset in every lane (the pipelined loop's) */
} fg_mve_resident_state;

/* The state of the offset 4-bit layout's loops and, before it, where they start their accumulators (LDMDB): row 0's
 * four, then row 1's, -8 x the row's sum on channels 0 and 2, 0 on 1 and 3 (FG_MVE_ROW_TERMS_S4). */
typedef struct {
    int32_t row_terms[8];
    fg_mve_resident_state st;
} fg_mve_resident_state_s4;

/* The two rows of a pair (one vector each) into q4 for row 0, q6 for row 1, predicated to the row (VCTP of the
 * tail), nothing read past it. */
#define FG_MVE_RESIDENT_LOAD1                   \
    "add r2, r2, %[px]\n"                      \
    "vpstt\n"                                  \
    "vldrbt.8 q4, [%[px]]\n"                   \
    "vldrbt.8 q6, [r2]\n"
/* One chunk of 16 taps (its four weight rows from pk + at) of both rows (x0 and x1) into the eight accumulators. Each
 * weight row in its own register (q0-q3), so that every load is followed by a VMLADAVA: the M55 overlaps a load's
 * beats with a multiply's, never two loads' (llvm-mca's M55 model). */
#define FG_MVE_RESIDENT_CHUNK(at, x0, x1)       \
    "vldrb.8 q0, [%[pk], #" #at "]\n"          \
    "vmladava.s8 r0, " x0 ", q0\n"             \
    "vldrb.8 q1, [%[pk], #" #at " + 16]\n"     \
    "vmladava.s8 r8, " x1 ", q0\n"             \
    "vldrb.8 q2, [%[pk], #" #at " + 32]\n"     \
    "vmladava.s8 r2, " x0 ", q1\n"             \
    "vldrb.8 q3, [%[pk], #" #at " + 48]\n"     \
    "vmladava.s8 r10, " x1 ", q1\n"            \
    "vmladava.s8 r4, " x0 ", q2\n"             \
    "vmladava.s8 r12, " x1 ", q2\n"            \
    "vmladava.s8 r6, " x0 ", q3\n"             \
    "vmladava.s8 lr, " x1 ", q3\n"
#define FG_MVE_RESIDENT_DOT1 FG_MVE_RESIDENT_CHUNK(0, "q4", "q6")
/* Rows of three or four vectors: row 0 into q4-q6 (q7), the last predicated; row 1 (px: its start) read as the
 * dot products go, its last vector predicated too. The weights post-incremented (their offsets would pass 127). */
#define FG_MVE_HALF_LOAD3                       \
    "sub r2, %[px], r2\n"                      \
    "vldrb.8 q4, [r2]\n"                       \
    "vldrb.8 q5, [r2, #16]\n"                  \
    "vpst\n"                                   \
    "vldrbt.8 q6, [r2, #32]\n"
#define FG_MVE_HALF_LOAD4                       \
    "sub r2, %[px], r2\n"                      \
    "vldrb.8 q4, [r2]\n"                       \
    "vldrb.8 q5, [r2, #16]\n"                  \
    "vldrb.8 q6, [r2, #32]\n"                  \
    "vpst\n"                                   \
    "vldrbt.8 q7, [r2, #48]\n"
/* Row 1's vector (LOAD_ROW1, into q3) after the first weight row, the weight rows in q0, q1, q0, q2: loads and
 * VMLADAVAs alternate (as FG_MVE_RESIDENT_CHUNK). */
#define FG_MVE_HALF_CHUNK(LOAD_ROW1, x0)         \
    "vldrb.8 q0, [%[pk]], #16\n"               \
    "vmladava.s8 r0, " x0 ", q0\n"             \
    LOAD_ROW1                                   \
    "vmladava.s8 r8, q3, q0\n"                 \
    "vldrb.8 q1, [%[pk]], #16\n"               \
    "vmladava.s8 r2, " x0 ", q1\n"             \
    "vldrb.8 q0, [%[pk]], #16\n"               \
    "vmladava.s8 r10, q3, q1\n"                \
    "vldrb.8 q2, [%[pk]], #16\n"               \
    "vmladava.s8 r4, " x0 ", q0\n"             \
    "vmladava.s8 r12, q3, q0\n"                \
    "vmladava.s8 r6, " x0 ", q2\n"             \
    "vmladava.s8 lr, q3, q2\n"
#define FG_MVE_ROW1(at) "vldrb.8 q3, [%[px], #" #at "]\n"
#define FG_MVE_ROW1_LAST(at) "vpst\n" "vldrbt.8 q3, [%[px], #" #at "]\n"
#define FG_MVE_HALF_DOT3                                                                                        \
    FG_MVE_HALF_CHUNK(FG_MVE_ROW1(0), "q4") FG_MVE_HALF_CHUNK(FG_MVE_ROW1(16), "q5")                           \
    FG_MVE_HALF_CHUNK(FG_MVE_ROW1_LAST(32), "q6")
#define FG_MVE_HALF_DOT4                                                                                        \
    FG_MVE_HALF_CHUNK(FG_MVE_ROW1(0), "q4") FG_MVE_HALF_CHUNK(FG_MVE_ROW1(16), "q5")                           \
    FG_MVE_HALF_CHUNK(FG_MVE_ROW1(32), "q6") FG_MVE_HALF_CHUNK(FG_MVE_ROW1_LAST(48), "q7")
/* The left shifts, from pk `weights` bytes past the block's weights (the half resident loops leave it past them). */
#define FG_MVE_RESIDENT_LEFT_SHIFT(weights) \
    "vldrw.32 q2, [%[pk], #-32 - " #weights "]\n" "vshl.s32 q0, q0, q2\n" "vshl.s32 q1, q1, q2\n"

/* The operands of the resident loops' assembly (pk and n its own; every other register and vector its scratch). */
#define FG_MVE_RESIDENT_OPERANDS                                                                                 \
    : [px] "+r"(px), [out0] "+l"(out0), [out1] "+l"(out1), [pk] "=&r"(pk), [n] "=&r"(n)                         \
    : [st] "r"(st)                                                                                               \
    : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "memory", \
      "cc"

/* A row of pixels from label 3 (the predicate saved first): its predicate (VCTP of the row's taps), LOAD, and pk and n
 * at the first block's weights and the blocks' count. */
#define FG_MVE_ROW_SAVE                                                                                          \
    "vmrs r0, p0\n"                                                                                              \
    "str r0, [%[st], #64]\n"                                                                                     \
    "3:\n"
#define FG_MVE_ROW_START(LOAD)                                                                                   \
    FG_MVE_ROW_SAVE                                                                                              \
    "ldrd r0, r2, [%[st], #56]\n"                                                                                \
    "vctp.8 r0\n"                                                                                                \
    LOAD                                                                                                         \
    "ldrd %[pk], %[n], [%[st], #32]\n"
/* After a row of pixels: out0 and out1 one output row on, px one input row on, the rows counted down (back to 3 while
 * rows remain), then the predicate restored. */
#define FG_MVE_NEXT_ROW                                                                                          \
    "ldrd r0, r2, [%[st], #40]\n"                                                                                \
    "mov %[out0], %[out1]\n"                                                                                     \
    "add %[out1], %[out1], r0\n"                                                                                 \
    "add %[px], %[px], r2\n"                                                                                     \
    "ldr r0, [%[st], #48]\n"                                                                                     \
    "subs r0, r0, #1\n"                                                                                          \
    "str r0, [%[st], #48]\n"                                                                                     \
    "bne 3b\n"                                                                                                   \
    "ldr r0, [%[st], #64]\n"                                                                                     \
    "vmsr p0, r0\n"

/* Every pair of pixels of a 1x1 convolution whose rows fit in STEPS vectors (in_c <= 16 x STEPS), against every block
 * of four output channels (out_c a multiple of four), in one assembly loop: the pair's rows are read once into
 * vector registers (so outputs overlapping the input as ops/overlap.py allows cannot change them, and nothing is
 * copied), then per block the eight accumulators from its bias, 8 x STEPS VMLADAVA, the requantization of two vectors
 * (fg_mve_requantize: LEFT_SHIFT, the multipliers, ROUND2 with the offset and clamp interleaved) and the stores. */
#define FG_MVE_RESIDENT_W(NAME, INIT, LOAD, DOT, SUMS, BIAS, BEHIND, ADVANCE, LEFT_SHIFT, ROUND2)               \
__attribute__((noinline)) static void NAME(fg_mve_resident_state *st, const int8_t *px, int8_t *out0,           \
                                           int8_t *out1) {                                                      \
    const int32_t *pk;                                                                                          \
    int32_t n;                                                                                                  \
    __asm__ volatile(FG_MVE_ROW_START(LOAD)                                                                     \
                     "1:\n"                                                                                     \
                     INIT                                                                                       \
                     DOT                                                                                        \
                     SUMS                                                                                       \
                     "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                          \
                     "vldrw.32 q0, [%[st]]\n"                                                                   \
                     "vldrw.32 q1, [%[st], #16]\n"                                                              \
                     BIAS                                                                                       \
                     LEFT_SHIFT                                                                                 \
                     "vldrw.32 q2, [%[pk], #-48 - " #BEHIND "]\n"                                               \
                     "vqrdmulh.s32 q0, q0, q2\n"                                                                \
                     "ldr r0, [%[st], #52]\n"                                                                   \
                     "vqrdmulh.s32 q1, q1, q2\n"                                                                \
                     ROUND2("vldrw.32 q2, [%[pk], #-16 - " #BEHIND "]\n", ADVANCE "subs %[n], %[n], #1\n",      \
                            "vadd.i32 q0, q0, r0\n" "vldrw.32 q3, [%[st], #80]\n")                             \
                     "vmax.s32 q0, q0, q3\n"                                                                    \
                     "vadd.i32 q1, q1, r0\n"                                                                    \
                     "vldrw.32 q2, [%[st], #96]\n"                                                              \
                     "vmax.s32 q1, q1, q3\n"                                                                    \
                     "vmin.s32 q0, q0, q2\n"                                                                    \
                     "vstrb.32 q0, [%[out0]], #4\n"                                                             \
                     "vmin.s32 q1, q1, q2\n"                                                                    \
                     "vstrb.32 q1, [%[out1]], #4\n"                                                             \
                     "bne 1b\n"                                                                                 \
                     FG_MVE_NEXT_ROW                                                                            \
                     FG_MVE_RESIDENT_OPERANDS);                                                                 \
}

/* INIT: the int8 GEMM layout's, the accumulators from the block's bias; SUMS and BIAS: nothing (the 4-bit ones:
 * gemm_resident_mve.c's end). */
#define FG_MVE_RESIDENT(NAME, LOAD, DOT, BEHIND, ADVANCE, LEFT_SHIFT, ROUND2)                                   \
    FG_MVE_RESIDENT_W(NAME, FG_MVE_INIT_BIAS FG_MVE_PAST_QUANT, LOAD, DOT, "", "", BEHIND, ADVANCE, LEFT_SHIFT,  \
                      ROUND2)

/* The sign fix-up of TFLite's rounding divide (FG_MVE_ROUND_DIVIDE, FG_MVE_ROUND_NEGATIVE) of acc into q3, the right
 * shifts in q2. */
#define FG_MVE_SIGN_DIVIDE(acc) "vand q3, " acc ", q2\n" "vshr.s32 q3, q3, #31\n"
#define FG_MVE_SIGN_NEGATIVE(acc) "vshr.s32 q3, " acc ", #31\n"
/* Block k-1's output stage (its sums in st, its quant block at pk + QUANT, QUANT = -176 inside the loop, -112 after
 * it) in q5 and q7. EARLY: what goes between the sums' loads (the loop: the first weight row's dot products). */
#define FG_MVE_RESIDENT1_LEFT(quant) "vldrw.32 q2, [%[pk], #" #quant " + 16]\n" "vshl.s32 q5, q5, q2\n" \
                                     "vshl.s32 q7, q7, q2\n"

/* The output stage of the pipelined loops' last block after them (FG_MVE_RESIDENT1_PIPE's in q5 and q7,
 * FG_MVE_RESIDENT2_PIPE's in q1 and q7: accumulator `a`; its quant block at pk + quant), then the next row of
 * pixels and the loop over rows, and the predicate restored. */
#define FG_MVE_PIPE_LAST(LEFT, SIGN, a, quant)                                                                   \
    "4:\n"                                                                                                       \
    "vldrw.32 " a ", [%[st]]\n"                                                                                  \
    "vldrw.32 q7, [%[st], #16]\n"                                                                                \
    LEFT(quant)                                                                                                  \
    "vldrw.32 q2, [%[pk], #" #quant "]\n"                                                                        \
    "vqrdmulh.s32 " a ", " a ", q2\n"                                                                            \
    "vqrdmulh.s32 q7, q7, q2\n"                                                                                  \
    "vldrw.32 q2, [%[pk], #" #quant " + 32]\n"                                                                   \
    SIGN(a)                                                                                                      \
    "vqadd.s32 " a ", " a ", q3\n"                                                                               \
    SIGN("q7")                                                                                                   \
    "vrshl.s32 " a ", " a ", q2\n"                                                                               \
    "vqadd.s32 q7, q7, q3\n"                                                                                     \
    "vldrw.32 q3, [%[st], #112]\n"                                                                               \
    "vrshl.s32 q7, q7, q2\n"                                                                                     \
    "vadd.i32 " a ", " a ", q3\n"                                                                                \
    "vldrw.32 q2, [%[st], #80]\n"                                                                                \
    "vadd.i32 q7, q7, q3\n"                                                                                      \
    "vmax.s32 " a ", " a ", q2\n"                                                                                \
    "vldrw.32 q3, [%[st], #96]\n"                                                                                \
    "vmax.s32 q7, q7, q2\n"                                                                                      \
    "vmin.s32 " a ", " a ", q3\n"                                                                                \
    "vstrb.32 " a ", [%[out0]], #4\n"                                                                            \
    "vmin.s32 q7, q7, q3\n"                                                                                      \
    "vstrb.32 q7, [%[out1]], #4\n"                                                                               \
    FG_MVE_NEXT_ROW

/* fg_mve_resident1's loop (rows of up to 16 taps, q4 and q6; q5 and q7 free) software-pipelined: the output stage of
 * block k-1 interleaved with the dot products of block k (weight rows in q0 and q1), so that the vector ALU work of
 * one overlaps the loads and multiplies of the other (llvm-mca's M55 model); the first block's dot products before
 * the loop, the last block's output stage after it. The same instructions per block as FG_MVE_RESIDENT's, the
 * offset from a vector (st->offsets) instead of a core register. LEFT: FG_MVE_RESIDENT1_LEFT or nothing; SIGN:
 * FG_MVE_SIGN_DIVIDE or FG_MVE_SIGN_NEGATIVE. */
#define FG_MVE_RESIDENT1_PIPE(NAME, LEFT, SIGN)                                                                   \
__attribute__((noinline)) static void NAME(fg_mve_resident_state *st, const int8_t *px, int8_t *out0,           \
                                           int8_t *out1) {                                                      \
    const int32_t *pk;                                                                                          \
    int32_t n;                                                                                                  \
    __asm__ volatile(FG_MVE_ROW_START(FG_MVE_RESIDENT_LOAD1)                                                    \
                     FG_MVE_INIT_BIAS                                                                           \
                     FG_MVE_PAST_QUANT                                                                          \
                     FG_MVE_RESIDENT_DOT1                                                                       \
                     "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                          \
                     "adds %[pk], %[pk], #64\n"                                                                 \
                     "subs %[n], %[n], #1\n"                                                                    \
                     "beq 4f\n"                                                                                 \
                     "1:\n"                                                                                     \
                     FG_MVE_INIT_BIAS                                                                           \
                     "vldrw.32 q5, [%[st]]\n"                                                                   \
                     FG_MVE_PAST_QUANT                                                                          \
                     "vldrb.8 q0, [%[pk]]\n"                                                                    \
                     "vmladava.s8 r0, q4, q0\n"                                                                 \
                     "vldrw.32 q7, [%[st], #16]\n"                                                              \
                     "vmladava.s8 r8, q6, q0\n"                                                                 \
                     LEFT(-176)                                                                                 \
                     "vldrw.32 q2, [%[pk], #-176]\n"                                                            \
                     "vqrdmulh.s32 q5, q5, q2\n"                                                                \
                     "vldrb.8 q1, [%[pk], #16]\n"                                                               \
                     "vqrdmulh.s32 q7, q7, q2\n"                                                                \
                     "vldrw.32 q2, [%[pk], #-144]\n"                                                            \
                     SIGN("q5")                                                                                 \
                     "vmladava.s8 r2, q4, q1\n"                                                                 \
                     "vqadd.s32 q5, q5, q3\n"                                                                   \
                     "vmladava.s8 r10, q6, q1\n"                                                                \
                     SIGN("q7")                                                                                 \
                     "vldrb.8 q0, [%[pk], #32]\n"                                                               \
                     "vrshl.s32 q5, q5, q2\n"                                                                   \
                     "vldrb.8 q1, [%[pk], #48]\n"                                                               \
                     "vmladava.s8 r4, q4, q0\n"                                                                 \
                     "vqadd.s32 q7, q7, q3\n"                                                                   \
                     "vmladava.s8 r12, q6, q0\n"                                                                \
                     "vrshl.s32 q7, q7, q2\n"                                                                   \
                     "vldrw.32 q3, [%[st], #112]\n"                                                             \
                     "vmladava.s8 r6, q4, q1\n"                                                                 \
                     "vadd.i32 q5, q5, q3\n"                                                                    \
                     "vldrw.32 q2, [%[st], #80]\n"                                                              \
                     "vadd.i32 q7, q7, q3\n"                                                                    \
                     "vldrw.32 q3, [%[st], #96]\n"                                                              \
                     "vmax.s32 q5, q5, q2\n"                                                                    \
                     "vmladava.s8 lr, q6, q1\n"                                                                 \
                     "vmin.s32 q5, q5, q3\n"                                                                    \
                     "vstrb.32 q5, [%[out0]], #4\n"                                                             \
                     "vmax.s32 q7, q7, q2\n"                                                                    \
                     "adds %[pk], %[pk], #64\n"                                                                 \
                     "vmin.s32 q7, q7, q3\n"                                                                    \
                     "vstrb.32 q7, [%[out1]], #4\n"                                                             \
                     "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                          \
                     "subs %[n], %[n], #1\n"                                                                    \
                     "bne 1b\n"                                                                                 \
                     FG_MVE_PIPE_LAST(LEFT, SIGN, "q5", -112)                                                   \
                     FG_MVE_RESIDENT_OPERANDS);                                                                 \
}

/* fg_mve_resident2's loop (rows of 17 to 32 taps) software-pipelined as FG_MVE_RESIDENT1_PIPE: row 0 in q4 and q5,
 * row 1 (px: its start) read into q6 a vector at a time as the dot products go, every weight row in q0 (two
 * VMLADAVA after each load), so that q1, q2, q3 and q7 take block k-1's output stage while block k's dot products
 * run (llvm-mca's M55 model). Three instructions a block more than FG_MVE_RESIDENT's (row 1's loads). */
#define FG_MVE_RESIDENT2_PIPE(NAME, LEFT, SIGN)                                                                   \
__attribute__((noinline)) static void NAME(fg_mve_resident_state *st, const int8_t *px, int8_t *out0,           \
                                           int8_t *out1) {                                                      \
    const int32_t *pk;                                                                                          \
    int32_t n;                                                                                                  \
    __asm__ volatile(                                                                                           \
                     "vmrs r0, p0\n"                                                                            \
                     "str r0, [%[st], #64]\n"                                                                   \
                     "3:\n"                                                                                     \
                     "ldrd r0, r2, [%[st], #56]\n"                                                              \
                     "vctp.8 r0\n"                                                                              \
                     "sub r2, %[px], r2\n"                                                                      \
                     "vldrb.8 q4, [r2]\n"                                                                       \
                     "vpst\n"                                                                                   \
                     "vldrbt.8 q5, [r2, #16]\n"                                                                 \
                     "ldrd %[pk], %[n], [%[st], #32]\n"                                                         \
                     FG_MVE_INIT_BIAS                                                                           \
                     FG_MVE_PAST_QUANT                                                                          \
                     "vldrb.8 q0, [%[pk]]\n"                                                                    \
                     "vldrb.8 q6, [%[px]]\n"                                                                    \
                     "vmladava.s8 r0, q4, q0\n"                                                                 \
                     "vmladava.s8 r8, q6, q0\n"                                                                 \
                     "vldrb.8 q0, [%[pk], #16]\n"                                                               \
                     "vmladava.s8 r2, q4, q0\n"                                                                 \
                     "vmladava.s8 r10, q6, q0\n"                                                                \
                     "vldrb.8 q0, [%[pk], #32]\n"                                                               \
                     "vmladava.s8 r4, q4, q0\n"                                                                 \
                     "vmladava.s8 r12, q6, q0\n"                                                                \
                     "vldrb.8 q0, [%[pk], #48]\n"                                                               \
                     "vmladava.s8 r6, q4, q0\n"                                                                 \
                     "vmladava.s8 lr, q6, q0\n"                                                                 \
                     "vldrb.8 q0, [%[pk], #64]\n"                                                               \
                     "vpst\n"                                                                                   \
                     "vldrbt.8 q6, [%[px], #16]\n"                                                              \
                     "vmladava.s8 r0, q5, q0\n"                                                                 \
                     "vmladava.s8 r8, q6, q0\n"                                                                 \
                     "vldrb.8 q0, [%[pk], #80]\n"                                                               \
                     "vmladava.s8 r2, q5, q0\n"                                                                 \
                     "vmladava.s8 r10, q6, q0\n"                                                                \
                     "vldrb.8 q0, [%[pk], #96]\n"                                                               \
                     "vmladava.s8 r4, q5, q0\n"                                                                 \
                     "vmladava.s8 r12, q6, q0\n"                                                                \
                     "vldrb.8 q0, [%[pk], #112]\n"                                                              \
                     "vmladava.s8 r6, q5, q0\n"                                                                 \
                     "vmladava.s8 lr, q6, q0\n"                                                                 \
                     "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                          \
                     "adds %[pk], %[pk], #128\n"                                                                \
                     "subs %[n], %[n], #1\n"                                                                    \
                     "beq 4f\n"                                                                                 \
                     "1:\n"                                                                                     \
                     "ldm %[pk], {r8, r10, r12, lr}\n"                                                          \
                     "vldrw.32 q1, [%[st]]\n"                                                                   \
                     "ldm %[pk]!, {r0, r2, r4, r6}\n"                                                           \
                     "vldrb.8 q6, [%[px]]\n"                                                                    \
                     FG_MVE_PAST_QUANT                                                                          \
                     "vldrb.8 q0, [%[pk]]\n"                                                                    \
                     "vmladava.s8 r0, q4, q0\n"                                                                 \
                     "vldrw.32 q7, [%[st], #16]\n"                                                              \
                     "vmladava.s8 r8, q6, q0\n"                                                                 \
                     "vldrb.8 q0, [%[pk], #16]\n"                                                               \
                     "vmladava.s8 r10, q6, q0\n"                                                                \
                     "vmladava.s8 r2, q4, q0\n"                                                                 \
                     LEFT(-240)                                                                                 \
                     "vldrw.32 q2, [%[pk], #-240]\n"                                                            \
                     "vqrdmulh.s32 q7, q7, q2\n"                                                                \
                     "vldrb.8 q0, [%[pk], #32]\n"                                                               \
                     "vqrdmulh.s32 q1, q1, q2\n"                                                                \
                     "vldrw.32 q2, [%[pk], #-208]\n"                                                            \
                     "vmladava.s8 r4, q4, q0\n"                                                                 \
                     SIGN("q1")                                                                                 \
                     "vmladava.s8 r12, q6, q0\n"                                                                \
                     "vldrb.8 q0, [%[pk], #48]\n"                                                               \
                     "vqadd.s32 q1, q1, q3\n"                                                                   \
                     "vmladava.s8 r6, q4, q0\n"                                                                 \
                     SIGN("q7")                                                                                 \
                     "vmladava.s8 lr, q6, q0\n"                                                                 \
                     "vrshl.s32 q1, q1, q2\n"                                                                   \
                     "vldrb.8 q0, [%[pk], #64]\n"                                                               \
                     "vqadd.s32 q7, q7, q3\n"                                                                   \
                     "vpst\n"                                                                                   \
                     "vldrbt.8 q6, [%[px], #16]\n"                                                              \
                     "vmladava.s8 r0, q5, q0\n"                                                                 \
                     "vrshl.s32 q7, q7, q2\n"                                                                   \
                     "vmladava.s8 r8, q6, q0\n"                                                                 \
                     "vldrb.8 q0, [%[pk], #80]\n"                                                               \
                     "vmladava.s8 r2, q5, q0\n"                                                                 \
                     "vldrw.32 q3, [%[st], #112]\n"                                                             \
                     "vadd.i32 q1, q1, q3\n"                                                                    \
                     "vmladava.s8 r10, q6, q0\n"                                                                \
                     "vldrw.32 q2, [%[st], #80]\n"                                                              \
                     "vadd.i32 q7, q7, q3\n"                                                                    \
                     "vldrb.8 q0, [%[pk], #96]\n"                                                               \
                     "vmax.s32 q1, q1, q2\n"                                                                    \
                     "vmladava.s8 r4, q5, q0\n"                                                                 \
                     "vldrw.32 q3, [%[st], #96]\n"                                                              \
                     "vmax.s32 q7, q7, q2\n"                                                                    \
                     "vmladava.s8 r12, q6, q0\n"                                                                \
                     "vldrb.8 q0, [%[pk], #112]\n"                                                              \
                     "vmin.s32 q1, q1, q3\n"                                                                    \
                     "vmladava.s8 lr, q6, q0\n"                                                                 \
                     "vstrb.32 q1, [%[out0]], #4\n"                                                             \
                     "vmin.s32 q7, q7, q3\n"                                                                    \
                     "adds %[pk], %[pk], #128\n"                                                                \
                     "vmladava.s8 r6, q5, q0\n"                                                                 \
                     "vstrb.32 q7, [%[out1]], #4\n"                                                             \
                     "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                          \
                     "subs %[n], %[n], #1\n"                                                                    \
                     "bne 1b\n"                                                                                 \
                     FG_MVE_PIPE_LAST(LEFT, SIGN, "q1", -176)                                                   \
                     FG_MVE_RESIDENT_OPERANDS);                                                                 \
}
/* LEFT for q1 and q7 (FG_MVE_RESIDENT2_PIPE's accumulators). */
#define FG_MVE_RESIDENT2_LEFT(quant) "vldrw.32 q2, [%[pk], #" #quant " + 16]\n" "vshl.s32 q1, q1, q2\n" \
                                     "vshl.s32 q7, q7, q2\n"

#define FG_MVE_PAST_BLOCK(bytes) "adds %[pk], %[pk], #" #bytes "\n"
typedef void fg_mve_resident_loop(fg_mve_resident_state *st, const int8_t *px, int8_t *out0, int8_t *out1);
/* The loops of one row size, by kind: 1 with the left shift, 2 every channel shifting right (a layer that shifts left
 * has a channel that does not shift right), else 0. */
#define FG_MVE_RESIDENT_KINDS(NAME, LOAD, DOT, BEHIND, ADVANCE)                                                  \
    FG_MVE_RESIDENT(NAME##_plain, LOAD, DOT, BEHIND, ADVANCE, "", FG_MVE_ROUND2_DIVIDE)                           \
    FG_MVE_RESIDENT(NAME##_shifted, LOAD, DOT, BEHIND, ADVANCE, FG_MVE_RESIDENT_LEFT_SHIFT(BEHIND),              \
                    FG_MVE_ROUND2_DIVIDE)                                                                        \
    FG_MVE_RESIDENT(NAME##_negative, LOAD, DOT, BEHIND, ADVANCE, "", FG_MVE_ROUND2_NEGATIVE)                      \
    static fg_mve_resident_loop *const NAME[3] = {NAME##_plain, NAME##_shifted, NAME##_negative};
#define FG_MVE_NO_LEFT(quant) ""
FG_MVE_RESIDENT1_PIPE(fg_mve_resident1_plain, FG_MVE_NO_LEFT, FG_MVE_SIGN_DIVIDE)
FG_MVE_RESIDENT1_PIPE(fg_mve_resident1_shifted, FG_MVE_RESIDENT1_LEFT, FG_MVE_SIGN_DIVIDE)
FG_MVE_RESIDENT1_PIPE(fg_mve_resident1_negative, FG_MVE_NO_LEFT, FG_MVE_SIGN_NEGATIVE)
static fg_mve_resident_loop *const fg_mve_resident1[3] = {fg_mve_resident1_plain, fg_mve_resident1_shifted,
                                                          fg_mve_resident1_negative};
FG_MVE_RESIDENT2_PIPE(fg_mve_resident2_plain, FG_MVE_NO_LEFT, FG_MVE_SIGN_DIVIDE)
FG_MVE_RESIDENT2_PIPE(fg_mve_resident2_shifted, FG_MVE_RESIDENT2_LEFT, FG_MVE_SIGN_DIVIDE)
FG_MVE_RESIDENT2_PIPE(fg_mve_resident2_negative, FG_MVE_NO_LEFT, FG_MVE_SIGN_NEGATIVE)
static fg_mve_resident_loop *const fg_mve_resident2[3] = {fg_mve_resident2_plain, fg_mve_resident2_shifted,
                                                          fg_mve_resident2_negative};
FG_MVE_RESIDENT_KINDS(fg_mve_half3, FG_MVE_HALF_LOAD3, FG_MVE_HALF_DOT3, 192, "")
FG_MVE_RESIDENT_KINDS(fg_mve_half4, FG_MVE_HALF_LOAD4, FG_MVE_HALF_DOT4, 256, "")

/* fg_mve_half4_negative software-pipelined (as FG_MVE_RESIDENT1_PIPE): block k's weight rows through q0 alone (two
 * VMLADAVA after each load), so that q1 and q2 take block k-1's output stage (FG_MVE_ROUND2_NEGATIVE's arithmetic,
 * the offset from st->offsets) while block k's dot products run, its multipliers, shifts, offsets and clamp loaded
 * into q0 between weight rows or into q3 between row 1's vectors; the order a hill climb over dependency-preserving
 * swaps in llvm-mca's M55 model (95 cycles a block with its branch, 104 for FG_MVE_RESIDENT's). The quant block
 * k-1's, 368 bytes before block k's weights; the same instructions per block as fg_mve_half4_negative's. The first
 * block's row start and dot products as there (FG_MVE_ROW_START, FG_MVE_HALF_DOT4) in the order of the same climb
 * (80 cycles a pair, 84 as written there), the last block's output stage after the loop (FG_MVE_PIPE_LAST).
 * ROW1_LAST: the load of row 1's last vector (FG_MVE_ROW1_LAST, or FG_MVE_ROW1 where rows are 64 taps). */
#define FG_MVE_HALF4_PIPE(NAME, ROW1_LAST)                                                                          \
__attribute__((noinline)) static void NAME(fg_mve_resident_state *st, const int8_t *px, int8_t *out0, int8_t *out1) { \
    const int32_t *pk;                                                                                               \
    int32_t n;                                                                                                       \
    __asm__ volatile(FG_MVE_ROW_SAVE                                                                                 \
                     "ldrd r0, r2, [%[st], #56]\n"                                                                   \
                     "ldrd %[pk], %[n], [%[st], #32]\n"                                                              \
                     "sub r2, %[px], r2\n"                                                                           \
                     "vldrb.8 q4, [r2]\n"                                                                            \
                     "vctp.8 r0\n"                                                                                   \
                     "vldrb.8 q5, [r2, #16]\n"                                                                       \
                     "ldm %[pk], {r8, r10, r12, lr}\n"                                                               \
                     "vldrb.8 q6, [r2, #32]\n"                                                                       \
                     "vpst\n"                                                                                        \
                     "vldrbt.8 q7, [r2, #48]\n"                                                                      \
                     "ldm %[pk]!, {r0, r2, r4, r6}\n"                                                                \
                     "adds %[pk], %[pk], #48\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r0, q4, q0\n"                                                                      \
                     "vldrb.8 q3, [%[px]]\n"                                                                         \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrb.8 q1, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r10, q3, q1\n"                                                                     \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vldrb.8 q2, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 lr, q3, q2\n"                                                                      \
                     "vmladava.s8 r4, q4, q0\n"                                                                      \
                     "vmladava.s8 r6, q4, q2\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r2, q4, q1\n"                                                                      \
                     "vldrb.8 q3, [%[px], #16]\n"                                                                    \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrb.8 q1, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r0, q5, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r4, q5, q0\n"                                                                      \
                     "vldrb.8 q2, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r10, q3, q1\n"                                                                     \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r2, q5, q1\n"                                                                      \
                     "vmladava.s8 lr, q3, q2\n"                                                                      \
                     "vldrb.8 q1, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r2, q6, q1\n"                                                                      \
                     "vmladava.s8 r0, q6, q0\n"                                                                      \
                     "vmladava.s8 r6, q5, q2\n"                                                                      \
                     "vldrb.8 q3, [%[px], #32]\n"                                                                    \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r4, q6, q0\n"                                                                      \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vldrb.8 q2, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r10, q3, q1\n"                                                                     \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r0, q7, q0\n"                                                                      \
                     "vldrb.8 q1, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 lr, q3, q2\n"                                                                      \
                     "vpst\n"                                                                                        \
                     "vldrbt.8 q3, [%[px], #48]\n"                                                                   \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r2, q7, q1\n"                                                                      \
                     "vmladava.s8 r6, q6, q2\n"                                                                      \
                     "vldrb.8 q2, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vmladava.s8 r4, q7, q0\n"                                                                      \
                     "vmladava.s8 r10, q3, q1\n"                                                                     \
                     "vmladava.s8 lr, q3, q2\n"                                                                      \
                     "subs %[n], %[n], #1\n"                                                                         \
                     "vmladava.s8 r6, q7, q2\n"                                                                      \
                     "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                               \
                     "beq 4f\n"                                                                                      \
                     "1:\n"                                                                                          \
                     FG_MVE_INIT_BIAS                                                                                \
                     "vldrb.8 q3, [%[px]]\n"                                                                         \
                     FG_MVE_PAST_QUANT                                                                               \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r0, q4, q0\n"                                                                      \
                     "vldrw.32 q1, [%[st]]\n"                                                                        \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrw.32 q0, [%[pk], #-384]\n"                                                                 \
                     "vqrdmulh.s32 q1, q1, q0\n"                                                                     \
                     "vldrw.32 q2, [%[st], #16]\n"                                                                   \
                     "vqrdmulh.s32 q2, q2, q0\n"                                                                     \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r2, q4, q0\n"                                                                      \
                     "vmladava.s8 r10, q3, q0\n"                                                                     \
                     "vshr.s32 q0, q1, #31\n"                                                                        \
                     "vqadd.s32 q1, q1, q0\n"                                                                        \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r4, q4, q0\n"                                                                      \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vshr.s32 q0, q2, #31\n"                                                                        \
                     "vqadd.s32 q2, q2, q0\n"                                                                        \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 lr, q3, q0\n"                                                                      \
                     "vldrw.32 q3, [%[pk], #-400]\n"                                                                 \
                     "vmladava.s8 r6, q4, q0\n"                                                                      \
                     "vrshl.s32 q2, q2, q3\n"                                                                        \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vrshl.s32 q1, q1, q3\n"                                                                        \
                     "vldrw.32 q3, [%[st], #112]\n"                                                                  \
                     "vadd.i32 q2, q2, q3\n"                                                                         \
                     "vmladava.s8 r0, q5, q0\n"                                                                      \
                     "vadd.i32 q1, q1, q3\n"                                                                         \
                     "vldrb.8 q3, [%[px], #16]\n"                                                                    \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrw.32 q0, [%[st], #80]\n"                                                                   \
                     "vmax.s32 q2, q2, q0\n"                                                                         \
                     "vmax.s32 q1, q1, q0\n"                                                                         \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r2, q5, q0\n"                                                                      \
                     "vmladava.s8 r10, q3, q0\n"                                                                     \
                     "vldrw.32 q0, [%[st], #96]\n"                                                                   \
                     "vmin.s32 q1, q1, q0\n"                                                                         \
                     "vstrb.32 q1, [%[out0]], #4\n"                                                                  \
                     "vmin.s32 q2, q2, q0\n"                                                                         \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vmladava.s8 r4, q5, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 lr, q3, q0\n"                                                                      \
                     "vstrb.32 q2, [%[out1]], #4\n"                                                                  \
                     "vmladava.s8 r6, q5, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r0, q6, q0\n"                                                                      \
                     "vldrb.8 q3, [%[px], #32]\n"                                                                    \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r10, q3, q0\n"                                                                     \
                     "vmladava.s8 r2, q6, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r4, q6, q0\n"                                                                      \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 lr, q3, q0\n"                                                                      \
                     "vmladava.s8 r6, q6, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r0, q7, q0\n"                                                                      \
                     ROW1_LAST                                                                                       \
                     "vmladava.s8 r8, q3, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r10, q3, q0\n"                                                                     \
                     "vmladava.s8 r2, q7, q0\n"                                                                      \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r4, q7, q0\n"                                                                      \
                     "subs %[n], %[n], #1\n"                                                                         \
                     "vmladava.s8 r12, q3, q0\n"                                                                     \
                     "vldrb.8 q0, [%[pk]], #16\n"                                                                    \
                     "vmladava.s8 r6, q7, q0\n"                                                                      \
                     "vmladava.s8 lr, q3, q0\n"                                                                      \
                     "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                               \
                     "bne 1b\n"                                                                                      \
                     FG_MVE_PIPE_LAST(FG_MVE_NO_LEFT, FG_MVE_SIGN_NEGATIVE, "q1", -304)                              \
                     FG_MVE_RESIDENT_OPERANDS);                                                                      \
}
FG_MVE_HALF4_PIPE(fg_mve_half4_pipe, FG_MVE_ROW1_LAST(48))
/* Rows of 64 taps: row 1's last vector whole, no predicate (94 cycles a block, its branch included, 95 above). */
FG_MVE_HALF4_PIPE(fg_mve_half4_pipe_whole, FG_MVE_ROW1(48))

/* st for `pairs` pairs of rows of in_c taps against out_c channels from packed; returns the loops' kind (1 with the
 * left shift, 2 every channel shifting right, else 0) for a layout of step_words words per 16 taps. */
__attribute__((always_inline)) static inline int fg_mve_resident_begin(fg_mve_resident_state *st, int32_t pairs,
                                                                       int32_t in_c, int32_t out_c,
                                                                       const int32_t *packed,
                                                                       const fg_mve_clamp *clamp, int shifts_left,
                                                                       int32_t step_words) {
    st->packed = packed;
    st->blocks = out_c >> 2;
    st->out_c = out_c;
    st->pair_step = 2 * in_c;
    st->pairs = pairs;
    st->offset = clamp->offset;
    st->tail = in_c - 16 * ((in_c - 1) >> 4);  /* 1 to 16 */
    st->in_c = in_c;
    st->low = clamp->low;
    st->high = clamp->high;
    st->offsets = vdupq_n_s32(clamp->offset);
    return shifts_left ? 1 : 2 * fg_mve_rights_negative(packed, out_c >> 2, fg_mve_block_words(in_c, step_words));
}

void fg_mve_resident_pairs(const int8_t *input, int32_t pairs, int32_t in_c, int32_t out_c, const int32_t *packed,
                           const fg_mve_clamp *clamp, int shifts_left, int8_t *output) {
    fg_mve_resident_state st;
    const int kind = fg_mve_resident_begin(&st, pairs, in_c, out_c, packed, clamp, shifts_left, 16);
    if (in_c > 48) {  /* row 1 read as it goes, from its start */
        fg_mve_resident_loop *const loop = kind != 2    ? fg_mve_half4[kind]
                                           : in_c == 64 ? fg_mve_half4_pipe_whole
                                                        : fg_mve_half4_pipe;
        loop(&st, input + in_c, output, output + out_c);
    } else if (in_c > 32) {
        fg_mve_half3[kind](&st, input + in_c, output, output + out_c);
    } else if (in_c > 16) {
        fg_mve_resident2[kind](&st, input + in_c, output, output + out_c);  /* row 1 read as it goes */
    } else {
        fg_mve_resident1[kind](&st, input, output, output + out_c);
    }
}

/* The offset 4-bit GEMM layout (gemm_s4_mve.c) through FG_MVE_RESIDENT_W: per step of 16 taps the block's two weight
 * vectors (channels 0 and 1, 2 and 3), each dotted as loaded (16 B + A + 8 of its pair) and after one VSHR (B): 12
 * instructions as the int8 layout's four weight rows; both rows held in q4-q7 up to 32 taps (the int8 loops read row 1
 * as they go past 16), row 1 read as it goes past that (q3). The accumulators start from the row terms before the
 * state (-8 x each row's sum on channels 0 and 2, taken as a pair's rows are loaded), A's sums less 16 x B's after the
 * dot products, the block's bias added as a vector. */
#define FG_MVE_RESIDENT_STEP_S4(x0, x1)         \
    "vldrb.8 q0, [%[pk]], #32\n"               \
    "vldrb.8 q2, [%[pk], #-16]\n"              \
    "vmladava.s8 r0, " x0 ", q0\n"             \
    "vshr.s8 q1, q0, #4\n"                     \
    "vmladava.s8 r8, " x1 ", q0\n"             \
    "vmladava.s8 r2, " x0 ", q1\n"             \
    "vshr.s8 q3, q2, #4\n"                     \
    "vmladava.s8 r10, " x1 ", q1\n"            \
    "vmladava.s8 r4, " x0 ", q2\n"             \
    "vmladava.s8 r12, " x1 ", q2\n"            \
    "vmladava.s8 r6, " x0 ", q3\n"             \
    "vmladava.s8 lr, " x1 ", q3\n"
#define FG_MVE_HALF_STEP_S4(LOAD_ROW1, x0)      \
    "vldrb.8 q0, [%[pk]], #32\n"               \
    "vmladava.s8 r0, " x0 ", q0\n"             \
    LOAD_ROW1                                   \
    "vshr.s8 q1, q0, #4\n"                     \
    "vmladava.s8 r8, q3, q0\n"                 \
    "vldrb.8 q0, [%[pk], #-16]\n"              \
    "vmladava.s8 r2, " x0 ", q1\n"             \
    "vmladava.s8 r10, q3, q1\n"                \
    "vshr.s8 q1, q0, #4\n"                     \
    "vmladava.s8 r4, " x0 ", q0\n"             \
    "vmladava.s8 r12, q3, q0\n"                \
    "vmladava.s8 r6, " x0 ", q1\n"             \
    "vmladava.s8 lr, q3, q1\n"
/* The row terms of row 0's sum (in r0) and row 1's (r2). */
#define FG_MVE_ROW_TERMS_S4                     \
    "lsls r0, r0, #3\n"                        \
    "lsls r2, r2, #3\n"                        \
    "negs r0, r0\n"                            \
    "negs r2, r2\n"                            \
    "str r0, [%[st], #-32]\n"                  \
    "str r0, [%[st], #-24]\n"                  \
    "str r2, [%[st], #-16]\n"                  \
    "str r2, [%[st], #-8]\n"
/* Rows of up to 16 or 32 taps (px: row 0): row 0 into q4 (q5), row 1 into q6 (q7), the last vectors predicated. */
#define FG_MVE_RESIDENT_LOAD1_S4                \
    FG_MVE_RESIDENT_LOAD1                       \
    "vaddv.s8 r0, q4\n"                        \
    "vaddv.s8 r2, q6\n"                        \
    FG_MVE_ROW_TERMS_S4
#define FG_MVE_RESIDENT_LOAD2_S4                \
    "add r2, r2, %[px]\n"                      \
    "vldrb.8 q4, [%[px]]\n"                    \
    "vldrb.8 q6, [r2]\n"                       \
    "vpstt\n"                                  \
    "vldrbt.8 q5, [%[px], #16]\n"              \
    "vldrbt.8 q7, [r2, #16]\n"                 \
    "vaddv.s8 r0, q4\n"                        \
    "vaddva.s8 r0, q5\n"                       \
    "vaddv.s8 r2, q6\n"                        \
    "vaddva.s8 r2, q7\n"                       \
    FG_MVE_ROW_TERMS_S4
/* Rows of 33 to 64 taps (px: row 1): row 0 as FG_MVE_HALF_LOAD3 and 4 take it, row 1 read for its sum. */
#define FG_MVE_HALF_SUMS_S4(row1_rest)          \
    "vldrb.8 q0, [%[px]]\n"                    \
    "vldrb.8 q1, [%[px], #16]\n"               \
    "vaddv.s8 r0, q4\n"                        \
    "vaddva.s8 r0, q5\n"                       \
    "vaddva.s8 r0, q6\n"                       \
    "vaddv.s8 r2, q0\n"                        \
    "vaddva.s8 r2, q1\n"                       \
    row1_rest                                   \
    FG_MVE_ROW_TERMS_S4
#define FG_MVE_HALF_LOAD3_S4                    \
    FG_MVE_HALF_LOAD3                           \
    FG_MVE_HALF_SUMS_S4("vpst\n" "vldrbt.8 q2, [%[px], #32]\n" "vaddva.s8 r2, q2\n")
#define FG_MVE_HALF_LOAD4_S4                    \
    FG_MVE_HALF_LOAD4                           \
    FG_MVE_HALF_SUMS_S4("vaddva.s8 r0, q7\n" "vldrb.8 q2, [%[px], #32]\n" "vpst\n" "vldrbt.8 q3, [%[px], #48]\n" \
                        "vaddva.s8 r2, q2\n" "vaddva.s8 r2, q3\n")
#define FG_MVE_INIT_S4 "ldmdb %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n" "adds %[pk], %[pk], #64\n"
#define FG_MVE_SUMS_S4                          \
    "sub r0, r0, r2, lsl #4\n"                 \
    "sub r4, r4, r6, lsl #4\n"                 \
    "sub r8, r8, r10, lsl #4\n"                \
    "sub r12, r12, lr, lsl #4\n"
#define FG_MVE_BIAS_S4(behind) "vldrw.32 q2, [%[pk], #-64 - " #behind "]\n" "vadd.i32 q0, q0, q2\n" \
                               "vadd.i32 q1, q1, q2\n"
#define FG_MVE_RESIDENT_S4(NAME, LOAD, DOT, BEHIND, LEFT_SHIFT, ROUND2)                                          \
    FG_MVE_RESIDENT_W(NAME, FG_MVE_INIT_S4, LOAD, DOT, FG_MVE_SUMS_S4, FG_MVE_BIAS_S4(BEHIND), BEHIND, "",        \
                      LEFT_SHIFT, ROUND2)
#define FG_MVE_RESIDENT_KINDS_S4(NAME, LOAD, DOT, BEHIND)                                                        \
    FG_MVE_RESIDENT_S4(NAME##_plain, LOAD, DOT, BEHIND, "", FG_MVE_ROUND2_DIVIDE)                                \
    FG_MVE_RESIDENT_S4(NAME##_shifted, LOAD, DOT, BEHIND, FG_MVE_RESIDENT_LEFT_SHIFT(BEHIND), FG_MVE_ROUND2_DIVIDE) \
    FG_MVE_RESIDENT_S4(NAME##_negative, LOAD, DOT, BEHIND, "", FG_MVE_ROUND2_NEGATIVE)                           \
    static fg_mve_resident_loop *const NAME[3] = {NAME##_plain, NAME##_shifted, NAME##_negative};
FG_MVE_RESIDENT_KINDS_S4(fg_mve_resident1_s4, FG_MVE_RESIDENT_LOAD1_S4, FG_MVE_RESIDENT_STEP_S4("q4", "q6"), 32)
FG_MVE_RESIDENT_KINDS_S4(fg_mve_resident2_s4, FG_MVE_RESIDENT_LOAD2_S4,
                         FG_MVE_RESIDENT_STEP_S4("q4", "q6") FG_MVE_RESIDENT_STEP_S4("q5", "q7"), 64)
FG_MVE_RESIDENT_KINDS_S4(fg_mve_half3_s4, FG_MVE_HALF_LOAD3_S4,
                         FG_MVE_HALF_STEP_S4(FG_MVE_ROW1(0), "q4") FG_MVE_HALF_STEP_S4(FG_MVE_ROW1(16), "q5")
                         FG_MVE_HALF_STEP_S4(FG_MVE_ROW1_LAST(32), "q6"), 96)
FG_MVE_RESIDENT_KINDS_S4(fg_mve_half4_s4, FG_MVE_HALF_LOAD4_S4,
                         FG_MVE_HALF_STEP_S4(FG_MVE_ROW1(0), "q4") FG_MVE_HALF_STEP_S4(FG_MVE_ROW1(16), "q5")
                         FG_MVE_HALF_STEP_S4(FG_MVE_ROW1(32), "q6") FG_MVE_HALF_STEP_S4(FG_MVE_ROW1_LAST(48), "q7"),
                         128)

void fg_mve_resident_pairs_s4(const int8_t *input, int32_t pairs, int32_t in_c, int32_t out_c, const int32_t *packed,
                              const fg_mve_clamp *clamp, int shifts_left, int8_t *output) {
    fg_mve_resident_state_s4 with_terms;
    fg_mve_resident_state *st = &with_terms.st;
    for (int32_t k = 0; k < 8; ++k) {
        with_terms.row_terms[k] = 0;
    }
    const int kind = fg_mve_resident_begin(st, pairs, in_c, out_c, packed, clamp, shifts_left, 8);
    if (in_c > 48) {
        fg_mve_half4_s4[kind](st, input + in_c, output, output + out_c);
    } else if (in_c > 32) {
        fg_mve_half3_s4[kind](st, input + in_c, output, output + out_c);
    } else if (in_c > 16) {
        fg_mve_resident2_s4[kind](st, input, output, output + out_c);
    } else {
        fg_mve_resident1_s4[kind](st, input, output, output + out_c);
    }
}

#endif /* __ARM_FEATURE_MVE */
