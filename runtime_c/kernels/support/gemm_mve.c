#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

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

/* The pairs of full blocks of one row (depth a multiple of 16) through fg_mve_gemm_row8; returns their channels. */
static int32_t fg_mve_row_pairs(const int8_t *x, int32_t depth, int32_t out_c, const int32_t *packed,
                                const fg_mve_clamp *clamp, int shifts_left, int8_t *out) {
    fg_mve_row_state st;
    const int32_t channels = fg_mve_row_begin(&st, x, depth, out_c, packed, out, 16);
    fg_mve_gemm_row8(&st, packed, clamp, shifts_left);
    return channels;
}

FG_HOT_LOOP void fg_mve_gemm_s8(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c,
                                const int32_t *packed, const fg_requant_params *requant, int shifts_left,
                                int8_t *out0, int8_t *out1) {
    const fg_mve_clamp clamp = fg_mve_make_clamp(requant);
    const int32_t block_words = 16 + 16 * ((depth + 15) / 16);
    int32_t c = 0;
    if (x1 != 0 && out_c >= 4) {
        fg_mve_gemm_state st;
        c = fg_mve_gemm_begin(&st, depth, out_c, packed, (uint32_t)((uintptr_t)out1 - (uintptr_t)out0));
        st.x0 = x0;
        st.x1 = x1;
        fg_mve_gemm_set_out(&st, out0);
        packed = fg_mve_gemm_blocks2(&st, packed, &clamp, shifts_left);
    } else if (x1 == 0 && (depth & 15) == 0 && out_c >= 8) {
        c = fg_mve_row_pairs(x0, depth, out_c, packed, &clamp, shifts_left, out0);
        packed += block_words * c / 4;
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
