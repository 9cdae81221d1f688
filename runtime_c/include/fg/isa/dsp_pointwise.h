/* The loop of the int8 DSP 1x1 convolutions fg_conv2d_pointwise_dsp and fg_conv2d_pointwise_staged_dsp, defined once
 * per firmware by runtime_c/kernels/support/dsp_pointwise_run.c (each kernel file had its own copy while the cycle
 * estimate placed a block's weight reads by one register sample for the whole invoke; it samples per step now).
 * Outside __ARM_FEATURE_DSP this header declares nothing. */
#ifndef FG_DSP_POINTWISE_H
#define FG_DSP_POINTWISE_H

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP)
#include "fg/conv2d.h"
#include "fg/isa/dsp.h"

/* Every output from the output stages at ch (fg_dsp_channel[out_c]) and the weights (per channel pair the int16
 * weight words of in_c rounded up to 8), each tile of three pixels in turn with its input pairs at x (3 * pairs
 * words): the in-place kernel's. On the M7 x must hold 3 * FG_DSP_CONV_MAX_PAIRS words (fg/variants_dsp.h), whatever
 * the depth: its tiles of four pixels lay 4 * pairs words there where they fit. */
void fg_dsp_pointwise_tiles(const fg_conv2d_params *p, const int8_t *input, int8_t *output, const fg_dsp_channel *ch,
                            const uint32_t *weights, uint32_t *x);

/* Every output from the table at ch (fg_dsp_channel[out_c], then the weights as above) on the arrays x (tiles tiles
 * of input pairs) and w (block staged channel pairs, or none: fg/isa/dsp_staged.h). */
void fg_dsp_pointwise_run(const fg_conv2d_params *p, const int8_t *input, int8_t *output, const fg_dsp_channel *ch,
                          int32_t tiles, int32_t block, uint32_t *x, uint32_t *w);

#endif /* __ARM_FEATURE_DSP */
#endif /* FG_DSP_POINTWISE_H */
