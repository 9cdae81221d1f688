/* SOFTMAX int16 -> int16 with TFLite Micro's SoftmaxInt16 arithmetic: exp of the scaled difference from the row
 * maximum from a 513-entry table, the reciprocal of their sum from another, the product rounded to Q0.15. The exp
 * values are kept in the output row until the sum is known (the output must not overlap the input). */
#include "fg/softmax.h"

#include "fg/support/fixedpoint.h"
#include "fg/support/fixedpoint_math.h"

/* A table of 512 steps over the int16 range, interpolated linearly within a step of 128. */
static int16_t lut_lookup(int32_t value, const int16_t *lut) {
    const int16_t x = fg_saturate_s16(value);
    const int32_t index = 256 + (x >> 7);
    const int32_t offset = x & 0x7F;
    const int32_t slope = (int16_t)(lut[index + 1] - lut[index]);
    return (int16_t)(lut[index] + ((slope * offset + 64) >> 7));
}

static int16_t row_max(const int16_t *row, int32_t depth) {
    int16_t max = INT16_MIN;
    for (int32_t c = 0; c < depth; ++c) {
        max = row[c] > max ? row[c] : max;
    }
    return max;
}

void fg_softmax_s16(const fg_softmax_s16_params *params, const int16_t *input, int16_t *output) {
    const int32_t depth = params->depth;
    for (int32_t r = 0; r < params->rows; ++r) {
        const int16_t *in = input + r * depth;
        int16_t *out = output + r * depth;
        const int16_t max = row_max(in, depth);
        int32_t sum = 0; /* Q16.15 */
        for (int32_t c = 0; c < depth; ++c) {
            const int32_t scaled =
                fg_multiply_by_quantized_multiplier(in[c] - max, params->input_multiplier, params->input_shift);
            out[c] = lut_lookup(scaled + 32767, params->exp_lut);
            sum += out[c];
        }
        const int headroom_plus_one = fg_count_leading_zeros_u32((uint32_t)sum);
        const int32_t shifted_sum =
            (int32_t)((((int64_t)sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
        const int32_t reciprocal = lut_lookup(shifted_sum - ((1 << 15) + (1 << 16)), params->reciprocal_lut);
        const int right_shift = 31 - headroom_plus_one;
        const int64_t round = (int64_t)1 << (right_shift - 1);
        for (int32_t c = 0; c < depth; ++c) {
            const int64_t scaled = ((int64_t)out[c] * reciprocal + round) >> right_shift;
            out[c] = (int16_t)(scaled < 0 ? 0 : scaled > 32767 ? 32767 : scaled);
        }
    }
}
