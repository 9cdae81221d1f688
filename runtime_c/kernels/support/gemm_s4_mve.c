#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* The offset 4-bit GEMM layout (fg/variants_mve.h): a weight byte b holds channel B's tap in its high nibble and
 * channel A's tap + 8 in its low one, so read as int8 it is exactly 16 B + A + 8, and b & 0x0F is A + 8. Per pair of
 * channels and per row x, VMLADAVA makes raw = sum x (16 B + A + 8) from the bytes as loaded and low = sum x (A + 8)
 * after one VAND; then sum x A = low - 8 sum x, and sum x B = (raw - low) / 16 (exact: |16 sum x B| < 2^31 while depth
 * < 2^17). One vector instruction per 32 weights more than the int8 loop, and sum x once per row. */

/* sum x[i], i < n. */
static int32_t fg_mve_row_sum(const int8_t *x, int32_t n) {
    int32_t sum = 0;
    for (; n >= 16; n -= 16, x += 16) {
        sum = vaddvaq_s8(sum, vldrbq_s8(x));
    }
    return n > 0 ? vaddvaq_s8(sum, vldrbq_z_s8(x, vctp8q((uint32_t)n))) : sum;
}

/* Two rows against one block of four channels, `steps` times 16 taps: 4 VLDRB, 2 VAND, 8 VMLADAVA per step (the int8
 * loop's 6 VLDRB + 8 VMLADAVA). sums: row 0's (low01, raw01, low23, raw23), then row 1's. Assembly for the reason
 * fg_mve_dot2x4 gives: VMLADAVA accumulates into even registers only. */
__attribute__((always_inline)) static inline void fg_mve_dot2x4_s4(const int8_t *x0, const int8_t *x1,
                                                                   const int8_t *w, int32_t steps, int32_t sums[8]) {
    const int8x16_t low_nibbles = vdupq_n_s8(0x0F);
    __asm__ volatile("movs r0, #0\n"
                     "movs r2, #0\n"
                     "movs r4, #0\n"
                     "movs r6, #0\n"
                     "movs r8, #0\n"
                     "movs r10, #0\n"
                     "movs r12, #0\n"
                     "movs lr, #0\n"
                     "1:\n"
                     "vldrb.8 q0, [%[px0]], #16\n"
                     "vldrb.8 q1, [%[px1]], #16\n"
                     "vldrb.8 q3, [%[pw], #16]\n"
                     "vldrb.8 q2, [%[pw]], #32\n"
                     "vmladava.s8 r2, q0, q2\n"
                     "vmladava.s8 r10, q1, q2\n"
                     "vand q2, q2, %q[mask]\n"
                     "vmladava.s8 r0, q0, q2\n"
                     "vmladava.s8 r8, q1, q2\n"
                     "vmladava.s8 r6, q0, q3\n"
                     "vmladava.s8 lr, q1, q3\n"
                     "vand q3, q3, %q[mask]\n"
                     "vmladava.s8 r4, q0, q3\n"
                     "vmladava.s8 r12, q1, q3\n"
                     "subs %[n], %[n], #1\n"
                     "bne 1b\n"
                     "stm %[sums], {r0, r2, r4, r6, r8, r10, r12, lr}\n"
                     : [px0] "+r"(x0), [px1] "+r"(x1), [pw] "+r"(w), [n] "+r"(steps)
                     : [sums] "r"(sums), [mask] "w"(low_nibbles)
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory", "cc");
}

/* One step of one row u against a block's two weight vectors at w: a[] = (low01, raw01, low23, raw23). */
__attribute__((always_inline)) static inline void fg_mve_step1x4_s4(int8x16_t u, const int8_t *w, int32_t a[4]) {
    const int8x16_t low_nibbles = vdupq_n_s8(0x0F), v01 = vldrbq_s8(w), v23 = vldrbq_s8(w + 16);
    a[1] = vmladavaq_s8(a[1], u, v01);
    a[0] = vmladavaq_s8(a[0], u, vandq_s8(v01, low_nibbles));
    a[3] = vmladavaq_s8(a[3], u, v23);
    a[2] = vmladavaq_s8(a[2], u, vandq_s8(v23, low_nibbles));
}

/* The same against the signed layout: a[] = (16 sum0, sum1, 16 sum2, sum3). */
__attribute__((always_inline)) static inline void fg_mve_step1x4_s4_signed(int8x16_t u, const int8_t *w,
                                                                           int32_t a[4]) {
    const int8x16_t v01 = vldrbq_s8(w), v23 = vldrbq_s8(w + 16);
    a[0] = vmladavaq_s8(a[0], u, vshlq_n_s8(v01, 4));
    a[1] = vmladavaq_s8(a[1], u, vshrq_n_s8(v01, 4));
    a[2] = vmladavaq_s8(a[2], u, vshlq_n_s8(v23, 4));
    a[3] = vmladavaq_s8(a[3], u, vshrq_n_s8(v23, 4));
}

/* One row against one block of four channels, step by step (fg_mve_step1x4_s4 or its signed form); the row is read
 * up to depth only. */
__attribute__((always_inline)) static inline int32x4_t fg_mve_dot1x4_s4(
    const int8_t *x, const int8_t *w, int32_t depth, void (*step)(int8x16_t u, const int8_t *w, int32_t a[4])) {
    int32_t a[4] = {0, 0, 0, 0};
    int32_t n = depth;
    for (; n >= 16; n -= 16, x += 16, w += 32) {
        step(vldrbq_s8(x), w, a);
    }
    if (n > 0) {
        step(vldrbq_z_s8(x, vctp8q((uint32_t)n)), w, a);
    }
    return fg_mve_vec4(a[0], a[1], a[2], a[3]);
}

/* The four channels' sums from (low01, raw01, low23, raw23), plus the bias: even lanes low - 8 sum x, odd lanes
 * (raw - low) / 16. (Lanes chosen by a mask: arm-none-eabi-gcc 12.2 loaded the
 * constant VPSEL predicate 0x0F0F as all ones.) */
static inline int32x4_t fg_mve_channels_s4(int32x4_t sums, int32_t row_sum, int32x4_t bias) {
    const int32x4_t high = vshrq_n_s32(vsubq_s32(sums, vrev64q_s32(sums)), 4);
    const int32x4_t low = vsubq_n_s32(sums, 8 * row_sum);
    const int32x4_t odd = fg_mve_vec4(0, -1, 0, -1);
    return vaddq_s32(vaddq_s32(low, vandq_s32(vsubq_s32(high, low), odd)), bias);
}

FG_HOT_LOOP void fg_mve_gemm_s4(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c,
                                const int32_t *packed, const fg_requant_params *requant, int shifts_left,
                                int8_t *out0, int8_t *out1) {
    (void)shifts_left;
    const fg_mve_clamp clamp = fg_mve_make_clamp(requant);
    const int32_t steps = (depth + 15) >> 4, block_words = 16 + 8 * steps;
    /* the rows of a pair are read up to a multiple of 16 taps (where the weights are 0x08), as the GEMM reads them */
    const int32_t sum0 = fg_mve_row_sum(x0, x1 != 0 ? 16 * steps : depth);
    const int32_t sum1 = x1 != 0 ? fg_mve_row_sum(x1, 16 * steps) : 0;
    for (int32_t c = 0; c < out_c; c += 4, packed += block_words) {
        const fg_mve_quant4 q = fg_mve_load_quant4(packed);
        const int8_t *w = (const int8_t *)(packed + 16);
        const mve_pred16_t store = vctp32q((uint32_t)(out_c - c));
        if (x1 != 0) {
            int32_t sums[8] __attribute__((aligned(8)));
            fg_mve_dot2x4_s4(x0, x1, w, steps, sums);
            const int32x4_t acc0 = fg_mve_channels_s4(vldrwq_s32(sums), sum0, q.bias);
            const int32x4_t acc1 = fg_mve_channels_s4(vldrwq_s32(sums + 4), sum1, q.bias);
            vstrbq_p_s32(out0 + c, fg_mve_requantize(acc0, &q, &clamp), store);
            vstrbq_p_s32(out1 + c, fg_mve_requantize(acc1, &q, &clamp), store);
        } else {
            const int32x4_t dot = fg_mve_dot1x4_s4(x0, w, depth, fg_mve_step1x4_s4);
            const int32x4_t acc0 = fg_mve_channels_s4(dot, sum0, q.bias);
            vstrbq_p_s32(out0 + c, fg_mve_requantize(acc0, &q, &clamp), store);
        }
    }
}

/* The signed 4-bit GEMM layout (fg/variants_mve.h): VSHR.S8 #4 of a weight vector is the pair's second channel's taps,
 * VSHL.I8 #4 16 times its first channel's (the low nibble moved up, its sign included), so the int8 loop runs with
 * one shift per 16 weights more and no correction but the quant block's (the first channels' bias x 16 and left shift
 * - 4). Two rows' full blocks go to the assembly loop fg_mve_gemm_blocks2_s4; what it leaves (the last channels, a
 * lone row) is done here. */
FG_HOT_LOOP void fg_mve_gemm_s4_signed(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c,
                                       const int32_t *packed, const fg_requant_params *requant, int shifts_left,
                                       int8_t *out0, int8_t *out1) {
    const fg_mve_clamp clamp = fg_mve_make_clamp(requant);
    const int32_t block_words = fg_mve_block_words(depth, 8);
    int32_t c = 0;
    if (x1 != 0 && out_c >= 4) {
        fg_mve_gemm_state st;
        c = fg_mve_gemm_begin_layout(&st, depth, out_c, packed, (uint32_t)((uintptr_t)out1 - (uintptr_t)out0), 8);
        st.x0 = x0;
        st.x1 = x1;
        st.out0 = out0;
        packed = fg_mve_gemm_blocks2_s4(&st, packed, &clamp, shifts_left);
    }
    for (; c < out_c; c += 4, packed += block_words) {
        const fg_mve_quant4 q = fg_mve_load_quant4(packed);
        const int8_t *w = (const int8_t *)(packed + 16);
        const mve_pred16_t store = vctp32q((uint32_t)(out_c - c));
        const int32x4_t acc0 = vaddq_s32(fg_mve_dot1x4_s4(x0, w, depth, fg_mve_step1x4_s4_signed), q.bias);
        if (x1 != 0) {  /* both rows read before either is stored */
            const int32x4_t acc1 = vaddq_s32(fg_mve_dot1x4_s4(x1, w, depth, fg_mve_step1x4_s4_signed), q.bias);
            vstrbq_p_s32(out1 + c, fg_mve_requantize(acc1, &q, &clamp), store);
        }
        vstrbq_p_s32(out0 + c, fg_mve_requantize(acc0, &q, &clamp), store);
    }
}

#endif /* __ARM_FEATURE_MVE */
