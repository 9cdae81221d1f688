/* The output stage shared by the int8 convolution-like kernels (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED):
 * an int32 accumulator, scaled by one output channel's quantized multiplier, offset and clamped to int8. */
#ifndef FG_REQUANTIZE_H
#define FG_REQUANTIZE_H

#include <stdint.h>

#include "fg/fixedpoint.h"

/* The quantization of a weighted operator: the same fields, in the same order, in every params struct. */
typedef struct {
    int32_t input_offset;   /* minus the input zero point */
    int32_t output_offset;  /* the output zero point */
    int32_t activation_min, activation_max;
    int32_t per_channel;    /* 1: one multiplier and shift per output channel; 0: a single entry */
    const int32_t *multipliers;
    const int32_t *shifts;
} fg_requant_params;

/* The multiplier and shift of output channel `channel`: per-tensor tables hold a single entry. */
static inline int32_t fg_channel_entry(const int32_t *table, int32_t per_channel, int32_t channel) {
    return table[per_channel ? channel : 0];
}

static inline int8_t fg_requantize_s8(int32_t acc, int32_t multiplier, int32_t shift, int32_t output_offset,
                                      int32_t activation_min, int32_t activation_max) {
    int32_t scaled = fg_multiply_by_quantized_multiplier(acc, multiplier, (int)shift) + output_offset;
    return (int8_t)fg_clamp_i32(scaled, activation_min, activation_max);
}

/* Output channel `channel` of accumulator `acc`. */
static inline int8_t fg_requantize_channel_s8(const fg_requant_params *q, int32_t acc, int32_t channel) {
    const int32_t entry = q->per_channel ? channel : 0;
    return fg_requantize_s8(acc, q->multipliers[entry], q->shifts[entry], q->output_offset, q->activation_min,
                            q->activation_max);
}

/* An accumulator kept as uint32 (so that sums wrap instead of overflowing) read back as TFLite's int32. */
static inline int32_t fg_wrapped_i32(uint32_t acc) {
    return acc <= (uint32_t)FG_INT32_MAX ? (int32_t)acc : -(int32_t)(~acc) - 1;
}

#endif /* FG_REQUANTIZE_H */
