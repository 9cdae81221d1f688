#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

/* 16 taps of one row against two blocks of four weight rows (at pk and pk1): one load of the row, eight weight loads
 * and eight VMLADAVA, the loads a step ahead of their products. */
#define FG_MVE_STEP1X8                          \
    "vldrb.8 q0, [%[px]], #16\n"               \
    "vldrb.8 q1, [%[pk]], #64\n"               \
    "vldrb.8 q2, [%[pk], #-48]\n"              \
    "vmladava.s8 r0, q0, q1\n"                 \
    "vldrb.8 q3, [%[pk], #-32]\n"              \
    "vmladava.s8 r2, q0, q2\n"                 \
    "vldrb.8 q1, [%[pk], #-16]\n"              \
    "vmladava.s8 r4, q0, q3\n"                 \
    "vldrb.8 q2, [%[pk1]], #64\n"              \
    "vmladava.s8 r6, q0, q1\n"                 \
    "vldrb.8 q3, [%[pk1], #-48]\n"             \
    "vmladava.s8 r8, q0, q2\n"                 \
    "vldrb.8 q1, [%[pk1], #-32]\n"             \
    "vmladava.s8 r10, q0, q3\n"                \
    "vldrb.8 q2, [%[pk1], #-16]\n"             \
    "vmladava.s8 r12, q0, q1\n"                \
    "vmladava.s8 lr, q0, q2\n"

/* The left shifts of the two blocks' accumulators (block A's multipliers at px, block B's quant block at pk), for
 * layers where some channel shifts left. */
#define FG_MVE_ROW_LEFT_SHIFT                   \
    "vldrw.32 q2, [%[px], #16]\n"              \
    "vshl.s32 q0, q0, q2\n"                    \
    "vldrw.32 q2, [%[pk], #32]\n"              \
    "vshl.s32 q1, q1, q2\n"

/* Every pair of full blocks of four output channels of one row, in one assembly loop, as fg_mve_gemm_blocks2 runs
 * two rows: the eight accumulators from the two blocks' bias words, the dot products (unrolled 8 times, entered by
 * TBB at steps % 8 before the end), then through sums[] into two vectors, requantized with each block's quantization
 * and stored together. Returns the packed pointer after the last pair. */
#define FG_MVE_ROWS8(NAME, LEFT_SHIFT, INIT, STEP, SUMS, BIAS)                                           \
__attribute__((noinline)) static const int32_t *NAME(fg_mve_row_state *st, const int32_t *packed,                \
                                                     const fg_mve_clamp *clamp, int32x4_t v) {                   \
    const int32x4_t low = clamp->low, high = clamp->high;                                                       \
    const int8_t *px;                                                                                            \
    const int32_t *pk1;                                                                                          \
    int32_t n, t;                                                                                                \
    __asm__ volatile("2:\n"                                                                                      \
                     "ldr %[n], [%[st], #12]\n"                                                                  \
                     "add %[pk1], %[pk], %[n]\n"                                                                 \
                     INIT                                                                                        \
                     "ldrd %[px], %[n], [%[st]]\n"                                                               \
                     "ldr %[t], [%[st], #20]\n"                                                                  \
                     FG_MVE_UNROLLED8(STEP)                                                                      \
                     SUMS                                                                                        \
                     "add %[px], %[st], #32\n"                                                                   \
                     "stm %[px], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                           \
                     "vldrw.32 q0, [%[px]]\n"                                                                    \
                     "vldrw.32 q1, [%[px], #16]\n"                                                               \
                     "ldr %[px], [%[st], #16]\n"                                                                 \
                     BIAS                                                                                        \
                     LEFT_SHIFT                                                                                  \
                     "vldrw.32 q2, [%[px]]\n"                                                                    \
                     "vqrdmulh.s32 q0, q0, q2\n"                                                                 \
                     "vldrw.32 q2, [%[pk], #16]\n"                                                               \
                     "vqrdmulh.s32 q1, q1, q2\n"                                                                 \
                     "vldrw.32 q2, [%[px], #32]\n"                                                               \
                     FG_MVE_ROUND_DIVIDE("q0")                                                                   \
                     "vldrw.32 q2, [%[pk], #48]\n"                                                               \
                     FG_MVE_ROUND_DIVIDE("q1")                                                                   \
                     FG_MVE_OFFSET_CLAMP2                                                                        \
                     "ldr r0, [%[st], #8]\n"                                                                     \
                     "vstrb.32 q0, [r0]\n"                                                                       \
                     "vstrb.32 q1, [r0, #4]\n"                                                                   \
                     "adds r0, r0, #8\n"                                                                         \
                     "str r0, [%[st], #8]\n"                                                                     \
                     "mov %[pk], %[pk1]\n"                                                                       \
                     "ldr r0, [%[st], #24]\n"                                                                    \
                     "cmp %[pk], r0\n"                                                                           \
                     "bne 2b\n"                                                                                  \
                     : [pk] "+r"(packed), [px] "=&r"(px), [pk1] "=&r"(pk1), [n] "=&r"(n), [t] "=&r"(t)           \
                     : [st] "r"(st), [v] "w"(v), [lo] "w"(low), [hi] "w"(high)                                   \
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory", "cc"); \
    return packed;                                                                                               \
}

/* The int8 GEMM layout's blocks: the accumulators from the two blocks' bias words, the quant pointer (st, 16) at block
 * A's multipliers. */
#define FG_MVE_ROW_INIT                         \
    "ldm %[pk1]!, {r8, r10, r12, lr}\n"        \
    "ldm %[pk]!, {r0, r2, r4, r6}\n"           \
    "str %[pk], [%[st], #16]\n"                \
    "adds %[pk], %[pk], #48\n"                 \
    "adds %[pk1], %[pk1], #48\n"
FG_MVE_ROWS8(fg_mve_rows8_shifted, FG_MVE_ROW_LEFT_SHIFT, FG_MVE_ROW_INIT, FG_MVE_STEP1X8, "", "")
FG_MVE_ROWS8(fg_mve_rows8, "", FG_MVE_ROW_INIT, FG_MVE_STEP1X8, "", "")

/* The offset 4-bit GEMM layout's blocks (gemm_s4_mve.c): the accumulators from the row terms before the state
 * (fg_mve_row_state_s4), the quant pointer at block A's bias words; per step the row against the two blocks' 32 weight
 * bytes each, as loaded and after one VSHR (the high nibbles); then per pair of channels the first's sum less 16 x the
 * second's (its bytes read 16 B + A + 8; the row terms took the 8), and the biases added as vectors. */
#define FG_MVE_ROW_INIT_S4                      \
    "ldmdb %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n" \
    "str %[pk], [%[st], #16]\n"                \
    "adds %[pk], %[pk], #64\n"                 \
    "adds %[pk1], %[pk1], #64\n"
#define FG_MVE_STEP1X8_S4                       \
    "vldrb.8 q0, [%[px]], #16\n"               \
    "vldrb.8 q1, [%[pk]], #32\n"               \
    "vldrb.8 q2, [%[pk], #-16]\n"              \
    "vmladava.s8 r0, q0, q1\n"                 \
    "vshr.s8 q1, q1, #4\n"                     \
    "vmladava.s8 r4, q0, q2\n"                 \
    "vshr.s8 q2, q2, #4\n"                     \
    "vmladava.s8 r2, q0, q1\n"                 \
    "vldrb.8 q1, [%[pk1]], #32\n"              \
    "vmladava.s8 r6, q0, q2\n"                 \
    "vldrb.8 q3, [%[pk1], #-16]\n"             \
    "vmladava.s8 r8, q0, q1\n"                 \
    "vshr.s8 q1, q1, #4\n"                     \
    "vmladava.s8 r12, q0, q3\n"                \
    "vshr.s8 q3, q3, #4\n"                     \
    "vmladava.s8 r10, q0, q1\n"                \
    "vmladava.s8 lr, q0, q3\n"
#define FG_MVE_ROW_SUMS_S4                      \
    "sub r0, r0, r2, lsl #4\n"                 \
    "sub r4, r4, r6, lsl #4\n"                 \
    "sub r8, r8, r10, lsl #4\n"                \
    "sub r12, r12, lr, lsl #4\n"
#define FG_MVE_ROW_BIAS_S4                      \
    "vldrw.32 q2, [%[px]], #16\n"              \
    "vadd.i32 q0, q0, q2\n"                    \
    "vldrw.32 q2, [%[pk]]\n"                   \
    "vadd.i32 q1, q1, q2\n"
FG_MVE_ROWS8(fg_mve_rows8_s4_shifted, FG_MVE_ROW_LEFT_SHIFT, FG_MVE_ROW_INIT_S4, FG_MVE_STEP1X8_S4,
             FG_MVE_ROW_SUMS_S4, FG_MVE_ROW_BIAS_S4)
FG_MVE_ROWS8(fg_mve_rows8_s4, "", FG_MVE_ROW_INIT_S4, FG_MVE_STEP1X8_S4, FG_MVE_ROW_SUMS_S4, FG_MVE_ROW_BIAS_S4)

const int32_t *fg_mve_gemm_row8(fg_mve_row_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset);
    return shifts_left ? fg_mve_rows8_shifted(st, packed, clamp, offset) : fg_mve_rows8(st, packed, clamp, offset);
}

const int32_t *fg_mve_gemm_row8_s4(fg_mve_row_state_s4 *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                   int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset);
    return shifts_left ? fg_mve_rows8_s4_shifted(&st->row, packed, clamp, offset)
                       : fg_mve_rows8_s4(&st->row, packed, clamp, offset);
}

#endif /* __ARM_FEATURE_MVE */
