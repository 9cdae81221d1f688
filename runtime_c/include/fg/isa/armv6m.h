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

/* The output stage of one channel (firmware_gen/ops/variants/armv6m_output.py, where the arithmetic is derived):
 * TFLite's two roundings as one floor, from four 16 x 16 products of the accumulator's halves (a = ah 2^16 + al) and
 * the multiplier's (mh, ml):
 *     u = (al ml >> 16) + ah ml + al mh + k - 2^15 [a < 0];  output = (ah mh + (u >> 16) + c) >> shift
 * exact for |a| < 2^21. An accumulator below `below` gives the clamp's low end (ReLU's zero for every negative sum),
 * one above `above` its high end: the unsaturated range between them, cut at generation time to the sums the
 * channel's weights can reach, is where the arithmetic runs, and no clamp is needed there. */
typedef struct {
    int32_t below, above;
    int32_t ml, mh;
    int32_t k, c, shift;  /* c holds the zero point; shift -1: a channel the fast stage does not serve */
} fg_armv6m_channel;

/* The layer's constants in params->packed: a flag (1: the fast stage serves every channel; FG_ARMV6M_POSITIVE:
 * and every channel's unsaturated sums are non-negative, or its output one constant), the output zero point and
 * clamp, one fg_armv6m_channel per output channel, then the weights (as fg_armv6m_dot8 reads them). */
#define FG_ARMV6M_POSITIVE 2
typedef struct {
    int32_t served;
    int32_t zero, low, high;
} fg_armv6m_layer;

static inline const fg_armv6m_channel *fg_armv6m_channels(const void *packed) {
    return (const fg_armv6m_channel *)((const fg_armv6m_layer *)packed + 1);
}

/* output[j] = the channel[j]'s output stage of acc[j], j < count (count >= 1), every channel served. */
void fg_armv6m_requantize_s8(const int32_t *acc, int32_t count, const fg_armv6m_channel *channel, int8_t *output,
                             const fg_armv6m_layer *layer);

/* fg_armv6m_requantize_s8 over `pixels` pixels of `count` channels (acc [pixel][count], consecutive; a pixel's
 * outputs `step` bytes after the previous one's). */
void fg_armv6m_requantize_pixels_s8(const int32_t *acc, int32_t pixels, const fg_armv6m_channel *channel,
                                    int8_t *output, const fg_armv6m_layer *layer, int32_t count, int32_t step);
void fg_armv6m_requantize_pixels_positive_s8(const int32_t *acc, int32_t pixels, const fg_armv6m_channel *channel,
                                             int8_t *output, const fg_armv6m_layer *layer, int32_t count,
                                             int32_t step);

/* output[j] = fg_requantize_channel_s8(q, acc[j], first + j), j < count: fg_armv6m_requantize_s8 where the layer is
 * served, else runs of served channels through it and the others by TFLite's arithmetic. */
void fg_armv6m_outputs_s8(const fg_requant_params *q, const void *packed, const int32_t *acc, int32_t first,
                          int32_t count, int8_t *output);

/* acc[j] = acc[0] + bias[j] + sum_{k < n} x[k] * w[8 k + j], j < 8 (n >= 0), for a group of eight channels laid out
 * as its eight int32 biases then its interleaved unsigned weights (w + 128, tap by tap): `group`. */
void fg_armv6m_dot8(const int8_t *x, int32_t n, const uint8_t *group, int32_t acc[FG_ARMV6M_GROUP]);

/* The outputs of one window (a pixel's taps, or a fully-connected row) of `taps` inputs at x: packed is the layer's
 * fg_armv6m_layer, channels and groups (eight folded biases, then [taps][8] interleaved weights), bias unused;
 * output[c] = requantized(bias[c] + the window's dot product with channel c's weights), c < out_c. */
void fg_armv6m_window_s8(const int8_t *x, int32_t taps, const void *packed, int32_t out_c, const int32_t *bias,
                         const fg_requant_params *q, int8_t *output);

/* fg_armv6m_window_s8 (int4 0) or fg_armv6m_window_s4 (int4 1) for a window whose `taps` inputs sum to `sum`. */
void fg_armv6m_window_summed(const int8_t *x, int32_t taps, int32_t sum, const void *packed, int32_t out_c,
                             const fg_requant_params *q, int8_t *output, int32_t int4);

/* 4-bit weights: acc[2j + i] = acc[0] + bias[2j + i] + sum_{k < n} x[k] * (nibble i of w[4 k + j]), j < 4, i < 2:
 * after the group's eight biases, byte j of a tap holds channel 2j's weight + 8 in its low nibble and channel
 * 2j + 1's + 8 in its high one (fg_armv6m_window_s4 takes the 8 sum x off). */
void fg_armv6m_dot8_s4(const int8_t *x, int32_t n, const uint8_t *group, int32_t acc[FG_ARMV6M_GROUP]);

/* fg_armv6m_window_s8 for 4-bit weights: after the channels, [groups][taps][4] bytes as fg_armv6m_dot8_s4 reads
 * them. */
void fg_armv6m_window_s4(const int8_t *x, int32_t taps, const void *packed, int32_t out_c, const int32_t *bias,
                         const fg_requant_params *q, int8_t *output);

/* One window's outputs through every group of eight channels (runtime_c/kernels/support/groups_armv6m.c), for a
 * layer the Thumb-1 output stage serves whole: the inputs, the first group, the sum to start each channel's from
 * (its folded bias added), the first channel and output, the end of the outputs and the clamp. Field offsets and
 * order are the assembly's (LDMs). */
typedef struct {
    const int8_t *x;
    int32_t taps;
    const uint8_t *group;
    int32_t start;
    const fg_armv6m_channel *channel;
    int8_t *output;
    int8_t *end;
    int32_t low, high;
} fg_armv6m_run;

void fg_armv6m_groups_s8(fg_armv6m_run *run);
void fg_armv6m_groups_s4(fg_armv6m_run *run);
/* The same for a layer whose every unsaturated sum is non-negative (fg_armv6m_layer's served FG_ARMV6M_POSITIVE):
 * the output stage without its sign's term. */
void fg_armv6m_groups_positive_s8(fg_armv6m_run *run);
void fg_armv6m_groups_positive_s4(fg_armv6m_run *run);

/* Two outputs per MULS (runtime_c/kernels/support/pairs_armv6m.c, firmware_gen/ops/variants/armv6m_paired.py):
 * x[i] = input[i] for i < depth, then zeros up to x + padded (padded >= depth). */
void fg_armv6m_widen(int32_t *x, const int8_t *input, int32_t depth, int32_t padded);
/* output[c] = requantized(the dot product of the widened inputs x (zeros to a multiple of 16) with channel c's
 * weights, plus its folded bias), c < out_c: packed is the layer's fg_armv6m_layer, channels, then a record per pair
 * of channels. */
void fg_armv6m_paired_outputs(const int32_t *x, const void *packed, int32_t out_c, const fg_requant_params *q,
                              int8_t *output);

#endif /* FG_ARMV6M_SUPPORT_H */
