#include "fg/dequantize.h"

/* As fg_dequantize_s8_f32: |q - zero_point| < 2^17 and a 24-bit scale make the double product TFLM rounds exact, so
 * one float multiply rounds to the same value. */
void fg_dequantize_s16_f32(const fg_dequantize_params *params, const int16_t *input, float *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = params->scale * (float)((int32_t)input[i] - params->zero_point);
    }
}
