#include "fg/l2_normalization.h"

#include "fg/support/fixedpoint.h"
#include "fg/support/fixedpoint_math.h"
#include "fg/support/requantize_fast.h"

#define FG_L2_OUTPUT_BITS 7 /* outputs in 1/128 */

static int fg_leading_zeros(uint32_t x) {
#if defined(__GNUC__)
    return x ? __builtin_clz(x) : 32;
#else
    int zeros = 0;
    while (zeros < 32 && !(x & 0x80000000u)) {
        x <<= 1;
        ++zeros;
    }
    return zeros;
#endif
}

/* TFLite's GetInvSqrtQuantizedMultiplierExp with reverse_shift -1: 1/sqrt(sum) as a Q31 multiplier and a shift
 * (<= 0 here: a right shift), by five Newton-Raphson steps in Q3 (gemmlowp FixedPoint<int32, 3>). */
static void fg_inv_sqrt_multiplier(int32_t sum, int32_t *multiplier, int *shift) {
    if (sum <= 1) {
        *multiplier = FG_INT32_MAX;
        *shift = 0;
        return;
    }
    int exponent = 11;
    while (sum >= (1 << 29)) {
        sum /= 4;
        ++exponent;
    }
    const int pairs = (fg_leading_zeros((uint32_t)sum) - 1) / 2 - 1;
    exponent -= pairs;
    sum <<= 2 * pairs;
    const int32_t half_input = fg_rounding_divide_by_pot(sum >> 1, 1);
    const int32_t half_three = (1 << 28) + (1 << 27);
    int32_t x = 1 << 28; /* one in Q3 */
    for (int i = 0; i < 5; ++i) {
        const int32_t x3 = fg_fx_rescale(fg_fx_mul(fg_fx_mul(x, x), x), 9, 3);
        x = fg_fx_rescale(fg_fx_sub(fg_fx_mul(half_three, x), fg_fx_mul(half_input, x3)), 6, 3);
    }
    x = fg_fx_mul(x, 1518500250); /* times sqrt(2) / 2 in Q0 */
    if (exponent < 0) {
        x = fg_shift_left_wrapping(x, -exponent);
        exponent = 0;
    }
    *multiplier = x;
    *shift = -exponent;
}

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
