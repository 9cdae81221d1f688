/* ABS int16 -> int16 with TFLite Micro's reference arithmetic (zero points 0): |x| rescaled, saturated (|-32768|
 * becomes 32767 where the scales are equal). The int8 form is a table computed with the same arithmetic. */
#include "fg/activations_s16.h"

#include "fg/support/fixedpoint.h"

void fg_abs_s16(const fg_abs_s16_params *params, const int16_t *input, int16_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        const int32_t magnitude = input[i] < 0 ? -(int32_t)input[i] : input[i];
        output[i] = fg_saturate_s16(fg_multiply_by_quantized_multiplier(magnitude, params->multiplier, params->shift));
    }
}
