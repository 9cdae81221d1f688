#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

/* Batches in pairs (no overlap with the input is declared for FULLY_CONNECTED). */
void fg_fully_connected_folded_s8_mve(const fg_fully_connected_params *p, const int8_t *input,
                                      const int8_t *weights, int8_t *output) {
    (void)weights;
    const int32_t depth = p->accum_depth, out_c = p->out_depth;
    const fg_requant_params requant = p->requant;
    const int32_t *packed = (const int32_t *)p->packed;
    int32_t b = 0;
    for (; b + 1 < p->batches; b += 2) {
        fg_mve_gemm_s8(input + b * depth, input + (b + 1) * depth, depth, out_c, packed, &requant,
                       output + b * out_c, output + (b + 1) * out_c);
    }
    if (b < p->batches) {
        fg_mve_gemm_s8(input + b * depth, 0, depth, out_c, packed, &requant, output + b * out_c, 0);
    }
}

#endif /* __ARM_FEATURE_MVE */
