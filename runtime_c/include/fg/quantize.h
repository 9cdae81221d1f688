/* QUANTIZE: float -> int8 (TFLM's AffineQuantize) and integer requantization (TFLM's Requantize). */
#ifndef FG_QUANTIZE_H
#define FG_QUANTIZE_H

#include <stdint.h>

typedef struct {
    int32_t size;
    float scale;               /* output scale (float input only) */
    int32_t input_zero_point;  /* integer input only */
    int32_t output_zero_point;
    int32_t multiplier;        /* input scale / output scale as a Q31 multiplier and shift (integer input only) */
    int32_t shift;
} fg_quantize_params;

void fg_quantize_f32_s8(const fg_quantize_params *params, const float *input, int8_t *output);
void fg_quantize_s8_s8(const fg_quantize_params *params, const int8_t *input, int8_t *output);
void fg_quantize_s8_u8(const fg_quantize_params *params, const int8_t *input, uint8_t *output);
void fg_quantize_u8_s8(const fg_quantize_params *params, const uint8_t *input, int8_t *output);

#endif /* FG_QUANTIZE_H */
