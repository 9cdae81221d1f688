#include "fg/quantize.h"

#include "fg/support/fixedpoint.h"

void fg_quantize_s8_u8(const fg_quantize_params *params, const int8_t *input, uint8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (uint8_t)fg_clamp_i32(fg_requantize_value(params, input[i]), 0, 255);
    }
}
