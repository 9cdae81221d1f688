/* SOFTMAX int8 -> int8 with TFLite Micro's reference arithmetic: differences from the row maximum are
 * rescaled to Q5.26, exponentiated in fixed point, summed in Q12.19, and each exp is multiplied by the
 * reciprocal of the sum. */
#include "fg/softmax.h"

#include "fg/fixedpoint.h"
#include "fg/fixedpoint_math.h"

enum {
    SCALED_DIFF_INTEGER_BITS = 5,
    ACCUMULATION_INTEGER_BITS = 12,
    OUTPUT_BITS = 8,
};

/* exp(beta * input_scale * diff) in Q0, for a difference diff <= 0 not below diff_min. */
static int32_t exp_of_difference(const fg_softmax_params *params, int32_t diff) {
    const int32_t scaled_diff =
        fg_multiply_by_quantized_multiplier_greater_than_one(diff, params->input_multiplier, params->input_left_shift);
    return fg_fx_exp_on_negative_values(scaled_diff, SCALED_DIFF_INTEGER_BITS);
}

void fg_softmax_s8(const fg_softmax_params *params, const int8_t *input, int8_t *output) {
    const int32_t depth = params->depth;
    for (int32_t row = 0; row < params->rows; ++row) {
        const int8_t *in = input + row * depth;
        int8_t *out = output + row * depth;

        int32_t max_in_row = -128;
        for (int32_t c = 0; c < depth; ++c) {
            max_in_row = fg_max_i32(max_in_row, in[c]);
        }

        int32_t sum_of_exps = 0; /* Q12.19 */
        for (int32_t c = 0; c < depth; ++c) {
            const int32_t diff = in[c] - max_in_row;
            if (diff >= params->diff_min) {
                sum_of_exps = fg_fx_add(sum_of_exps, fg_fx_rescale(exp_of_difference(params, diff), 0,
                                                                   ACCUMULATION_INTEGER_BITS));
            }
        }

        int num_bits_over_unit;
        const int32_t reciprocal = fg_fx_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS, &num_bits_over_unit);
        const int exponent = num_bits_over_unit + 31 - OUTPUT_BITS;

        for (int32_t c = 0; c < depth; ++c) {
            const int32_t diff = in[c] - max_in_row;
            if (diff >= params->diff_min) {
                const int32_t probability = fg_rounding_divide_by_pot(
                    fg_fx_mul(reciprocal, exp_of_difference(params, diff)), exponent);
                out[c] = fg_saturate_s8(probability - 128);
            } else {
                out[c] = -128;
            }
        }
    }
}
