/* Shared inner loops of the 16x8 kernels (int16 activations, int8 weights): int64 sums of int16 x int8 products, and
 * the part of a window dimension that lies inside the input. */
#ifndef FG_DOT_S16_H
#define FG_DOT_S16_H

#include <stdint.h>

#include "fg/support/fixedpoint.h"

/* sum(a[i] * b[i], i < n); each product fits 23 bits, so partial sums of up to 256 products stay in int32 (one
 * multiply-accumulate each) and are widened once per block. */
static inline int64_t fg_dot_s16_s8(const int16_t *a, const int8_t *b, int32_t n) {
    int64_t sum = 0;
    while (n > 0) {
        const int32_t block = n < 256 ? n : 256;
        int32_t partial = 0;
        for (int32_t i = 0; i < block; ++i) {
            partial += (int32_t)a[i] * b[i];
        }
        sum += partial;
        a += block;
        b += block;
        n -= block;
    }
    return sum;
}

/* acc[k] += sum(x[i] * w[k * stride + i], i < n), k < 4: four output channels share each input load (int32 partial
 * sums over runs of up to 256 products, widened once per run). A function of its own (runtime_c/kernels/support/dot4_s16.c):
 * inlined into the kernels' loops it ran out of registers. */
void fg_dot4_s16_s8(const int16_t *x, const int8_t *w, int32_t stride, int32_t n, int64_t acc[4]);

/* Output channels per group of the interleaved 16x8 weight layout (fg_dot8_s16_s8). */
#define FG_S16_GROUP 8

/* sums[k] += sum(x[r * x_step + i] * w[r * w_step + i * 8 + k], r < runs, i < n), k < 8, runs and n >= 1: the
 * weights of eight output channels interleaved at generation time (ops/convolution/weighted_16x8.py), so that one pointer walks
 * them (2.5 instructions per MAC on Armv7-M); runs are e.g. the rows of a window. The sums are int32: the caller adds
 * at most 256 products (23 bits each) to them between two fg_widen_s16 calls. */
void fg_dot8_s16_s8_runs(const int16_t *x, int32_t x_step, const int8_t *w, int32_t w_step, int32_t runs, int32_t n,
                         int32_t sums[8]);

/* acc[k] += sums[k], then sums[k] = 0, k < count. */
static inline void fg_widen_s16(int32_t *sums, int64_t *acc, int32_t count) {
    for (int32_t k = 0; k < count; ++k) {
        acc[k] += sums[k];
        sums[k] = 0;
    }
}

/* acc[k] += sum(x[i] * w[i * 8 + k], i < n), k < 8, any n: runs of at most 256 products, widened after each. */
static inline void fg_dot8_s16_s8(const int16_t *x, const int8_t *w, int32_t n, int64_t acc[8]) {
    int32_t sums[FG_S16_GROUP] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (; n > 0; n -= 256, x += 256, w += 256 * FG_S16_GROUP) {
        fg_dot8_s16_s8_runs(x, 0, w, 0, 1, n < 256 ? n : 256, sums);
        fg_widen_s16(sums, acc, FG_S16_GROUP);
    }
}

/* The taps [*first, *end) of a window dimension, `taps` taps `dilation` apart from `origin` (negative in the padding),
 * that fall inside an input of `size`: TFLite skips the others (zero padding). */
static inline void fg_window_inside(int32_t origin, int32_t taps, int32_t dilation, int32_t size, int32_t *first,
                                    int32_t *end) {
    const int32_t last = size - 1 - origin;
    *first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;
    *end = last < 0 ? 0 : fg_min_i32(taps, last / dilation + 1);
}

/* The geometry of a windowed 16x8 kernel (CONV_2D, DEPTHWISE_CONV_2D), as their params structs hold it. */
typedef struct {
    int32_t batches, in_h, in_w, in_c, out_h, out_w;
    int32_t filter_h, filter_w, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
} fg_window_geometry_s16;

/* One output pixel's window: its batch's image, its origin (negative in the padding) and the in-bounds filter rows
 * [span[0], span[1]) and columns [span[2], span[3]). */
typedef struct {
    const int16_t *image;
    int32_t y_origin, x_origin;
    int32_t span[4];
} fg_window_s16;

/* Computes every output channel of one pixel from its window into output; returns the output past them. */
typedef int16_t *(*fg_window_pixel_s16)(const void *params, const int8_t *filter, const fg_window_s16 *window,
                                        int16_t *output);

/* The output-pixel walk the windowed 16x8 kernels share (raster order, channels innermost, written by `pixel`). */
void fg_window_walk_s16(const fg_window_geometry_s16 *g, const void *params, const int16_t *input,
                        const int8_t *filter, int16_t *output, fg_window_pixel_s16 pixel);

#endif /* FG_DOT_S16_H */
