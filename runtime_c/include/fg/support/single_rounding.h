/* TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (a rounding doubling high multiply, then a rounding
 * division by 2^r) as one 64-bit sum and one shift, its constants set up once per call.
 *
 * The high product is floor((acc m + 2^30) / 2^31) (fg/support/fixedpoint.h); dividing y by 2^r (r >= 1) rounding half away
 * from zero is floor((y + 2^(r-1) - [y < 0]) / 2^r). The floors compose:
 *     floor((acc m + 2^30 + [r >= 1] (2^(r-1) - [acc < 0]) 2^31) / 2^(31+r))
 * ([acc < 0] differs from [y < 0] only where y = 0, and there both give 0). Taken as floor(sum / 2^31) in an int32,
 * then shifted right by r: exact for -2^30 <= acc < 2^30 (then y < 2^30 and y + 2^(r-1) fits in int32; checked
 * against the two-step form on 8e7 random cases, every shift, multipliers in [2^30, 2^31)). */
#ifndef FG_SINGLE_ROUNDING_H
#define FG_SINGLE_ROUNDING_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"

typedef struct {
    int64_t bias;        /* 2^30, plus 2^(30+r) when r >= 1 */
    int64_t below_zero;  /* 2^31 when r >= 1, else 0: taken off for a negative acc */
    int32_t multiplier;
    int32_t shift;       /* r */
} fg_single_rounding;

/* The constants of multiplier * 2^(shift - 31), shift <= 0. */
static inline fg_single_rounding fg_single_rounding_of(int32_t multiplier, int32_t shift) {
    const int32_t r = -shift;
    fg_single_rounding s;
    s.bias = ((int64_t)1 << 30) + (r >= 1 ? (int64_t)1 << (30 + r) : 0);
    s.below_zero = r >= 1 ? (int64_t)1 << 31 : 0;
    s.multiplier = multiplier;
    s.shift = r;
    return s;
}

/* Inlined in every row: a call per rescale would cost as much as the arithmetic it saves. */
static inline __attribute__((always_inline)) int32_t fg_single_rounding_apply(int32_t acc,
                                                                        const fg_single_rounding *s) {
#if defined(__ARM_ARCH_6M__)
    /* No long multiply: the two roundings this sum composes, the high product from 16-bit halves. */
    return fg_rounding_divide_by_pot(fg_high_mul_halves(acc, s->multiplier), (int)s->shift);
#endif
    const int64_t sum = (int64_t)acc * s->multiplier + s->bias - (acc < 0 ? s->below_zero : 0);
    return (int32_t)(sum >> 31) >> s->shift;
}

#endif /* FG_SINGLE_ROUNDING_H */
