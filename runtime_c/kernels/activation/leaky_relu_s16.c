/* LEAKY_RELU int16 -> int16 with TFLite Micro's reference arithmetic (zero points 0): one of two multipliers
 * by the sign of the input, saturated to int16. The int8 form is a table computed with the same arithmetic. */
#include "fg/activations_s16.h"

#include "fg/support/fixedpoint.h"

void fg_leaky_relu_s16(const fg_leaky_relu_s16_params *params, const int16_t *input, int16_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        const int32_t x = input[i];
        const int32_t y = x >= 0 ? fg_multiply_by_quantized_multiplier(x, params->identity_multiplier,
                                                                       params->identity_shift)
                                 : params->alpha_sign * fg_multiply_by_quantized_multiplier(x, params->alpha_multiplier,
                                                                                          params->alpha_shift);
        output[i] = fg_saturate_s16(y);
    }
}
