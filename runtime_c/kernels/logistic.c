/* LOGISTIC int8 -> int8 with TFLite Micro's reference arithmetic: the input is rescaled to Q4.27, the
 * fixed-point logistic gives Q0.31, which is rounded to 1/256 steps. */
#include "fg/logistic.h"

#include "fg/fixedpoint.h"
#include "fg/fixedpoint_math.h"

enum {
    INPUT_INTEGER_BITS = 4,
    OUTPUT_INTEGER_BITS = 8,
};

void fg_logistic_s8(const fg_logistic_params *params, const int8_t *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        const int32_t x = input[i] - params->input_zero_point;
        if (x <= -params->input_range_radius) {
            output[i] = -128;
        } else if (x >= params->input_range_radius) {
            output[i] = 127;
        } else {
            const int32_t x_q4 =
                fg_multiply_by_quantized_multiplier(x, params->input_multiplier, params->input_left_shift);
            const int32_t y_q0 = fg_fx_logistic(x_q4, INPUT_INTEGER_BITS);
            output[i] = fg_saturate_s8(fg_rounding_divide_by_pot(y_q0, 31 - OUTPUT_INTEGER_BITS) - 128);
        }
    }
}
