#include "fg/dequantize.h"

/* TFLM computes scale * (q - zero_point) in double and rounds to float once. |q - zero_point| < 2^9 and the
 * scale has a 24-bit mantissa, so the double product is exact and a single float multiply rounds to the
 * same value, without double arithmetic on the target. */
void fg_dequantize_u8_f32(const fg_dequantize_params *params, const uint8_t *input, float *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = params->scale * (float)((int32_t)input[i] - params->zero_point);
    }
}
