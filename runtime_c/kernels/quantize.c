#include "fg/quantize.h"

#include "fg/fixedpoint.h"

/* Any |x| beyond this saturates int8 whatever the zero point; clamping first keeps the float -> int
 * conversion defined (NaN lands on the low bound, as it does in TFLM on x86). */
#define FG_QUANTIZE_LIMIT 1024.0f

/* std::round on a float already inside +-FG_QUANTIZE_LIMIT: halves away from zero. x - truncation is
 * exact there, so no libm call is needed. */
static int32_t round_half_away(float x) {
    int32_t t = (int32_t)x;
    float fraction = x - (float)t;
    if (fraction >= 0.5f) {
        t += 1;
    } else if (fraction <= -0.5f) {
        t -= 1;
    }
    return t;
}

void fg_quantize_f32_s8(const fg_quantize_params *params, const float *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        float x = input[i] / params->scale;
        if (!(x > -FG_QUANTIZE_LIMIT)) {
            x = -FG_QUANTIZE_LIMIT;
        } else if (x > FG_QUANTIZE_LIMIT) {
            x = FG_QUANTIZE_LIMIT;
        }
        output[i] = fg_saturate_s8(round_half_away(x) + params->output_zero_point);
    }
}

static int32_t requantize(const fg_quantize_params *params, int32_t q) {
    return fg_multiply_by_quantized_multiplier(q - params->input_zero_point, params->multiplier, params->shift) +
           params->output_zero_point;
}

void fg_quantize_s8_s8(const fg_quantize_params *params, const int8_t *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = fg_saturate_s8(requantize(params, input[i]));
    }
}

void fg_quantize_s8_u8(const fg_quantize_params *params, const int8_t *input, uint8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (uint8_t)fg_clamp_i32(requantize(params, input[i]), 0, 255);
    }
}

void fg_quantize_u8_s8(const fg_quantize_params *params, const uint8_t *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = fg_saturate_s8(requantize(params, input[i]));
    }
}
