/* The Armv6-M (Cortex-M0, M0+) inner loop of the convolution and fully-connected variants
 * (runtime_c/kernels/<name>_armv6m.c, firmware_gen/ops/variants/armv6m.py).
 *
 * Thumb-1 has one multiply, MULS (32 x 32 -> low 32 bits, the destination one of the sources), and its sign-extending
 * byte load LDRSB only takes a register offset, while LDRB takes an immediate one. So the weights are laid out at
 * generation time as unsigned bytes w + 128, eight output channels interleaved tap by tap ([group of 8][taps][8]):
 * one LDRB with an immediate offset, one MULS and one ADD per product, one LDRSB of the input shared by eight. The
 * products then hold x * w + 128 x: the sum of the inputs, times 128, is taken off once per row. */
#ifndef FG_ARMV6M_SUPPORT_H
#define FG_ARMV6M_SUPPORT_H

#include <stdint.h>

#include "fg/support/requantize.h"

#define FG_ARMV6M_GROUP 8

/* The output stage of one channel for a right shift r >= 1 (TFLite's MultiplyByQuantizedMultiplier, its rounding
 * doubling high multiply from 16-bit halves as in fg_high_mul_halves), laid out at generation time: the multiplier's
 * signed high half and unsigned low half, and for the rounding division by 2^r, the mask 2^r - 1 and 2^(r-1):
 * with H the high product, TFLite's (H >> r) + ((H & mask) > (mask >> 1) + [H < 0]) is
 * (H >> r) + (((H & mask) + 2^(r-1) + (H >> 31)) >> r) (logical), which cannot overflow. */
typedef struct {
    int32_t high, low, mask, half, right;
    /* Early exits, worked out at generation time: an accumulator below `below` gives the clamp's low end (ReLU's
     * zero for every negative sum), one above `above` its high end. */
    int32_t below, above;
} fg_armv6m_channel;

/* The layer's constants in params->packed: a flag (1: every channel's shift is a right shift of 1..31 and its
 * multiplier above INT32_MIN, so the fast stage serves the layer), the output zero point and clamp, one
 * fg_armv6m_channel per output channel (`right` 0 for a channel the fast stage does not serve), then the weights (as
 * fg_armv6m_dot8 reads them). */
typedef struct {
    int32_t served;
    int32_t zero, low, high;
} fg_armv6m_layer;

static inline const fg_armv6m_channel *fg_armv6m_channels(const void *packed) {
    return (const fg_armv6m_channel *)((const fg_armv6m_layer *)packed + 1);
}

/* output[j] = the channel[j]'s output stage of acc[j], j < count (count >= 1). */
void fg_armv6m_requantize_s8(const int32_t *acc, int32_t count, const fg_armv6m_channel *channel, int8_t *output,
                             const fg_armv6m_layer *layer);

/* acc[j] += sum_{k < n} x[k] * w[8 k + j], j < 8 (n >= 1): the interleaved unsigned weights (w + 128). */
void fg_armv6m_dot8(const int8_t *x, int32_t n, const uint8_t *w, int32_t acc[FG_ARMV6M_GROUP]);

/* The outputs of one window (a pixel's taps, or a fully-connected row) of `taps` inputs at x: packed is the layer's
 * fg_armv6m_layer, channels and interleaved weights ([groups][taps][8]), bias its folded bias;
 * output[c] = requantized(bias[c] + the window's dot product with channel c's weights), c < out_c. */
void fg_armv6m_window_s8(const int8_t *x, int32_t taps, const void *packed, int32_t out_c, const int32_t *bias,
                         const fg_requant_params *q, int8_t *output);

/* 4-bit weights: acc[2j + i] += sum_{k < n} x[k] * (nibble i of w[4 k + j]), j < 4, i < 2: byte j of a tap holds
 * channel 2j's weight + 8 in its low nibble and channel 2j + 1's + 8 in its high one (fg_armv6m_window_s4 takes the
 * 8 sum x off). */
void fg_armv6m_dot8_s4(const int8_t *x, int32_t n, const uint8_t *w, int32_t acc[FG_ARMV6M_GROUP]);

/* fg_armv6m_window_s8 for 4-bit weights: after the channels, [groups][taps][4] bytes as fg_armv6m_dot8_s4 reads
 * them. */
void fg_armv6m_window_s4(const int8_t *x, int32_t taps, const void *packed, int32_t out_c, const int32_t *bias,
                         const fg_requant_params *q, int8_t *output);

#endif /* FG_ARMV6M_SUPPORT_H */
