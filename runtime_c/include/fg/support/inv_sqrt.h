/* 1/sqrt of a positive int32 as TFLite computes it for L2_NORMALIZATION and RSQRT. */
#ifndef FG_INV_SQRT_H
#define FG_INV_SQRT_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"
#include "fg/support/fixedpoint_math.h"

static inline int fg_leading_zeros(uint32_t x) {
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
static inline void fg_inv_sqrt_multiplier(int32_t sum, int32_t *multiplier, int *shift) {
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

#endif /* FG_INV_SQRT_H */
