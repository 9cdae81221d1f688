/* LOG_SOFTMAX int8 with TFLite Micro's reference arithmetic: differences to the row maximum in Q5.26, exp()
 * summed in Q12.19 (both looked up: they depend on the difference alone), log of the sum in Q5.26, result rounded
 * to 1/16 steps from 127 down. */
#include "fg/log_softmax.h"

#include "fg/support/fixedpoint.h"
#include "fg/support/fixedpoint_log.h"
#include "fg/support/fixedpoint_math.h"

enum {
    DIFF_INTEGER_BITS = 5,
    ACCUMULATION_INTEGER_BITS = 12,
    OUTPUT_INTEGER_BITS = 4,
};

static int32_t row_max(const int8_t *row, int32_t depth) {
    int32_t max = -128;
    for (int32_t c = 0; c < depth; ++c) {
        max = fg_max_i32(max, row[c]);
    }
    return max;
}

static int32_t log_sum_of_exps_q5(const fg_log_softmax_params *p, const int8_t *row, int32_t max) {
    int32_t sum_q12 = 0;
    for (int32_t c = 0; c < p->depth; ++c) {
        sum_q12 = fg_fx_add(sum_q12, p->exp_q12[max - row[c]]);
    }
    return fg_fx_log_x_for_x_greater_than_or_equal_to_1(sum_q12, ACCUMULATION_INTEGER_BITS, DIFF_INTEGER_BITS);
}

void fg_log_softmax_s8(const fg_log_softmax_params *params, const int8_t *input, int8_t *output) {
    for (int32_t r = 0; r < params->rows; ++r) {
        const int8_t *in = input + r * params->depth;
        int8_t *out = output + r * params->depth;
        const int32_t max = row_max(in, params->depth);
        const int32_t log_sum_q5 = log_sum_of_exps_q5(params, in, max);
        /* below this difference the output is the smallest value */
        const int32_t adjusted_diff_min = fg_max_i32(
            params->diff_min - 1, fg_multiply_by_quantized_multiplier(fg_fx_add(log_sum_q5, FG_INT32_MIN),
                                                                      params->reverse_scaling_divisor,
                                                                      params->reverse_scaling_shift));
        for (int32_t c = 0; c < params->depth; ++c) {
            const int32_t diff = in[c] - max;
            if (diff > adjusted_diff_min) {
                out[c] = fg_saturate_s8(
                    fg_rounding_divide_by_pot(fg_fx_sub(params->diff_q5[-diff], log_sum_q5),
                                              31 - DIFF_INTEGER_BITS - OUTPUT_INTEGER_BITS) + 127);
            } else {
                out[c] = -128;
            }
        }
    }
}
