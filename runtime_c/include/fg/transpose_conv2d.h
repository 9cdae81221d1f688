/* TRANSPOSE_CONV on int8 NHWC tensors with int8 OHWI filters (TFLite Micro reference semantics), computed by
 * gathering: each output value sums its (input, tap) pairs in a register, so no scratch accumulator is needed. */
#ifndef FG_TRANSPOSE_CONV2D_H
#define FG_TRANSPOSE_CONV2D_H

#include <stdint.h>

#include "fg/requantize.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_top, pad_left;  /* input pixel (y, x) tap (fy, fx) lands on output (y * stride_h - pad_top + fy, ...) */
    fg_requant_params requant;
} fg_transpose_conv2d_params;

/* filter is [out_c, filter_h, filter_w, in_c]; bias is [out_c] or NULL. Output pixels are stored in raster order,
 * each after every input byte it reads has been read. */
void fg_transpose_conv2d_s8(const fg_transpose_conv2d_params *params, const int8_t *input, const int8_t *filter,
                            const int32_t *bias, int8_t *output);

#endif /* FG_TRANSPOSE_CONV2D_H */
