/* log(x) for x >= 1 in fixed point, with the exact arithmetic of TFLite's log_x_for_x_greater_than_or_equal_to_1
 * (used by LOG_SOFTMAX): the input is normalised by its leading zeros, the power of two contributes a multiple of
 * log(2), and a rational approximation around 2^(-1/4) gives the rest. Qm: m integer bits (fg/support/fixedpoint_math.h). */
#ifndef FG_FIXEDPOINT_LOG_H
#define FG_FIXEDPOINT_LOG_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"
#include "fg/support/fixedpoint_math.h"

static inline int32_t fg_fx_saturating_add(int32_t a, int32_t b) {
    const int64_t sum = (int64_t)a + (int64_t)b;
    return sum > FG_INT32_MAX ? FG_INT32_MAX : sum < FG_INT32_MIN ? FG_INT32_MIN : (int32_t)sum;
}

static inline int32_t fg_fx_saturating_sub(int32_t a, int32_t b) {
    const int64_t difference = (int64_t)a - (int64_t)b;
    return difference > FG_INT32_MAX ? FG_INT32_MAX : difference < FG_INT32_MIN ? FG_INT32_MIN : (int32_t)difference;
}

/* The integer n in Q(accum_integer_bits), adjusted by +-1/4 (the exponent part of the logarithm). */
static inline int32_t fg_fx_log_exponent(int n, int accum_integer_bits) {
    return fg_fx_saturating_rounding_mul_by_pot(n, 31 - accum_integer_bits);
}

/* log(x) for x >= 1 in Q(input_integer_bits); the result in Q(output_integer_bits). */
static inline int32_t fg_fx_log_x_for_x_greater_than_or_equal_to_1(int32_t x, int input_integer_bits,
                                                                   int output_integer_bits) {
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int accum_bits = output_integer_bits + 1; /* headroom for z_pow_2_adj * log(2) */
    const int32_t shifted_quarter = fg_fx_rescale((int32_t)1 << 29, 0, accum_bits);

    /* x read as Q0, normalised two ways: by its leading zeros (a), and after a multiplication by sqrt(1/2) (b). */
    const int z_a_headroom_plus_1 = fg_count_leading_zeros_u32((uint32_t)x);
    const int32_t r_a_tmp = fg_fx_saturating_rounding_mul_by_pot(x, z_a_headroom_plus_1 - 1);
    const int32_t r_a = fg_fx_saturating_rounding_mul_by_pot(fg_fx_mul(r_a_tmp, sqrt_half), 1);
    const int32_t z_a_pow_2_adj =
        fg_fx_saturating_add(fg_fx_log_exponent(input_integer_bits - z_a_headroom_plus_1, accum_bits), shifted_quarter);
    const int z_b_headroom = fg_count_leading_zeros_u32((uint32_t)fg_fx_mul(x, sqrt_half)) - 1;
    const int32_t r_b = fg_fx_saturating_rounding_mul_by_pot(x, z_b_headroom);
    const int32_t z_b_pow_2_adj =
        fg_fx_saturating_sub(fg_fx_log_exponent(input_integer_bits - z_b_headroom, accum_bits), shifted_quarter);
    const int32_t r = fg_min_i32(r_a, r_b);
    const int32_t z_pow_2_adj = fg_max_i32(z_a_pow_2_adj, z_b_pow_2_adj);

    const int32_t p = fg_fx_rounding_half_sum(r, sqrt_sqrt_half);
    const int32_t q = fg_fx_add(fg_fx_sub(r, sqrt_sqrt_half), fg_fx_sub(r, sqrt_sqrt_half));
    const int32_t common_sq = fg_fx_mul(q, q);
    const int32_t num = fg_fx_add(fg_fx_mul(q, r), fg_fx_mul(fg_fx_mul(q, common_sq), alpha_n));
    const int32_t denom_minus_one = fg_fx_add(
        fg_fx_mul(p, fg_fx_add(fg_fx_add(alpha_i, q), fg_fx_mul(alpha_d, common_sq))), fg_fx_mul(alpha_f, q));
    const int32_t recip_denom = fg_fx_one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    const int32_t num_scaled = fg_fx_rescale(num, 0, accum_bits);
    return fg_fx_rescale(fg_fx_add(fg_fx_mul(z_pow_2_adj, log_2), fg_fx_mul(num_scaled, recip_denom)), accum_bits,
                         output_integer_bits);
}

#endif /* FG_FIXEDPOINT_LOG_H */
