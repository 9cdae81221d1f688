#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/mve_support.h"

/* Two rows against one block of four weight rows, `steps` times 16 taps: 6 VLDRB + 8 VMLADAVA per step. Assembly,
 * because VMLADAVA accumulates into even registers only and GCC spills the eighth accumulator: here they sit in
 * r0, r2, ..., r12 and lr, start from sums[0..7] (LDM) and end there (STM); pointers, count and sums in odd
 * registers. */
__attribute__((always_inline)) static inline void fg_mve_dot2x4(const int8_t *x0, const int8_t *x1, const int8_t *w,
                                                                int32_t steps, int32_t sums[8]) {
    __asm__ volatile("ldm %[sums], {r0, r2, r4, r6, r8, r10, r12, lr}\n"
                     "1:\n"
                     "vldrb.8 q0, [%[px0]], #16\n"
                     "vldrb.8 q1, [%[px1]], #16\n"
                     "vldrb.8 q3, [%[pw], #16]\n"
                     "vldrb.8 q2, [%[pw]], #64\n"
                     "vmladava.s8 r0, q0, q2\n"
                     "vmladava.s8 r8, q1, q2\n"
                     "vldrb.8 q2, [%[pw], #-32]\n"
                     "vmladava.s8 r2, q0, q3\n"
                     "vmladava.s8 r10, q1, q3\n"
                     "vldrb.8 q3, [%[pw], #-16]\n"
                     "vmladava.s8 r4, q0, q2\n"
                     "vmladava.s8 r12, q1, q2\n"
                     "vmladava.s8 r6, q0, q3\n"
                     "vmladava.s8 lr, q1, q3\n"
                     "subs %[n], %[n], #1\n"
                     "bne 1b\n"
                     "stm %[sums], {r0, r2, r4, r6, r8, r10, r12, lr}\n"
                     : [px0] "+r"(x0), [px1] "+r"(x1), [pw] "+r"(w), [n] "+r"(steps)
                     : [sums] "r"(sums)
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory", "cc");
}

/* Two rows against one block of four weight rows: 2 x 4 dot products plus the bias, 16 taps at a time (the rows
 * are read up to the next multiple of 16, where the weights are zero). */
__attribute__((always_inline)) static inline void fg_mve_block2(const int8_t *x0, const int8_t *x1,
                                                                const int8_t *w, int32_t depth, const int32_t *bias,
                                                                int32x4_t *acc0, int32x4_t *acc1) {
    int32_t sums[8] __attribute__((aligned(8)));
    const int32x4_t b = vldrwq_s32(bias);
    vstrwq_s32(sums, b);
    vstrwq_s32(sums + 4, b);
    fg_mve_dot2x4(x0, x1, w, (depth + 15) >> 4, sums);
    *acc0 = vldrwq_s32(sums);
    *acc1 = vldrwq_s32(sums + 4);
}

/* One row against one block of four weight rows. */
__attribute__((always_inline)) static inline int32x4_t fg_mve_block1(const int8_t *x0, const int8_t *w,
                                                                     int32_t depth) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int32_t n = depth;
    for (; n >= 16; n -= 16, x0 += 16, w += 64) {
        const int8x16_t u = vldrbq_s8(x0);
        a0 = vmladavaq_s8(a0, u, vldrbq_s8(w));
        a1 = vmladavaq_s8(a1, u, vldrbq_s8(w + 16));
        a2 = vmladavaq_s8(a2, u, vldrbq_s8(w + 32));
        a3 = vmladavaq_s8(a3, u, vldrbq_s8(w + 48));
    }
    if (n > 0) {
        const int8x16_t u = vldrbq_z_s8(x0, vctp8q((uint32_t)n));
        a0 = vmladavaq_s8(a0, u, vldrbq_s8(w));
        a1 = vmladavaq_s8(a1, u, vldrbq_s8(w + 16));
        a2 = vmladavaq_s8(a2, u, vldrbq_s8(w + 32));
        a3 = vmladavaq_s8(a3, u, vldrbq_s8(w + 48));
    }
    return fg_mve_vec4(a0, a1, a2, a3);
}

/* What the two-row assembly loop reads and updates in memory (its registers hold the accumulators). */
typedef struct {
    const int8_t *x0, *x1;  /* 0, 4 */
    int32_t rounds;         /* 8: ceil(steps / 8), steps = ceil(depth / 16) */
    int8_t *out0;           /* 12: advanced by 4 per block */
    uint32_t out1;          /* 16: row 1's outputs, from row 0's */
    const int32_t *end;     /* 20: past the last full block */
    const int32_t *quant;   /* 24: the current block's multipliers, then left and right shifts */
    int32_t entry;          /* 28: steps % 8: the dot loop, unrolled 8 times, is entered that many steps before its
                             * end */
    int32_t sums[8];        /* 32: the accumulators on their way to vector registers */
} fg_mve_gemm_state;

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

/* Every full block of four output channels of two rows, in one assembly loop: the block's bias into the eight
 * accumulators (LDM), the dot products (unrolled 8 times, entered by TBB at steps % 8 before the end), then through
 * sums[] into two vectors, requantized (fg_mve_requantize) and stored. Returns the packed pointer after the last
 * block. Two versions: with the left shift, and without it for layers that never shift left. */
#define FG_MVE_BLOCKS2(NAME, LEFT_SHIFT) \
__attribute__((noinline)) static const int32_t *NAME(fg_mve_gemm_state *st, const int32_t *packed, \
                                                                 const fg_mve_clamp *clamp) { \
    const int32x4_t offset = vdupq_n_s32(clamp->offset), low = clamp->low, high = clamp->high; \
    const uint32x4_t second = vaddq_n_u32(vidupq_n_u32(0, 1), st->out1);  /* row 1 scattered from row 0's pointer */ \
    const int8_t *px0, *px1; \
    int32_t n, t; \
    __asm__ volatile("2:\n" \
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
                     ".Ls0%=:\n" FG_MVE_STEP2X4 \
                     ".Ls1%=:\n" FG_MVE_STEP2X4 \
                     ".Ls2%=:\n" FG_MVE_STEP2X4 \
                     ".Ls3%=:\n" FG_MVE_STEP2X4 \
                     ".Ls4%=:\n" FG_MVE_STEP2X4 \
                     ".Ls5%=:\n" FG_MVE_STEP2X4 \
                     ".Ls6%=:\n" FG_MVE_STEP2X4 \
                     ".Ls7%=:\n" FG_MVE_STEP2X4 \
                     "subs %[n], %[n], #1\n" \
                     "bne .Ls0%=\n" \
                     "ldr %[px0], [%[st], #24]\n" \
                     "add %[px1], %[st], #32\n" \
                     "stm %[px1], {r0, r2, r4, r6, r8, r10, r12, lr}\n" \
                     "vldrw.32 q0, [%[px1]]\n" \
                     "vldrw.32 q1, [%[px1], #16]\n" \
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
                     "vadd.i32 q0, q0, %q[off]\n" \
                     "vadd.i32 q1, q1, %q[off]\n" \
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
                     : [pk] "+r"(packed), [px0] "=&r"(px0), [px1] "=&r"(px1), [n] "=&r"(n), [t] "=&r"(t) \
                     : [st] "r"(st), [off] "w"(offset), [lo] "w"(low), [hi] "w"(high), [second] "w"(second) \
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory", "cc"); \
    return packed; \
}

FG_MVE_BLOCKS2(fg_mve_blocks2_shifted, "vldrw.32 q2, [%[px0], #16]\n" "vshl.s32 q0, q0, q2\n" "vshl.s32 q1, q1, q2\n")
FG_MVE_BLOCKS2(fg_mve_blocks2, "")

FG_HOT_LOOP void fg_mve_gemm_s8(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c,
                                const int32_t *packed, const fg_requant_params *requant, int shifts_left,
                                int8_t *out0, int8_t *out1) {
    const fg_mve_clamp clamp = fg_mve_make_clamp(requant);
    const int32_t block_words = 16 + 16 * ((depth + 15) / 16);
    int32_t c = 0;
    if (x1 != 0 && out_c >= 4) {
        fg_mve_gemm_state st;
        st.x0 = x0;
        st.x1 = x1;
        st.rounds = (((depth + 15) >> 4) + 7) >> 3;
        st.entry = ((depth + 15) >> 4) & 7;
        st.out0 = out0;
        st.out1 = (uint32_t)((uintptr_t)out1 - (uintptr_t)out0);
        st.end = packed + block_words * (out_c >> 2);
        packed = shifts_left ? fg_mve_blocks2_shifted(&st, packed, &clamp) : fg_mve_blocks2(&st, packed, &clamp);
        c = out_c & ~3;
    }
    for (; c < out_c; c += 4, packed += block_words) {
        const fg_mve_quant4 q = fg_mve_load_quant4(packed);
        const int8_t *w = (const int8_t *)(packed + 16);
        const mve_pred16_t store = vctp32q((uint32_t)(out_c - c));
        if (x1 != 0) {
            int32x4_t acc0, acc1;
            fg_mve_block2(x0, x1, w, depth, packed, &acc0, &acc1);
            vstrbq_p_s32(out0 + c, fg_mve_requantize(acc0, &q, &clamp), store);
            vstrbq_p_s32(out1 + c, fg_mve_requantize(acc1, &q, &clamp), store);
        } else {
            const int32x4_t acc0 = fg_mve_block1(x0, w, depth);
            vstrbq_p_s32(out0 + c, fg_mve_requantize(vaddq_s32(acc0, q.bias), &q, &clamp), store);
        }
    }
}

#endif /* __ARM_FEATURE_MVE */
