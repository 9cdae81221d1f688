/* Fixed-point transcendental functions with gemmlowp's exact arithmetic (as TFLite Micro's reference kernels
 * use them): exp on negative values, 1/(1+x), the logistic function and the reciprocal used by softmax.
 *
 * A value in "Qm" has m integer bits and 31 - m fractional bits in an int32_t (real = raw / 2^(31 - m)).
 * Every function takes and returns raw int32_t values; the Q format is in the name or the parameters.
 * Each step reproduces gemmlowp's rounding and saturation bit for bit: do not "simplify" the order of
 * operations. Everything here is static inline and free of global state. */
#ifndef FG_FIXEDPOINT_MATH_H
#define FG_FIXEDPOINT_MATH_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"

/* Product of two fixed-point values: the integer bits add up (gemmlowp's FixedPoint operator*). */
static inline int32_t fg_fx_mul(int32_t a, int32_t b) { return fg_saturating_rounding_doubling_high_mul(a, b); }

/* Wrapping addition and subtraction (gemmlowp's int32 Add/Sub, without C's signed-overflow UB). */
static inline int32_t fg_fx_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t fg_fx_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* (a + b) / 2 rounded to nearest, ties away from zero. */
static inline int32_t fg_fx_rounding_half_sum(int32_t a, int32_t b) {
    int64_t sum = (int64_t)a + (int64_t)b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* x * 2^exponent: a saturating left shift for exponent > 0, a rounding right shift for exponent < 0. */
static inline int32_t fg_fx_saturating_rounding_mul_by_pot(int32_t x, int exponent) {
    if (exponent < 0) {
        return fg_rounding_divide_by_pot(x, -exponent);
    }
    if (exponent == 0) {
        return x;
    }
    const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
    if (x > threshold) {
        return FG_INT32_MAX;
    }
    if (x < -threshold) {
        return FG_INT32_MIN;
    }
    return fg_shift_left_wrapping(x, exponent);
}

/* A value in Q(src_integer_bits) re-expressed in Q(dst_integer_bits) (gemmlowp's Rescale). */
static inline int32_t fg_fx_rescale(int32_t x, int src_integer_bits, int dst_integer_bits) {
    return fg_fx_saturating_rounding_mul_by_pot(x, src_integer_bits - dst_integer_bits);
}

#define FG_FX_Q0_ONE FG_INT32_MAX /* the largest Q0 value stands for 1.0 */
#define FG_FX_Q0_HALF ((int32_t)1 << 30)

/* exp(a) for a in [-1/4, 0), a and the result in Q0: Taylor expansion around -1/8. */
static inline int32_t fg_fx_exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
    const int32_t exp_minus_one_eighth = 1895147668;
    const int32_t one_third = 715827883;
    const int32_t x = fg_fx_add(a, (int32_t)1 << 28);
    const int32_t x2 = fg_fx_mul(x, x);
    const int32_t x3 = fg_fx_mul(x2, x);
    const int32_t x4 = fg_fx_mul(x2, x2);
    const int32_t x4_over_4 = fg_fx_saturating_rounding_mul_by_pot(x4, -2);
    const int32_t x4_over_24_plus_x3_over_6_plus_x2_over_2 = fg_fx_saturating_rounding_mul_by_pot(
        fg_fx_add(fg_fx_mul(fg_fx_add(x4_over_4, x3), one_third), x2), -1);
    return fg_fx_add(exp_minus_one_eighth,
                     fg_fx_mul(exp_minus_one_eighth, fg_fx_add(x, x4_over_24_plus_x3_over_6_plus_x2_over_2)));
}

/* exp(a) for a <= 0 given in Q(integer_bits) (0 <= integer_bits <= 30); the result is in Q0.
 * The input splits into a remainder in [-1/4, 0) and a sum of powers of two, each of which multiplies the
 * result by a constant exp(-2^k). */
static inline int32_t fg_fx_exp_on_negative_values(int32_t a, int integer_bits) {
    static const int32_t exp_of_minus_pot[7] = {
        1672461947, /* exp(-1/4) */
        1302514674, /* exp(-1/2) */
        790015084,  /* exp(-1) */
        290630308,  /* exp(-2) */
        39332535,   /* exp(-4) */
        720401,     /* exp(-8) */
        242,        /* exp(-16) */
    };
    const int fractional_bits = 31 - integer_bits;
    const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
    const int32_t mask = one_quarter - 1;
    const int32_t a_mod_quarter_minus_one_quarter = fg_fx_sub(a & mask, one_quarter);
    int32_t result = fg_fx_exp_on_interval_between_negative_one_quarter_and_0_excl(
        fg_fx_rescale(a_mod_quarter_minus_one_quarter, integer_bits, 0));
    const int32_t remainder = fg_fx_sub(a_mod_quarter_minus_one_quarter, a);
    for (int exponent = -2; exponent <= 4; ++exponent) {
        if (integer_bits > exponent) {
            const int shift = fractional_bits + exponent;
            if (remainder & ((int32_t)1 << shift)) {
                result = fg_fx_mul(result, exp_of_minus_pot[exponent + 2]);
            }
        }
    }
    if (integer_bits > 5) {
        const int32_t minus_32 = -((int32_t)1 << (36 - integer_bits));
        if (a < minus_32) {
            result = 0;
        }
    }
    if (a == 0) {
        result = FG_FX_Q0_ONE;
    }
    return result;
}

/* 1 / (1 + a) for a in [0, 1), a and the result in Q0: Newton-Raphson division, three iterations in Q2. */
static inline int32_t fg_fx_one_over_one_plus_x_for_x_in_0_1(int32_t a) {
    const int32_t q2_one = (int32_t)1 << 29;
    const int32_t q2_48_over_17 = 1515870810;
    const int32_t q2_minus_32_over_17 = -1010580540;
    const int32_t half_denominator = fg_fx_rounding_half_sum(a, FG_FX_Q0_ONE);
    int32_t x = fg_fx_add(q2_48_over_17, fg_fx_mul(half_denominator, q2_minus_32_over_17));
    for (int i = 0; i < 3; ++i) {
        const int32_t half_denominator_times_x = fg_fx_mul(half_denominator, x);
        const int32_t one_minus_half_denominator_times_x = fg_fx_sub(q2_one, half_denominator_times_x);
        x = fg_fx_add(x, fg_fx_rescale(fg_fx_mul(x, one_minus_half_denominator_times_x), 4, 2));
    }
    /* x / 2, viewed in Q1, brought back to Q0 */
    return fg_fx_rescale(x, 1, 0);
}

/* 1 / (1 + exp(-a)) for a in Q(integer_bits); the result is in Q0. */
static inline int32_t fg_fx_logistic(int32_t a, int integer_bits) {
    if (a == 0) {
        return FG_FX_Q0_HALF;
    }
    const int32_t minus_abs = a > 0 ? fg_fx_sub(0, a) : a;
    const int32_t result_if_positive =
        fg_fx_one_over_one_plus_x_for_x_in_0_1(fg_fx_exp_on_negative_values(minus_abs, integer_bits));
    return a > 0 ? result_if_positive : fg_fx_sub(FG_FX_Q0_ONE, result_if_positive);
}

static inline int fg_count_leading_zeros_u32(uint32_t x) {
    if (x == 0) {
        return 32;
    }
#if defined(__GNUC__)
    return __builtin_clz(x);
#else
    int zeros = 0;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        ++zeros;
    }
    return zeros;
#endif
}

/* 1 / x for a positive x in Q(x_integer_bits), as a Q0 value to be scaled by 2^-num_bits_over_unit
 * (TFLite's GetReciprocal). */
static inline int32_t fg_fx_reciprocal(int32_t x, int x_integer_bits, int *num_bits_over_unit) {
    const int headroom_plus_one = fg_count_leading_zeros_u32((uint32_t)x);
    *num_bits_over_unit = x_integer_bits - headroom_plus_one;
    const uint32_t shifted = headroom_plus_one < 32 ? (uint32_t)x << headroom_plus_one : 0u;
    const int32_t shifted_sum_minus_one = (int32_t)(shifted - 0x80000000u);
    return fg_fx_one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
}

#endif /* FG_FIXEDPOINT_MATH_H */
