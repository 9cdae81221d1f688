/* DEQUANTIZE: int8 / uint8 -> float, real = scale * (q - zero_point). */
#ifndef FG_DEQUANTIZE_H
#define FG_DEQUANTIZE_H

#include <stdint.h>

typedef struct {
    int32_t size;
    float scale;
    int32_t zero_point;
} fg_dequantize_params;

void fg_dequantize_s8_f32(const fg_dequantize_params *params, const int8_t *input, float *output);
void fg_dequantize_u8_f32(const fg_dequantize_params *params, const uint8_t *input, float *output);
void fg_dequantize_s16_f32(const fg_dequantize_params *params, const int16_t *input, float *output);

#endif /* FG_DEQUANTIZE_H */
