/* RELU and RELU6 int16 -> int16 with TFLite Micro's reference arithmetic (zero points 0): the input rescaled, then
 * clamped. The int8 forms are tables computed with the same arithmetic. */
#include "fg/activations_s16.h"

#include "fg/support/fixedpoint.h"

void fg_relu_s16(const fg_relu_s16_params *params, const int16_t *input, int16_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        const int32_t y = fg_multiply_by_quantized_multiplier(input[i], params->multiplier, params->shift);
        output[i] = (int16_t)fg_clamp_i32(y, params->activation_min, params->activation_max);
    }
}
