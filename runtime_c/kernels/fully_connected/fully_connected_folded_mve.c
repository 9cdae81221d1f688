#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* Batches in pairs (no overlap with the input is declared for FULLY_CONNECTED), copied to the stack when the GEMM would
 * read past their end (a depth not a multiple of 16); one by one when such a row is too long to copy. A last lone
 * batch is copied and zero padded to a multiple of 16 taps, as deep to the GEMM (the layout's padding weights are
 * zero). */
__attribute__((always_inline)) static inline void fg_mve_fully_connected(const fg_fully_connected_params *p,
                                                                         const int8_t *input, int8_t *output,
                                                                         fg_mve_gemm *gemm) {
    const int32_t depth = p->accum_depth, out_c = p->out_depth;
    const fg_requant_params requant = p->requant;
    const int shifts_left = fg_mve_any_left_shift(&requant, out_c);
    const int32_t *packed = (const int32_t *)p->packed;
    const int copy = (depth & 15) != 0;
    int8_t rows[2][FG_MVE_ROW_MAX];
    int32_t b = 0;
    if (!copy || depth <= FG_MVE_ROW_MAX) {
        for (; b + 1 < p->batches; b += 2) {
            const int8_t *x0 = input + b * depth, *x1 = x0 + depth;
            if (copy) {
                fg_mve_copy_s8(rows[0], x0, depth);
                fg_mve_copy_s8(rows[1], x1, depth);
                x0 = rows[0];
                x1 = rows[1];
            }
            gemm(x0, x1, depth, out_c, packed, &requant, shifts_left, output + b * out_c, output + (b + 1) * out_c);
        }
    }
    for (; b < p->batches; ++b) {
        const int8_t *x = input + b * depth;
        int32_t padded = depth;
        if (copy && depth <= FG_MVE_ROW_MAX) {  /* zero padded to 16 taps: the GEMM's one-row loop */
            padded = (depth + 15) & ~15;
            fg_mve_copy_s8(rows[0], x, depth);
            fg_mve_fill_s8(rows[0] + depth, 0, padded - depth);
            x = rows[0];
        }
        gemm(x, 0, padded, out_c, packed, &requant, shifts_left, output + b * out_c, 0);
    }
}

void fg_fully_connected_folded_s8_mve(const fg_fully_connected_params *p, const int8_t *input,
                                      const int8_t *weights, int8_t *output) {
    (void)weights;
    fg_mve_fully_connected(p, input, output, fg_mve_gemm_s8);
}

void fg_fully_connected_s4_mve(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                               int8_t *output) {
    (void)weights;
    fg_mve_fully_connected(p, input, output, fg_mve_gemm_s4);
}

#endif /* __ARM_FEATURE_MVE */
