/* The output stage shared by the convolution-like kernels (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED): an int32
 * (int8) or int64 (16x8) accumulator, scaled by one output channel's quantized multiplier, offset and clamped. */
#ifndef FG_REQUANTIZE_H
#define FG_REQUANTIZE_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"

/* The quantization of a weighted operator: the same fields, in the same order, in every params struct. */
typedef struct {
    int32_t input_offset;   /* minus the input zero point */
    int32_t output_offset;  /* the output zero point */
    int32_t activation_min, activation_max;
    int32_t per_channel;    /* 1: one multiplier and shift per output channel; 0: a single entry */
    const int32_t *multipliers;
    const int32_t *shifts;
} fg_requant_params;

/* Output channel `channel` of accumulator `acc`. Kernels whose loops store int8 outputs pass a local copy of their
 * params' fg_requant_params: a char store may alias the params, so the compiler would reload every field. */
static inline int8_t fg_requantize_channel_s8(const fg_requant_params *q, int32_t acc, int32_t channel) {
    const int32_t entry = q->per_channel ? channel : 0;
    const int32_t scaled = fg_multiply_by_quantized_multiplier(acc, q->multipliers[entry], (int)q->shifts[entry]);
    return (int8_t)fg_clamp_i32(scaled + q->output_offset, q->activation_min, q->activation_max);
}

/* The bias of a 16x8 kernel (int16 activations, int8 weights), widened to int64 at generation time. narrow: TFLite
 * stored it as int32, so TFLite accumulates in int32 and scales with the 32-bit multiply; else (an int64 bias, or
 * none: bias NULL) in int64 with the 64-bit one. */
typedef struct {
    const int64_t *bias;
    int32_t narrow;
} fg_wide_bias;

/* fg_multiply_by_quantized_multiplier_64(x, multiplier, shift), the same integer, in 32-bit arithmetic where x fits
 * int32 and the total shift s = 15 - shift is in [16, 32] (the usual case): with x = xh * 2^16 + xl and r the 16-bit
 * multiplier, floor((x * r + 2^(s-1)) / 2^s) = (xh * r + (xl * r + 2^(s-1)) / 2^16) >> (s - 16), where xl * r +
 * 2^(s-1) < 2^32 and xh * r fits int32. */
static inline int32_t fg_scale_wide_s16(int64_t x, int32_t multiplier, int shift) {
    const int total_shift = 15 - shift;
    const int32_t low = (int32_t)(uint32_t)(uint64_t)x;
    if (total_shift < 16 || total_shift > 32 || (int64_t)low != x) {
        return fg_multiply_by_quantized_multiplier_64(x, multiplier, shift);
    }
    const int32_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
    const uint32_t rounded = ((uint32_t)low & 0xFFFFu) * (uint32_t)reduced + ((uint32_t)1 << (total_shift - 1));
    return ((low >> 16) * reduced + (int32_t)(rounded >> 16)) >> (total_shift - 16);
}

/* Output channel `channel` of a 16x8 accumulator (the products summed in int64, without the bias). */
static inline int16_t fg_requantize_channel_s16(const fg_requant_params *q, const fg_wide_bias *w, int64_t acc,
                                                int32_t channel) {
    const int32_t entry = q->per_channel ? channel : 0;
    if (w->bias) {
        acc += w->bias[channel];
    }
    const int32_t scaled = w->narrow
        ? fg_multiply_by_quantized_multiplier((int32_t)(uint32_t)(uint64_t)acc, q->multipliers[entry],
                                              (int)q->shifts[entry])
        : fg_scale_wide_s16(acc, q->multipliers[entry], (int)q->shifts[entry]);
    return (int16_t)fg_clamp_i32(scaled + q->output_offset, q->activation_min, q->activation_max);
}

/* output[k] = fg_requantize_channel_s16(q, w, acc[k], first + k), k < count, in one loop with the layer's constants
 * in registers (runtime_c/kernels/support/requantize_block_s16.c); returns output + count. */
int16_t *fg_requantize_block_s16(const fg_requant_params *q, const fg_wide_bias *w, const int64_t *acc, int32_t first,
                                 int32_t count, int16_t *output);

/* An accumulator kept as uint32 (so that sums wrap instead of overflowing) read back as TFLite's int32. */
static inline int32_t fg_wrapped_i32(uint32_t acc) {
    return acc <= (uint32_t)FG_INT32_MAX ? (int32_t)acc : -(int32_t)(~acc) - 1;
}

/* output[k] = channel first + k of the wrapped accumulator acc[k], for k < count: the output stage of the fast
 * variants, one loop with the layer's constants in registers. Assumes no multiplier is INT32_MIN (none that
 * TFLite's QuantizeMultiplier produces is), the only case fg_saturating_rounding_doubling_high_mul saturates. */
void fg_requantize_run_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                          int8_t *output);

/* The same for two pixels at once, channels outer: the second pixel's accumulators at acc + FG_REQUANT_CHUNK, its
 * outputs at out1 (NULL: one pixel; acc then needs only count entries). */
void fg_requantize_pair_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                           int8_t *out0, int8_t *out1);

/* The same for four pixels (accumulators at acc + i * FG_REQUANT_CHUNK): pixel 0's outputs at out0, pixel i's
 * (i = 1..3) at rest + (i - 1) * rest_step. */
void fg_requantize_quad_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                           int8_t *out0, int8_t *rest, int32_t rest_step);

/* Channels per fg_requantize_run_s8 call in the fast variants (their accumulators live on the stack). */
#define FG_REQUANT_CHUNK 16

#endif /* FG_REQUANTIZE_H */
