/* QUANTIZE: float -> int8 (TFLM's AffineQuantize) and integer requantization (TFLM's Requantize). */
#ifndef FG_QUANTIZE_H
#define FG_QUANTIZE_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"

typedef struct {
    int32_t size;
    float scale;               /* output scale (float input only) */
    int32_t input_zero_point;  /* integer input only */
    int32_t output_zero_point;
    int32_t multiplier;        /* input scale / output scale as a Q31 multiplier and shift (integer input only) */
    int32_t shift;
} fg_quantize_params;

/* The 16x8 boundaries (TFLM's AffineQuantize and Requantize with int16 on either side). */
void fg_quantize_f32_s16(const fg_quantize_params *params, const float *input, int16_t *output);
void fg_quantize_s8_s16(const fg_quantize_params *params, const int8_t *input, int16_t *output);
void fg_quantize_s16_s8(const fg_quantize_params *params, const int16_t *input, int8_t *output);
void fg_quantize_s16_s16(const fg_quantize_params *params, const int16_t *input, int16_t *output);
/* To and from int32 (TFLM's Requantize; int32 tensors hold quantized inputs an application computed). */
void fg_quantize_s16_s32(const fg_quantize_params *params, const int16_t *input, int32_t *output);
void fg_quantize_s32_s16(const fg_quantize_params *params, const int32_t *input, int16_t *output);
void fg_quantize_s8_s32(const fg_quantize_params *params, const int8_t *input, int32_t *output);
void fg_quantize_s32_s8(const fg_quantize_params *params, const int32_t *input, int8_t *output);

/* std::round of x / scale, saturated to [lo, hi] first (|x| beyond 2^22 saturates any 16-bit type whatever the zero
 * point; NaN lands on lo, as it does in TFLM on x86), then the zero point added. x - truncation is exact there, so
 * no libm call is needed. */
static inline int32_t fg_quantize_float(float value, float scale, int32_t zero_point, int32_t lo, int32_t hi) {
    float x = value / scale;
    const float limit = 4194304.0f;
    if (!(x > -limit)) {
        x = -limit;
    } else if (x > limit) {
        x = limit;
    }
    int32_t t = (int32_t)x;
    const float fraction = x - (float)t;
    if (fraction >= 0.5f) {
        t += 1;
    } else if (fraction <= -0.5f) {
        t -= 1;
    }
    return fg_clamp_i32(t + zero_point, lo, hi);
}

/* TFLM's Requantize of one value, before the output type's clamp. The zero points are subtracted and added with
 * two's-complement wrap-around, as TFLM's int32 arithmetic does on an int32 tensor near the ends of its range. */
static inline int32_t fg_requantize_value(const fg_quantize_params *params, int32_t q) {
    const int32_t centred = (int32_t)((uint32_t)q - (uint32_t)params->input_zero_point);
    const int32_t scaled = fg_multiply_by_quantized_multiplier(centred, params->multiplier, params->shift);
    return (int32_t)((uint32_t)scaled + (uint32_t)params->output_zero_point);
}

void fg_quantize_f32_s8(const fg_quantize_params *params, const float *input, int8_t *output);
/* int8 -> int8 is a table lookup (fg_lookup_s8), computed at generation time (firmware_gen/ops/quantization/quantization.py). */
void fg_quantize_s8_u8(const fg_quantize_params *params, const int8_t *input, uint8_t *output);
void fg_quantize_u8_s8(const fg_quantize_params *params, const uint8_t *input, int8_t *output);

#endif /* FG_QUANTIZE_H */
