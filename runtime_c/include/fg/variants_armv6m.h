/* The Armv6-M (Cortex-M0, M0+) variants: runtime_c/kernels/<name>_armv6m.c, chosen by firmware_gen/ops/variants/armv6m.py.
 * Each computes the same bytes as the portable kernel it replaces, from the same params struct. */
#ifndef FG_VARIANTS_ARMV6M_H
#define FG_VARIANTS_ARMV6M_H

#include <stdint.h>

#include "fg/conv2d.h"
#include "fg/depthwise_conv2d.h"
#include "fg/fully_connected.h"

/* fg_conv2d_pointwise_s8: one pixel x eight channels per pass of fg_armv6m_dot8; filter unused (NULL). */
void fg_conv2d_pointwise_armv6m(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                int8_t *output);
/* fg_conv2d_folded_s8 (and its one-input-channel depthwise twin): each pixel's window as one run of taps (copied
 * unless it is one row inside the image, the zero point in the padding) through fg_armv6m_window_s8; filter unused
 * (NULL). */
void fg_conv2d_folded_armv6m(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output);
/* fg_fully_connected_folded_s8: each row through fg_armv6m_window_s8; weights unused (NULL). */
void fg_fully_connected_armv6m(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                               int8_t *output);
/* fg_fully_connected_folded_s8 with two outputs per MULS (their weights in one word, w1 + 2^16 w2), in blocks whose
 * two partial sums stay within int16 (the generator's block lengths); its row widened to int32 on the stack; weights
 * unused (NULL). */
void fg_fully_connected_paired_armv6m(const fg_fully_connected_params *params, const int8_t *input,
                                      const int8_t *weights, int8_t *output);
/* fg_conv2d_pointwise_s8 and fg_conv2d_folded_s8 the same way, a pixel's window at a time; filter unused (NULL). */
void fg_conv2d_paired_armv6m(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                             int8_t *output);
/* fg_conv2d_s4 (4-bit weights, a window of at most FG_CONV_GATHER_TAPS taps) and fg_fully_connected_s4: as the two
 * above through fg_armv6m_window_s4. */
void fg_conv2d_s4_armv6m(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output);
void fg_fully_connected_s4_armv6m(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                                  int8_t *output);
/* fg_depthwise_conv2d_3x3_s8 with stride 1 or 2 and no dilation, its ring of input rows (in_c x 3 x pitch bytes,
 * pitch the padded row) within FG_DW_RING_BYTES on the stack. */
#define FG_DW_RING_BYTES 4096
void fg_depthwise_conv2d_armv6m(const fg_depthwise_conv2d_params *params, const int8_t *input, int8_t *output);
/* The same for fg_depthwise_conv2d_s4 (4-bit weights, 3x3, depth multiplier 1). */
void fg_depthwise_conv2d_s4_armv6m(const fg_depthwise_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                   int8_t *output);
/* The same two where the ring of every channel would not fit: blocks of channels, as many as fit (at least four),
 * each over the whole image; the portable fg_depthwise_conv2d_3x3_s8 where the output overlaps the input other than
 * a whole number of pixels before it (its filter unpacked to the stack: 9 bytes a channel). */
void fg_depthwise_conv2d_blocked_armv6m(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                        int8_t *output);
void fg_depthwise_conv2d_blocked_s4_armv6m(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                           const int8_t *filter, int8_t *output);

#endif /* FG_VARIANTS_ARMV6M_H */
