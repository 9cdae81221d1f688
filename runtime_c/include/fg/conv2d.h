/* CONV_2D on int8 NHWC tensors with int8 OHWI filters (TFLite Micro reference semantics). */
#ifndef FG_CONV2D_H
#define FG_CONV2D_H

#include <stdint.h>

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_top, pad_left;  /* implicit zero padding before the first row / column */
    int32_t input_offset;       /* minus the input zero point */
    int32_t output_offset;      /* the output zero point */
    int32_t activation_min, activation_max;
    int32_t per_channel;        /* 1: one multiplier and shift per output channel; 0: a single entry */
    const int32_t *multipliers;
    const int32_t *shifts;
} fg_conv2d_params;

/* filter is [out_c, filter_h, filter_w, in_c]; bias is [out_c] or NULL. Taps in the padding are skipped. */
void fg_conv2d_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, const int32_t *bias,
                  int8_t *output);

#endif /* FG_CONV2D_H */
