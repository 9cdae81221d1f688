#include "fg/quantize.h"

#include "fg/support/fixedpoint.h"

void fg_quantize_u8_s8(const fg_quantize_params *params, const uint8_t *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = fg_saturate_s8(fg_requantize_value(params, input[i]));
    }
}
