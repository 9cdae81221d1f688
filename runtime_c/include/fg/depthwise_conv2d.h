/* DEPTHWISE_CONV_2D on int8 NHWC tensors (TFLite Micro reference semantics). */
#ifndef FG_DEPTHWISE_CONV2D_H
#define FG_DEPTHWISE_CONV2D_H

#include <stdint.h>

#include "fg/support/requantize.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w;
    int32_t depth_multiplier;   /* output channels = in_c * depth_multiplier */
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_top, pad_left;  /* implicit zero padding before the first row / column */
    fg_requant_params requant;
    /* The 3x3 variants only, computed at generation time: the filter as [channel][9 taps] (int8, and 16x8 with
     * constant weights and depth multiplier 1), and (int8) bias + input_offset * (sum of the channel's taps). */
    const int8_t *channel_taps;
    const int32_t *folded_bias;
    /* An ISA variant only (firmware_gen/ops/variants): its constants laid out at generation time for its inner
     * loop (weights reordered, per-layer constants), in the layout that variant documents. */
    const void *packed;
    /* The 16x8 kernels only (fg/support/requantize.h). */
    fg_wide_bias wide;
} fg_depthwise_conv2d_params;

/* 16x8: int16 NHWC input and output (zero point 0), int8 filter [1, filter_h, filter_w, out_c] (NULL with
 * params->channel_taps), the bias in params->wide. */
void fg_depthwise_conv2d_s16(const fg_depthwise_conv2d_params *params, const int16_t *input, const int8_t *filter,
                             int16_t *output);

/* 4-bit weights (fg/support/weights_s4.h): the filter [1, filter_h, filter_w, out_c] packed as TFLite packs it, read in place
 * from params->packed (filter is NULL), the bias from params->folded_bias; any geometry and depth multiplier. */
void fg_depthwise_conv2d_s4(const fg_depthwise_conv2d_params *params, const int8_t *input, const int8_t *filter,
                            int8_t *output);

/* filter is [1, filter_h, filter_w, in_c * depth_multiplier]: output channel c * depth_multiplier + m reads
 * input channel c. bias is [in_c * depth_multiplier] or NULL. Taps in the padding are skipped. */
void fg_depthwise_conv2d_s8(const fg_depthwise_conv2d_params *params, const int8_t *input, const int8_t *filter,
                            const int32_t *bias, int8_t *output);

/* Bit-exact with fg_depthwise_conv2d_s8 for a 3x3 filter and depth_multiplier 1 (any stride and dilation); filter
 * and bias come from params. Windows inside the image run without bounds checks, four output pixels side by side
 * per pass when they are one column apart (stride = dilation; each weight in a register for all four, each input
 * row loaded once), else two (each weight loaded once for both); the pixels after the first are stored after the
 * pass's last input is read; a
 * border window is copied to the stack, the input zero point where a tap lies in the padding. Output pixels in
 * raster order, as the reference. */
void fg_depthwise_conv2d_3x3_s8(const fg_depthwise_conv2d_params *params, const int8_t *input, int8_t *output);

/* Bit-exact with fg_depthwise_conv2d_3x3_s8 for dilation 1 and stride_h, stride_w each 1 or 2 (the Armv7-M variant,
 * firmware_gen/ops/variants/armv7m.py): channel by channel, in bands of output rows whose input rows are copied into
 * a plane of int8 rows FG_DW_PLANAR_PITCH apart on the stack (~1.6 KB with the band's sums), each channel's nine
 * weights in registers over the band, two windows per pass. The generator checks that a padded input row and every
 * window of an output row (whole pairs) fit in FG_DW_PLANAR_PITCH columns. An output that overlaps the input other
 * than a whole number of pixels before it runs in raster order. */
#define FG_DW_PLANAR_PITCH 64
void fg_depthwise_conv2d_3x3_planar_s8(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                       int8_t *output);
/* The same for 4-bit weights (replacing fg_depthwise_conv2d_s4 for 3x3 filters of depth multiplier 1): the filter
 * as [channel][9 taps] in TFLite's nibble packing in params->packed, each channel's nine taps unpacked once. */
void fg_depthwise_conv2d_3x3_planar_s4(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                       const int8_t *filter, int8_t *output);

/* Whether a depthwise kernel may write its output channel by channel: the output does not overlap the input, or it
 * lies a whole number of pixels before it (each output byte then lands on an input byte of its own channel that the
 * planner's allowance says no later output of that channel reads). The variants that test it declare one input pixel
 * as their overlap granule (ops/variants, overlap_granule): the planner keeps to it where that costs no pool bytes. */
static inline int fg_depthwise_channel_major(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                             const int8_t *output) {
    const uintptr_t in = (uintptr_t)input, out = (uintptr_t)output;
    const uintptr_t in_bytes = (uintptr_t)(p->batches * p->in_h * p->in_w * p->in_c);
    const uintptr_t out_bytes = (uintptr_t)(p->batches * p->out_h * p->out_w * p->in_c);
    return out + out_bytes <= in || in + in_bytes <= out || (out <= in && (in - out) % (uintptr_t)p->in_c == 0);
}

#endif /* FG_DEPTHWISE_CONV2D_H */
