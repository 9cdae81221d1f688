#include "fg/quantize.h"

#include "fg/fixedpoint.h"

void fg_quantize_f32_s8(const fg_quantize_params *params, const float *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int8_t)fg_quantize_float(input[i], params->scale, params->output_zero_point, -128, 127);
    }
}

void fg_quantize_s8_u8(const fg_quantize_params *params, const int8_t *input, uint8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (uint8_t)fg_clamp_i32(fg_requantize_value(params, input[i]), 0, 255);
    }
}

void fg_quantize_u8_s8(const fg_quantize_params *params, const uint8_t *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = fg_saturate_s8(fg_requantize_value(params, input[i]));
    }
}
