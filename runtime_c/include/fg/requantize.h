/* The output stage shared by the int8 convolution-like kernels (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED):
 * an int32 accumulator, scaled by one output channel's quantized multiplier, offset and clamped to int8. */
#ifndef FG_REQUANTIZE_H
#define FG_REQUANTIZE_H

#include <stdint.h>

#include "fg/fixedpoint.h"

/* The multiplier and shift of output channel `channel`: per-tensor tables hold a single entry. */
static inline int32_t fg_channel_entry(const int32_t *table, int32_t per_channel, int32_t channel) {
    return table[per_channel ? channel : 0];
}

static inline int8_t fg_requantize_s8(int32_t acc, int32_t multiplier, int32_t shift, int32_t output_offset,
                                      int32_t activation_min, int32_t activation_max) {
    int32_t scaled = fg_multiply_by_quantized_multiplier(acc, multiplier, (int)shift) + output_offset;
    return (int8_t)fg_clamp_i32(scaled, activation_min, activation_max);
}

#endif /* FG_REQUANTIZE_H */
