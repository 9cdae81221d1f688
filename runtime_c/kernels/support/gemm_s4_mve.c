#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* The offset 4-bit GEMM layout (fg/variants_mve.h): a weight byte b holds channel B's tap in its high nibble and
 * channel A's tap + 8 in its low one, so read as int8 it is exactly 16 B + A + 8, and VSHR.S8 #4 of it is B. Per pair
 * of channels and per row x, VMLADAVA makes raw = sum x (16 B + A + 8) from the bytes as loaded and sum x B after the
 * one shift; then sum x A = raw - 16 sum x B - 8 sum x. One VSHR per 32 weights on top of the int8 loop's
 * instructions per step, per block four subtractions and the bias as a vector, per row its sum: the better layout for
 * long rows. Two rows' full blocks go to the assembly loop fg_mve_gemm_blocks2_s4_offset, its accumulators started at
 * -8 sum x on the first channels; what it leaves (the last channels, a lone row) is done here. */


/* One step of one row u against a block's two weight vectors at w: a[] = (raw01, B1, raw23, B3). */
__attribute__((always_inline)) static inline void fg_mve_step1x4_s4(int8x16_t u, const int8_t *w, int32_t a[4]) {
    const int8x16_t v01 = vldrbq_s8(w), v23 = vldrbq_s8(w + 16);
    a[0] = vmladavaq_s8(a[0], u, v01);
    a[1] = vmladavaq_s8(a[1], u, vshrq_n_s8(v01, 4));
    a[2] = vmladavaq_s8(a[2], u, v23);
    a[3] = vmladavaq_s8(a[3], u, vshrq_n_s8(v23, 4));
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

/* The four channels' sums from (raw01, B1, raw23, B3) and 8 x the row's sum (wrapping, as the assembly loop's). */
static inline int32x4_t fg_mve_channels_s4(int32x4_t sums, int32_t low_offset) {
    const uint32x4_t u = vreinterpretq_u32_s32(sums);
    const uint32_t b1 = vgetq_lane_u32(u, 1), b3 = vgetq_lane_u32(u, 3);
    const uint32_t a0 = vgetq_lane_u32(u, 0) - 16u * b1 - (uint32_t)low_offset;
    const uint32_t a2 = vgetq_lane_u32(u, 2) - 16u * b3 - (uint32_t)low_offset;
    return fg_mve_vec4((int32_t)a0, (int32_t)b1, (int32_t)a2, (int32_t)b3);
}

/* One row's sums of one block of four channels, against the offset layout (low_offset: 8 x the row's sum) or the
 * signed one, plus the block's bias words. */
__attribute__((always_inline)) static inline int32x4_t fg_mve_block1_s4(const int8_t *x, const int8_t *w, int32_t depth,
                                                                        int32_t low_offset, int32x4_t bias,
                                                                        int offset) {
    if (offset) {
        return vaddq_s32(fg_mve_channels_s4(fg_mve_dot1x4_s4(x, w, depth, fg_mve_step1x4_s4), low_offset), bias);
    }
    return vaddq_s32(fg_mve_dot1x4_s4(x, w, depth, fg_mve_step1x4_s4_signed), bias);
}

/* fg_mve_gemm_s4 (offset) or fg_mve_gemm_s4_signed: two rows' full blocks through the layout's assembly loop, the last
 * channels and a lone row here. */
__attribute__((always_inline)) static inline void fg_mve_gemm_4bit(const int8_t *x0, const int8_t *x1, int32_t depth,
                                                                   int32_t out_c, const int32_t *packed,
                                                                   const fg_requant_params *requant, int shifts_left,
                                                                   int8_t *out0, int8_t *out1, int offset) {
    const fg_mve_clamp clamp = fg_mve_make_clamp(requant);
    const int32_t block_words = fg_mve_block_words(depth, 8);
    fg_mve_gemm_state_s4 with_sums;  /* the offset layout's loop reads the rows' sums before the state */
    fg_mve_gemm_state *st = &with_sums.gemm;
    st->x0 = x0;
    st->x1 = x1;
    const int32_t sum0 = offset ? fg_mve_row_sum(x0, depth) : 0;
    const int32_t sum1 = offset && x1 != 0 ? fg_mve_row_sum(x1, depth) : 0;
    if (offset) {
        fg_mve_begin_row_terms(&with_sums);
        fg_mve_set_row_sum(&with_sums, 0, sum0);
        fg_mve_set_row_sum(&with_sums, 1, sum1);
    }
    int32_t c = 0;
    if (x1 != 0 && out_c >= 4) {
        c = fg_mve_gemm_begin_layout(st, depth, out_c, packed, (uint32_t)((uintptr_t)out1 - (uintptr_t)out0), 8);
        fg_mve_gemm_set_out(st, out0);
        packed = (offset ? fg_mve_gemm_blocks2_s4_offset : fg_mve_gemm_blocks2_s4)(st, packed, &clamp, shifts_left);
    } else if (offset && x1 == 0 && (depth & 15) == 0 && out_c >= 8) {  /* a lone row, pairs of blocks in assembly */
        fg_mve_row_state_s4 row;
        c = fg_mve_row_begin(&row.row, x0, depth, out_c, packed, out0, 8);
        for (int32_t k = 0; k < 8; ++k) {
            row.row_terms[k] = k & 1 ? 0 : -8 * sum0;
        }
        packed = fg_mve_gemm_row8_s4(&row, packed, &clamp, shifts_left);
    }
    for (; c < out_c; c += 4, packed += block_words) {
        const fg_mve_quant4 q = fg_mve_load_quant4(packed);
        const int8_t *w = (const int8_t *)(packed + 16);
        const mve_pred16_t store = vctp32q((uint32_t)(out_c - c));
        const int32x4_t acc0 = fg_mve_block1_s4(x0, w, depth, 8 * sum0, q.bias, offset);
        if (x1 != 0) {  /* both rows read before either is stored */
            const int32x4_t acc1 = fg_mve_block1_s4(x1, w, depth, 8 * sum1, q.bias, offset);
            vstrbq_p_s32(out1 + c, fg_mve_requantize(acc1, &q, &clamp), store);
        }
        vstrbq_p_s32(out0 + c, fg_mve_requantize(acc0, &q, &clamp), store);
    }
}

FG_HOT_LOOP void fg_mve_gemm_s4(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c,
                                const int32_t *packed, const fg_requant_params *requant, int shifts_left,
                                int8_t *out0, int8_t *out1) {
    fg_mve_gemm_4bit(x0, x1, depth, out_c, packed, requant, shifts_left, out0, out1, 1);
}

/* The signed 4-bit GEMM layout (fg/variants_mve.h): VSHR.S8 #4 of a weight vector is the pair's second channel's taps,
 * VSHL.I8 #4 16 times its first channel's (the low nibble moved up, its sign included), so the int8 loop runs with
 * one shift per 16 weights more and no correction but the quant block's (the first channels' bias x 16 and left shift
 * - 4): the better layout for short rows. */
FG_HOT_LOOP void fg_mve_gemm_s4_signed(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c,
                                       const int32_t *packed, const fg_requant_params *requant, int shifts_left,
                                       int8_t *out0, int8_t *out1) {
    fg_mve_gemm_4bit(x0, x1, depth, out_c, packed, requant, shifts_left, out0, out1, 0);
}

#endif /* __ARM_FEATURE_MVE */
