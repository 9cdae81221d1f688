#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* (x + offset) << left_shift, then TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
static inline int32x4_t fg_add_scale(int32x4_t x, int32_t offset, int32_t left_shift, int32_t multiplier,
                                     int32x4_t right) {
    x = vshlq_r_s32(vaddq_n_s32(x, offset), left_shift);
    return fg_mve_rounding_divide_by_pot(vqrdmulhq_n_s32(x, multiplier), right);
}

/* Four elements per step (int32 lanes: the inputs are scaled by 2^20), each stored after both its inputs are read
 * (the output may be either input, as ops/overlap.py allows). */
FG_HOT_LOOP void fg_add_s8_mve(const fg_add_params *p, const int8_t *input1, const int8_t *input2, int8_t *output) {
    const int32_t n = p->shape.dims[FG_BROADCAST_MAX_DIMS - 1];
    const int32_t offset1 = p->input1_offset, offset2 = p->input2_offset, left = p->left_shift;
    const int32_t multiplier1 = p->input1_multiplier, multiplier2 = p->input2_multiplier;
    const int32_t out_multiplier = p->output_multiplier, out_offset = p->output_offset;
    const int32x4_t right1 = vdupq_n_s32(p->input1_shift), right2 = vdupq_n_s32(p->input2_shift);
    const int32x4_t out_right = vdupq_n_s32(p->output_shift);
    const int32x4_t low = vdupq_n_s32(p->activation_min), high = vdupq_n_s32(p->activation_max);
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32x4_t a = fg_add_scale(vldrbq_s32(input1 + i), offset1, left, multiplier1, right1);
        const int32x4_t b = fg_add_scale(vldrbq_s32(input2 + i), offset2, left, multiplier2, right2);
        int32x4_t sum = fg_mve_rounding_divide_by_pot(vqrdmulhq_n_s32(vaddq_s32(a, b), out_multiplier), out_right);
        vstrbq_s32(output + i, vminq_s32(vmaxq_s32(vaddq_n_s32(sum, out_offset), low), high));
    }
    if (i < n) {  /* the last one to three elements */
        const mve_pred16_t lanes = vctp32q((uint32_t)(n - i));
        const int32x4_t a = fg_add_scale(vldrbq_z_s32(input1 + i, lanes), offset1, left, multiplier1, right1);
        const int32x4_t b = fg_add_scale(vldrbq_z_s32(input2 + i, lanes), offset2, left, multiplier2, right2);
        int32x4_t sum = fg_mve_rounding_divide_by_pot(vqrdmulhq_n_s32(vaddq_s32(a, b), out_multiplier), out_right);
        vstrbq_p_s32(output + i, vminq_s32(vmaxq_s32(vaddq_n_s32(sum, out_offset), low), high), lanes);
    }
}

#endif /* __ARM_FEATURE_MVE */
