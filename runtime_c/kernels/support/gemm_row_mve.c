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
#define FG_MVE_ROWS8(NAME, LEFT_SHIFT)                                                                           \
__attribute__((noinline)) static const int32_t *NAME(fg_mve_row_state *st, const int32_t *packed,                \
                                                     const fg_mve_clamp *clamp, int32x4_t v) {                   \
    const int32x4_t low = clamp->low, high = clamp->high;                                                       \
    const int8_t *px;                                                                                            \
    const int32_t *pk1;                                                                                          \
    int32_t n, t;                                                                                                \
    __asm__ volatile("2:\n"                                                                                      \
                     "ldr %[n], [%[st], #12]\n"                                                                  \
                     "add %[pk1], %[pk], %[n]\n"                                                                 \
                     "ldm %[pk1]!, {r8, r10, r12, lr}\n"                                                         \
                     "ldm %[pk]!, {r0, r2, r4, r6}\n"                                                            \
                     "str %[pk], [%[st], #16]\n"                                                                 \
                     "adds %[pk], %[pk], #48\n"                                                                  \
                     "adds %[pk1], %[pk1], #48\n"                                                                \
                     "ldrd %[px], %[n], [%[st]]\n"                                                               \
                     "ldr %[t], [%[st], #20]\n"                                                                  \
                     FG_MVE_UNROLLED8(FG_MVE_STEP1X8)                                                            \
                     "add %[px], %[st], #32\n"                                                                   \
                     "stm %[px], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                                           \
                     "vldrw.32 q0, [%[px]]\n"                                                                    \
                     "vldrw.32 q1, [%[px], #16]\n"                                                               \
                     "ldr %[px], [%[st], #16]\n"                                                                 \
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

FG_MVE_ROWS8(fg_mve_rows8_shifted, FG_MVE_ROW_LEFT_SHIFT)
FG_MVE_ROWS8(fg_mve_rows8, "")

const int32_t *fg_mve_gemm_row8(fg_mve_row_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset);
    return shifts_left ? fg_mve_rows8_shifted(st, packed, clamp, offset) : fg_mve_rows8(st, packed, clamp, offset);
}

#endif /* __ARM_FEATURE_MVE */
