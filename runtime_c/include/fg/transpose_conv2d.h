/* TRANSPOSE_CONV on NHWC tensors with int8 OHWI filters (TFLite Micro reference semantics), computed by gathering:
 * each output value sums its (input, tap) pairs in a register, so no scratch accumulator is needed. int8 activations
 * (fg_transpose_conv2d_s8) or int16 ones (16x8, fg_transpose_conv2d_s16); both walk the taps with fg_tap_walk_of. */
#ifndef FG_TRANSPOSE_CONV2D_H
#define FG_TRANSPOSE_CONV2D_H

#include <stdint.h>

#include "fg/support/requantize.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_top, pad_left;  /* input pixel (y, x) tap (fy, fx) lands on output (y * stride_h - pad_top + fy, ...) */
    fg_requant_params requant;
    /* The 16x8 kernel only (fg/support/requantize.h). */
    fg_wide_bias wide;
} fg_transpose_conv2d_params;

/* The taps of one output row (or column) that land on it from inside the input: tap `tap` + k * stride paired with
 * input row `row` - k, for k < count (count <= 0: none). */
typedef struct {
    int32_t tap, row, count;
} fg_tap_walk;

/* Output o receives tap (o + pad) mod stride from input row (o + pad) / stride, then every stride-th tap from the row
 * before; the walk keeps those with tap < taps and 0 <= row < size. */
static inline fg_tap_walk fg_tap_walk_of(int32_t out, int32_t pad, int32_t taps, int32_t stride, int32_t size) {
    const int32_t first_tap = (out + pad) % stride, first_row = (out + pad) / stride;
    const int32_t skipped = first_row >= size ? first_row - size + 1 : 0;  /* rows past the input's end */
    const int32_t within_filter = (taps - first_tap + stride - 1) / stride;
    const int32_t end = within_filter < first_row + 1 ? within_filter : first_row + 1;
    const fg_tap_walk walk = {first_tap + skipped * stride, first_row - skipped, end - skipped};
    return walk;
}

/* Computes every output channel of one output pixel, whose taps `rows` and `cols` walk, from `image` (its batch's
 * input) into output; returns the output past them. */
typedef void *(*fg_transpose_conv_pixel)(const fg_transpose_conv2d_params *p, const void *image, const int8_t *filter,
                                         const int32_t *bias, fg_tap_walk rows, fg_tap_walk cols, void *output);

/* The output-pixel walk both kernels share (raster order, channels innermost, written by `pixel`); input elements of
 * element_bytes bytes. */
void fg_transpose_conv2d_walk(const fg_transpose_conv2d_params *p, const void *input, int32_t element_bytes,
                              const int8_t *filter, const int32_t *bias, void *output, fg_transpose_conv_pixel pixel);

/* filter is [out_c, filter_h, filter_w, in_c]; bias is [out_c] or NULL. Output pixels are stored in raster order,
 * each after every input byte it reads has been read. */
void fg_transpose_conv2d_s8(const fg_transpose_conv2d_params *params, const int8_t *input, const int8_t *filter,
                            const int32_t *bias, int8_t *output);

/* 16x8: int16 input and output (zero point 0), int8 filter as above, the bias in params->wide. Stored in the same
 * order. */
void fg_transpose_conv2d_s16(const fg_transpose_conv2d_params *params, const int16_t *input, const int8_t *filter,
                             int16_t *output);

#endif /* FG_TRANSPOSE_CONV2D_H */
