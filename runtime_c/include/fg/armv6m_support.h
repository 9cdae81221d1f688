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

#include "fg/requantize.h"

#define FG_ARMV6M_GROUP 8

/* acc[j] += sum_{k < n} x[k] * w[8 k + j], j < 8 (n >= 1): the interleaved unsigned weights (w + 128). */
void fg_armv6m_dot8(const int8_t *x, int32_t n, const uint8_t *w, int32_t acc[FG_ARMV6M_GROUP]);

/* The outputs of one window (a pixel's filter rows, or a fully-connected row): the taps are `rows` runs of `run`
 * inputs, run r at x[r]; w is the layer's interleaved weights ([groups][rows * run][8]), bias its folded bias;
 * output[c] = requantized(bias[c] + the window's dot product with channel c's weights), c < out_c. */
void fg_armv6m_window_s8(const int8_t *const x[], int32_t rows, int32_t run, const uint8_t *w, int32_t out_c,
                         const int32_t *bias, const fg_requant_params *q, int8_t *output);

#endif /* FG_ARMV6M_SUPPORT_H */
