/* What SOFTMAX's int8-input kernels share (TFLite's reference Softmax for int8 input): differences from the row
 * maximum are rescaled to Q5.26, exponentiated in fixed point and summed in Q12.19; each probability is an exp
 * times the reciprocal of the sum, rounded to as many fractional bits as the output type has. The kernels differ
 * only in the output type, whose minimum the probability is offset by (zero point -128 or -32768). */
#ifndef FG_SOFTMAX_S8_ROW_H
#define FG_SOFTMAX_S8_ROW_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"
#include "fg/support/fixedpoint_math.h"
#include "fg/softmax.h"

enum {
    FG_SOFTMAX_SCALED_DIFF_INTEGER_BITS = 5,
    FG_SOFTMAX_ACCUMULATION_INTEGER_BITS = 12,
};

typedef struct {
    int32_t max_in_row;
    int32_t reciprocal;  /* of the sum of exps, with ... */
    int exponent;        /* ... the right shift that brings exp * reciprocal to the output's fractional bits */
} fg_softmax_s8_row;

/* exp(beta * input_scale * diff) in Q0, for a difference diff <= 0 not below diff_min. */
static inline int32_t fg_softmax_s8_exp(const fg_softmax_params *params, int32_t diff) {
    const int32_t scaled_diff =
        fg_multiply_by_quantized_multiplier_greater_than_one(diff, params->input_multiplier, params->input_left_shift);
    return fg_fx_exp_on_negative_values(scaled_diff, FG_SOFTMAX_SCALED_DIFF_INTEGER_BITS);
}

static inline fg_softmax_s8_row fg_softmax_s8_row_sum(const fg_softmax_params *params, const int8_t *in,
                                                      int output_bits) {
    fg_softmax_s8_row row;
    row.max_in_row = -128;
    for (int32_t c = 0; c < params->depth; ++c) {
        row.max_in_row = fg_max_i32(row.max_in_row, in[c]);
    }
    int32_t sum_of_exps = 0; /* Q12.19 */
    for (int32_t c = 0; c < params->depth; ++c) {
        const int32_t diff = in[c] - row.max_in_row;
        if (diff >= params->diff_min) {
            sum_of_exps = fg_fx_add(sum_of_exps, fg_fx_rescale(fg_softmax_s8_exp(params, diff), 0,
                                                               FG_SOFTMAX_ACCUMULATION_INTEGER_BITS));
        }
    }
    int num_bits_over_unit;
    row.reciprocal = fg_fx_reciprocal(sum_of_exps, FG_SOFTMAX_ACCUMULATION_INTEGER_BITS, &num_bits_over_unit);
    row.exponent = num_bits_over_unit + 31 - output_bits;
    return row;
}

/* The probability of in_c in units of 2^-output_bits, unsaturated (0 below diff_min). */
static inline int32_t fg_softmax_s8_probability(const fg_softmax_params *params, const fg_softmax_s8_row *row,
                                                int32_t in_c) {
    const int32_t diff = in_c - row->max_in_row;
    if (diff < params->diff_min) {
        return 0;
    }
    return fg_rounding_divide_by_pot(fg_fx_mul(row->reciprocal, fg_softmax_s8_exp(params, diff)), row->exponent);
}

#endif /* FG_SOFTMAX_S8_ROW_H */
