/* Kernel variants for Armv7E-M with the DSP extension (Cortex-M4, M7, M33, M55): the same results as the portable
 * kernel each replaces, with generation-time constants in params->packed (layouts: fg/isa/dsp.h and
 * firmware_gen/ops/variants/dsp.py). On other targets their files compile to nothing and the generator never
 * calls them. */
#ifndef FG_VARIANTS_DSP_H
#define FG_VARIANTS_DSP_H

#include <stdint.h>

#include "fg/add.h"
#include "fg/conv2d.h"
#include "fg/depthwise_conv2d.h"
#include "fg/fully_connected.h"
#include "fg/pooling.h"

/* fg_conv2d_pointwise_s8: three pixels x two channels per SMLAD tile; filter unused (NULL). */
void fg_conv2d_pointwise_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                             int8_t *output);

/* fg_conv2d_folded_s8: each output pixel's window gathered (im2col, zero point in the padding) and run through
 * the same tile; filter unused (NULL). */
void fg_conv2d_folded_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                          int8_t *output);

/* The same two with their weights staged in RAM (the stack) a block of channel pairs at a time, each block read by a
 * block of pixels' tiles (fg/isa/dsp_staged.h): flash read fewer times. */
void fg_conv2d_pointwise_staged_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                    int8_t *output);
void fg_conv2d_folded_staged_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                 int8_t *output);

/* fg_conv2d_folded_s8 for a 3x3 filter, stride 1, dilation 1, in_c a multiple of 16: each input row sign-extended
 * once into a band of three rows on the stack that the tile reads its windows from, not once per window. */
void fg_conv2d_3x3_band_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                            int8_t *output);

/* fg_conv2d_folded_s8 for a 3x3 filter, stride 1, dilation 1, in_c a multiple of 8, out_h, out_w (at least 4) and
 * out_c even: Winograd's F(2x2, 3x3) in integers, 16 SMLAD products per input and output channel a 2x2 tile. */
void fg_conv2d_3x3_winograd_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                int8_t *output);

/* fg_conv2d_folded_s8 (and fg_depthwise_conv2d_one_channel_s8, its one-channel case) for a 3x3 filter, dilation 1,
 * stride_w 1 or 2, in_c 1 or 3, out_c a multiple of 4 up to FG_DSP_CONV_RING_MAX_OUT, every channel narrow, the clamp
 * all of int8 and padded rows of at most FG_DSP_CONV_RING_COLUMNS columns: the three input rows of an output row
 * sign-extended once into a buffer on the stack, four output channels per pass, one LDM of their weights per tap. */
#define FG_DSP_CONV_RING_COLUMNS 98
#define FG_DSP_CONV_RING_MAX_OUT 16
void fg_conv2d_3x3_ring_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                            int8_t *output);

/* fg_depthwise_conv2d_3x3_s8 for in_c a multiple of 4, at most FG_DSP_DW_MAX_CHANNELS: four channels per pass,
 * one word of input per tap, SMLABB / SMLATT against weights pre-extended to int16 pairs. */
#define FG_DSP_DW_MAX_CHANNELS 1024
void fg_depthwise_conv2d_3x3_dsp(const fg_depthwise_conv2d_params *params, const int8_t *input, int8_t *output);

/* fg_depthwise_conv2d_3x3_s8 for in_c a multiple of 4, dilation 1, stride_w 1 or 2, every channel narrow, the clamp
 * all of int8 and padded rows of at most FG_DSP_DW_RING_COLUMNS columns: four channels at a time over the whole
 * image, each input row's group sign-extended once into a buffer on the stack (a ring of five rows, or a small image
 * whole), the nine taps read at fixed offsets. An output that overlaps the input other than a whole number of pixels
 * before it runs the portable kernel (pixel order). */
#define FG_DSP_DW_RING_COLUMNS 62
void fg_depthwise_conv2d_3x3_ring_dsp(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                      int8_t *output);
/* The same for stride_w 1 and padded rows (with what an even count of outputs reads past them) of at most
 * FG_DSP_DW_TAPS_COLUMNS: each channel's rows int16 of its own in the ring (on the M4 and M33 a small image's rows
 * all at once), a filter row's taps paired by SMLAD, six outputs of one channel per pass on the M4 and M33 (four
 * on the M7; a small image's row of 3, 5, 6 or 12 outputs; ops/variants/dsp_taps.py's table). */
#define FG_DSP_DW_TAPS_COLUMNS 64
void fg_depthwise_conv2d_3x3_taps_dsp(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                      int8_t *output);
/* The same for stride 2 both ways (depthwise_conv2d_3x3_taps_s2_dsp.c): a band of input rows sign-extended on the stack
 * (9 rows of FG_DSP_DW_TAPS_S2_WORDS words of the group's four channels: 4,608 bytes), each word two adjacent inputs
 * of one channel, a filter row's first two taps paired by SMLAD (6 multiplies an output), eight outputs of a channel
 * a pass; the taps kernel's table; out_w + 1 <= FG_DSP_DW_TAPS_S2_WORDS. */
#define FG_DSP_DW_TAPS_S2_WORDS 32
void fg_depthwise_conv2d_3x3_taps_s2_dsp(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                         int8_t *output);
/* The same with 4-bit weights (fg_depthwise_conv2d_s4's operands; ops/variants/dsp_ring_4bit.py's table): each group
 * of four channels' nibbles unpacked once per image; an overlapping output runs fg_depthwise_conv2d_3x3_planar_s4. */
void fg_depthwise_conv2d_3x3_ring_s4_dsp(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                         const int8_t *filter, int8_t *output);
/* Its ring run, the output channel-major (depthwise_conv2d_3x3_ring_dsp.c, beside the int8 kernel's). */
void fg_dsp_dw_ring_s4_run(const fg_depthwise_conv2d_params *params, const int8_t *input, int8_t *output);

/* fg_depthwise_conv2d_3x3_s8 for dilation 1, stride_w 1, stride_h 1 or 2 and padded rows of at most FG_DSP_DW_ROW_MAX
 * columns: channel by channel, the window's rows sign-extended into a ring of int16 rows on the stack
 * (5 * FG_DSP_DW_ROW_MAX * 2 bytes), two outputs per pass of SMLAD. An output that overlaps the input other than
 * a whole number of pixels before it runs the portable kernel (raster order). */
#define FG_DSP_DW_ROW_MAX 256
void fg_depthwise_conv2d_planar_dsp(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                    int8_t *output);

/* The deepest window (filter_h x padded row, or in_c for 1x1) the convolution variants take: three pixels' int16
 * pairs of it sit in a fixed array on the stack, so that its frame is known at compile time. */
#define FG_DSP_CONV_MAX_DEPTH 640
#define FG_DSP_CONV_MAX_PAIRS (((FG_DSP_CONV_MAX_DEPTH + 7) >> 3) << 2)

/* fg_depthwise_conv2d_s8 for in_c 1 (any filter, depth_multiplier, stride, dilation): the CONV_2D of
 * depth_multiplier filters it is, through fg_conv2d_folded_dsp (weights and bias from params). */
void fg_depthwise_conv2d_dsp(const fg_depthwise_conv2d_params *params, const int8_t *input, int8_t *output);

/* fg_fully_connected_folded_s8 for accum_depth <= FG_DSP_FC_MAX_DEPTH: the row sign-extended once, four outputs per
 * pass of SMLAD against weights pre-extended to int16 pairs at generation time; weights unused (NULL). */
#define FG_DSP_FC_MAX_DEPTH 2048
void fg_fully_connected_dsp(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                            int8_t *output);

/* fg_add_s8 without broadcasting (both inputs of the output's shape), left_shift <= 20, output_shift in [-31, 0]:
 * each input's 256 rescaled values tabulated once per call, the output stage with SMMULR. */
void fg_add_dsp(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);

/* fg_avg_pool2d_s8 for channels a multiple of 4 and windows of at most 255 elements: four channels per word,
 * SXTAB16 sums in int16 halves. Output pixels in raster order, as the portable kernel (the same overlap). */
void fg_avg_pool2d_dsp(const fg_pool2d_params *params, const int8_t *input, int8_t *output);

/* fg_conv2d_s4 (4-bit weights, windows of at most FG_CONV_GATHER_TAPS taps): the int8 variants' three-pixel tile on
 * weights unpacked a block of channel pairs at a time, reused by a block of pixels. */
void fg_conv2d_s4_dsp(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output);

/* fg_fully_connected_s4 (4-bit weights, accum_depth <= FG_DSP_FC_MAX_DEPTH): the row sign-extended once, four
 * outputs' weights a word, whose SMLAD as it is and masked three ways gives their four sums. */
void fg_fully_connected_s4_dsp(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                               int8_t *output);

#endif /* FG_VARIANTS_DSP_H */
