#include <string.h>

#include "fg/support/fixedpoint.h"
#include "fg/svdf.h"

/* One filter's time product, TFLM's per-filter int32 scratch entry: its `memory` time weights against its state
 * row less the state's zero point (both int16 or both int8; `weights` and `row`: their first elements). */
static int32_t time_product(const fg_svdf_params *p, const void *weights_time, const void *state, int32_t weights,
                            int32_t row) {
    int32_t dot = 0;
    if (p->state_bits == 16) {
        const int16_t *w = (const int16_t *)weights_time + weights, *s = (const int16_t *)state + row;
        for (int32_t m = 0; m < p->memory; ++m) {
            dot += (int32_t)w[m] * ((int32_t)s[m] - p->state_zero_point);
        }
    } else {
        const int8_t *w = (const int8_t *)weights_time + weights, *s = (const int8_t *)state + row;
        for (int32_t m = 0; m < p->memory; ++m) {
            dot += (int32_t)w[m] * ((int32_t)s[m] - p->state_zero_point);
        }
    }
    return dot;
}

/* Drop the oldest column, then write each filter's rescaled feature product into the newest one. */
static void update_state(const fg_svdf_params *p, const int8_t *input, const int8_t *weights_feature, void *state) {
    const int32_t bytes = p->state_bits / 8;
    const int32_t count = p->batches * p->filters * p->memory;
    const int32_t lo = p->state_bits == 16 ? -32768 : -128;
    const int32_t hi = p->state_bits == 16 ? 32767 : 127;
    memmove(state, (uint8_t *)state + bytes, (size_t)(count - 1) * (size_t)bytes);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *row = input + b * p->input_size;
        for (int32_t f = 0; f < p->filters; ++f) {
            const int8_t *weights = weights_feature + f * p->input_size;
            int32_t dot = p->feature_bias[f];
            for (int32_t c = 0; c < p->input_size; ++c) {
                dot += (int32_t)weights[c] * (int32_t)row[c];
            }
            dot = fg_multiply_by_quantized_multiplier(dot, p->feature_multiplier, p->feature_shift);
            /* Clamped to the state's range, then the zero point added (and narrowed, wrapping), as the TFLM of
             * the oracle wheel does; later TFLM adds the zero point before the clamp. Equal for zero point 0. */
            const int32_t value = fg_clamp_i32(dot, lo, hi) + p->state_zero_point;
            const int32_t newest = (b * p->filters + f) * p->memory + p->memory - 1;
            if (p->state_bits == 16) {
                ((int16_t *)state)[newest] = (int16_t)value;
            } else {
                ((int8_t *)state)[newest] = (int8_t)value;
            }
        }
    }
}

void fg_svdf_s8(const fg_svdf_params *p, const int8_t *input, const int8_t *weights_feature,
                const void *weights_time, const int32_t *bias, int8_t *output, void *state) {
    update_state(p, input, weights_feature, state);
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t u = 0; u < p->units; ++u) {
            int32_t acc = bias ? bias[u] : 0;
            for (int32_t f = u * p->rank; f < (u + 1) * p->rank; ++f) {
                acc += time_product(p, weights_time, state, f * p->memory, (b * p->filters + f) * p->memory);
            }
            acc = fg_multiply_by_quantized_multiplier(acc, p->output_multiplier, p->output_shift);
            *output++ = fg_saturate_s8(acc + p->output_zero_point);
        }
    }
}
