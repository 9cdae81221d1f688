#include "fg/l2_normalization.h"

#include "fg/support/fixedpoint.h"
#include "fg/support/fixedpoint_math.h"
#include "fg/support/inv_sqrt.h"
#include "fg/support/requantize_fast.h"

#define FG_L2_OUTPUT_BITS 7 /* outputs in 1/128 */

/* One row: v * multiplier * 2^(shift + 7), saturated, through the one-SMLAL output stage when that is a right
 * shift it takes (fg/support/requantize_fast.h), else the generic one. */
static void scale_row(const int8_t *row, int8_t *out, int32_t depth, int32_t zero_point, int32_t multiplier,
                      int shift) {
    fg_fast_channel stage = {0, 0, 0};
    if (fg_fast_channel_of(multiplier, shift + FG_L2_OUTPUT_BITS, &stage)) {
        for (int32_t c = 0; c < depth; ++c) {
            out[c] = fg_fast_output((uint32_t)((int32_t)row[c] - zero_point), &stage, 0);
        }
        return;
    }
    for (int32_t c = 0; c < depth; ++c) {
        const int32_t v = (int32_t)row[c] - zero_point;
        out[c] = fg_saturate_s8(fg_multiply_by_quantized_multiplier(v, multiplier, shift + FG_L2_OUTPUT_BITS));
    }
}

void fg_l2_normalization_s8(const fg_l2_normalization_params *p, const int8_t *input, int8_t *output) {
    const int32_t depth = p->depth, zero_point = p->input_zero_point;
    for (int32_t r = 0; r < p->rows; ++r) {
        const int8_t *row = input + r * depth;
        int32_t sum = 0;
        for (int32_t c = 0; c < depth; ++c) {
            const int32_t v = (int32_t)row[c] - zero_point;
            sum += v * v;
        }
        int32_t multiplier;
        int shift;
        fg_inv_sqrt_multiplier(sum, &multiplier, &shift);
        scale_row(row, output + r * depth, depth, zero_point, multiplier, shift);
    }
}
