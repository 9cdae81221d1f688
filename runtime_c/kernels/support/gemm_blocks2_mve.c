#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

/* 16 taps of two rows against four weight rows (as fg_mve_dot2x4's loop body). */
#define FG_MVE_STEP2X4                          \
    "vldrb.8 q0, [%[px0]], #16\n"              \
    "vldrb.8 q1, [%[px1]], #16\n"              \
    "vldrb.8 q3, [%[pk], #16]\n"               \
    "vldrb.8 q2, [%[pk]], #64\n"               \
    "vmladava.s8 r0, q0, q2\n"                 \
    "vmladava.s8 r8, q1, q2\n"                 \
    "vldrb.8 q2, [%[pk], #-32]\n"              \
    "vmladava.s8 r2, q0, q3\n"                 \
    "vmladava.s8 r10, q1, q3\n"                \
    "vldrb.8 q3, [%[pk], #-16]\n"              \
    "vmladava.s8 r4, q0, q2\n"                 \
    "vmladava.s8 r12, q1, q2\n"                \
    "vmladava.s8 r6, q0, q3\n"                 \
    "vmladava.s8 lr, q1, q3\n"

/* 16 taps of two rows against four 4-bit weight rows (the signed 4-bit GEMM layout, fg/variants_mve.h): per pair of
 * channels one vector whose VSHL.I8 #4 is 16 x the first channel's taps and whose VSHR.S8 #4 is the second's; two
 * VMLADAVA on each. */
#define FG_MVE_STEP2X4_S4                       \
    "vldrb.8 q0, [%[px0]], #16\n"              \
    "vldrb.8 q1, [%[px1]], #16\n"              \
    "vldrb.8 q2, [%[pk]], #32\n"               \
    "vshl.i8 q3, q2, #4\n"                     \
    "vshr.s8 q2, q2, #4\n"                     \
    "vmladava.s8 r0, q0, q3\n"                 \
    "vmladava.s8 r8, q1, q3\n"                 \
    "vmladava.s8 r2, q0, q2\n"                 \
    "vmladava.s8 r10, q1, q2\n"                \
    "vldrb.8 q2, [%[pk], #-16]\n"              \
    "vshl.i8 q3, q2, #4\n"                     \
    "vshr.s8 q2, q2, #4\n"                     \
    "vmladava.s8 r4, q0, q3\n"                 \
    "vmladava.s8 r12, q1, q3\n"                \
    "vmladava.s8 r6, q0, q2\n"                 \
    "vmladava.s8 lr, q1, q2\n"

/* The same against the offset 4-bit GEMM layout: VMLADAVA on each pair's vector as loaded (raw) and after one VAND with
 * the 0x0F bytes in %q[v] (low). */
#define FG_MVE_STEP2X4_S4_OFFSET                \
    "vldrb.8 q0, [%[px0]], #16\n"              \
    "vldrb.8 q1, [%[px1]], #16\n"              \
    "vldrb.8 q2, [%[pk]], #32\n"               \
    "vmladava.s8 r2, q0, q2\n"                 \
    "vmladava.s8 r10, q1, q2\n"                \
    "vand q2, q2, %q[v]\n"                     \
    "vmladava.s8 r0, q0, q2\n"                 \
    "vmladava.s8 r8, q1, q2\n"                 \
    "vldrb.8 q3, [%[pk], #-16]\n"              \
    "vmladava.s8 r6, q0, q3\n"                 \
    "vmladava.s8 lr, q1, q3\n"                 \
    "vand q3, q3, %q[v]\n"                     \
    "vmladava.s8 r4, q0, q3\n"                 \
    "vmladava.s8 r12, q1, q3\n"

/* The offset layout's sums (q0, q1: low01, raw01, low23, raw23 of each row, from its bias block) less 8 x the row's
 * sum; then the odd lanes (P0 = 0xF0F0 predicates them) (raw - low) / 16, exactly: a multiple of 16. */
#define FG_MVE_FIXUP_S4_OFFSET                  \
    "ldrd r0, r2, [%[st], #64]\n"              \
    "vsub.i32 q0, q0, r0\n"                    \
    "vsub.i32 q1, q1, r2\n"                    \
    "vrev64.32 q2, q0\n"                       \
    "vrev64.32 q3, q1\n"                       \
    "vpstttt\n"                                \
    "vsubt.i32 q0, q0, q2\n"                   \
    "vsubt.i32 q1, q1, q3\n"                   \
    "vshrt.s32 q0, q0, #4\n"                   \
    "vshrt.s32 q1, q1, #4\n"
#define FG_MVE_ENTER_S4_OFFSET "vmrs r0, p0\n" "str r0, [%[st], #76]\n" "movw r0, #0xF0F0\n" "vmsr p0, r0\n"
#define FG_MVE_LEAVE_S4_OFFSET "ldr r0, [%[st], #76]\n" "vmsr p0, r0\n"
#define FG_MVE_OFFSET_S4_OFFSET "ldr r0, [%[st], #72]\n" "vadd.i32 q0, q0, r0\n" "vadd.i32 q1, q1, r0\n"
#define FG_MVE_OFFSET "vadd.i32 q0, q0, %q[v]\n" "vadd.i32 q1, q1, %q[v]\n"

/* Every full block of four output channels of two rows, in one assembly loop: the block's bias into the eight
 * accumulators (LDM), the dot products (unrolled 8 times, entered by TBB at steps % 8 before the end), then through
 * sums[] into two vectors, requantized (fg_mve_requantize) and stored. Returns the packed pointer after the last
 * block. STEP: FG_MVE_STEP2X4 (int8 weights), FG_MVE_STEP2X4_S4 or FG_MVE_STEP2X4_S4_OFFSET; FIXUP, OFFSET, ENTER and
 * LEAVE what the offset layout does besides (nothing, FG_MVE_OFFSET, nothing, nothing for the others); v: the offset
 * (or the offset layout's mask) in every lane. Versions with the left shift, and without it for layers that never
 * shift left. */
#define FG_MVE_BLOCKS2(NAME, LEFT_SHIFT, STEP, FIXUP, OFFSET, ENTER, LEAVE) \
__attribute__((noinline)) static const int32_t *NAME(fg_mve_gemm_state *st, const int32_t *packed, \
                                                     const fg_mve_clamp *clamp, int32x4_t v) { \
    const int32x4_t low = clamp->low, high = clamp->high; \
    const uint32x4_t second = vaddq_n_u32(vidupq_n_u32(0, 1), st->out1);  /* row 1 scattered from row 0's pointer */ \
    const int8_t *px0, *px1; \
    int32_t n, t; \
    __asm__ volatile(ENTER \
                     "2:\n" \
                     "ldm %[pk], {r8, r10, r12, lr}\n" \
                     "ldm %[pk]!, {r0, r2, r4, r6}\n" \
                     "ldr %[px0], [%[st], #0]\n" \
                     "ldr %[px1], [%[st], #4]\n" \
                     "ldr %[n], [%[st], #8]\n" \
                     "str %[pk], [%[st], #24]\n" \
                     "adds %[pk], %[pk], #48\n" \
                     "ldr %[t], [%[st], #28]\n" \
                     "tbb [pc, %[t]]\n" \
                     ".Lentries%=:\n" \
                     ".byte (.Ls0%= - .Lentries%=) / 2, (.Ls7%= - .Lentries%=) / 2\n" \
                     ".byte (.Ls6%= - .Lentries%=) / 2, (.Ls5%= - .Lentries%=) / 2\n" \
                     ".byte (.Ls4%= - .Lentries%=) / 2, (.Ls3%= - .Lentries%=) / 2\n" \
                     ".byte (.Ls2%= - .Lentries%=) / 2, (.Ls1%= - .Lentries%=) / 2\n" \
                     ".Ls0%=:\n" STEP \
                     ".Ls1%=:\n" STEP \
                     ".Ls2%=:\n" STEP \
                     ".Ls3%=:\n" STEP \
                     ".Ls4%=:\n" STEP \
                     ".Ls5%=:\n" STEP \
                     ".Ls6%=:\n" STEP \
                     ".Ls7%=:\n" STEP \
                     "subs %[n], %[n], #1\n" \
                     "bne .Ls0%=\n" \
                     "ldr %[px0], [%[st], #24]\n" \
                     "add %[px1], %[st], #32\n" \
                     "stm %[px1], {r0, r2, r4, r6, r8, r10, r12, lr}\n" \
                     "vldrw.32 q0, [%[px1]]\n" \
                     "vldrw.32 q1, [%[px1], #16]\n" \
                     FIXUP \
                     LEFT_SHIFT \
                     "vldrw.32 q2, [%[px0]]\n" \
                     "vqrdmulh.s32 q0, q0, q2\n" \
                     "vqrdmulh.s32 q1, q1, q2\n" \
                     "vldrw.32 q2, [%[px0], #32]\n" \
                     "vand q3, q0, q2\n" \
                     "vshr.s32 q3, q3, #31\n" \
                     "vqadd.s32 q0, q0, q3\n" \
                     "vrshl.s32 q0, q0, q2\n" \
                     "vand q3, q1, q2\n" \
                     "vshr.s32 q3, q3, #31\n" \
                     "vqadd.s32 q1, q1, q3\n" \
                     "vrshl.s32 q1, q1, q2\n" \
                     OFFSET \
                     "vmax.s32 q0, q0, %q[lo]\n" \
                     "vmax.s32 q1, q1, %q[lo]\n" \
                     "vmin.s32 q0, q0, %q[hi]\n" \
                     "vmin.s32 q1, q1, %q[hi]\n" \
                     "ldr r0, [%[st], #12]\n" \
                     "vstrb.32 q1, [r0, %q[second]]\n" \
                     "vstrb.32 q0, [r0], #4\n" \
                     "str r0, [%[st], #12]\n" \
                     "ldr r0, [%[st], #20]\n" \
                     "cmp %[pk], r0\n" \
                     "bne 2b\n" \
                     LEAVE \
                     : [pk] "+r"(packed), [px0] "=&r"(px0), [px1] "=&r"(px1), [n] "=&r"(n), [t] "=&r"(t) \
                     : [st] "r"(st), [v] "w"(v), [lo] "w"(low), [hi] "w"(high), [second] "w"(second) \
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory", "cc"); \
    return packed; \
}

#define FG_MVE_LEFT_SHIFT "vldrw.32 q2, [%[px0], #16]\n" "vshl.s32 q0, q0, q2\n" "vshl.s32 q1, q1, q2\n"
FG_MVE_BLOCKS2(fg_mve_blocks2_shifted, FG_MVE_LEFT_SHIFT, FG_MVE_STEP2X4, "", FG_MVE_OFFSET, "", "")
FG_MVE_BLOCKS2(fg_mve_blocks2, "", FG_MVE_STEP2X4, "", FG_MVE_OFFSET, "", "")
/* The signed layout's left shifts take the factor 16 of half its channels back: always applied. */
FG_MVE_BLOCKS2(fg_mve_blocks2_s4, FG_MVE_LEFT_SHIFT, FG_MVE_STEP2X4_S4, "", FG_MVE_OFFSET, "", "")
FG_MVE_BLOCKS2(fg_mve_blocks2_s4_offset_shifted, FG_MVE_LEFT_SHIFT, FG_MVE_STEP2X4_S4_OFFSET, FG_MVE_FIXUP_S4_OFFSET,
               FG_MVE_OFFSET_S4_OFFSET, FG_MVE_ENTER_S4_OFFSET, FG_MVE_LEAVE_S4_OFFSET)
FG_MVE_BLOCKS2(fg_mve_blocks2_s4_offset, "", FG_MVE_STEP2X4_S4_OFFSET, FG_MVE_FIXUP_S4_OFFSET, FG_MVE_OFFSET_S4_OFFSET,
               FG_MVE_ENTER_S4_OFFSET, FG_MVE_LEAVE_S4_OFFSET)

const int32_t *fg_mve_gemm_blocks2(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                   int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset);
    return shifts_left ? fg_mve_blocks2_shifted(st, packed, clamp, offset) : fg_mve_blocks2(st, packed, clamp, offset);
}

const int32_t *fg_mve_gemm_blocks2_s4(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                      int shifts_left) {
    (void)shifts_left;
    return fg_mve_blocks2_s4(st, packed, clamp, vdupq_n_s32(clamp->offset));
}

const int32_t *fg_mve_gemm_blocks2_s4_offset(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                             int shifts_left) {
    const int32x4_t mask = vreinterpretq_s32_s8(vdupq_n_s8(0x0F));
    ((fg_mve_gemm_state_s4 *)st)->offset = clamp->offset;  /* st is a fg_mve_gemm_state_s4's */
    return shifts_left ? fg_mve_blocks2_s4_offset_shifted(st, packed, clamp, mask)
                       : fg_mve_blocks2_s4_offset(st, packed, clamp, mask);
}

#endif /* __ARM_FEATURE_MVE */
