/* The window of a convolution's output pixel as one run of taps, and the loops over the windows of a convolution or
 * the rows of a fully-connected layer, for the kernels that compute a window's outputs in one call (the Armv6-M
 * variants, the Armv7-M and DSP 4-bit ones). */
#ifndef FG_WINDOW_RUN_H
#define FG_WINDOW_RUN_H

#include <string.h>

#include "fg/conv2d.h"
#include "fg/fully_connected.h"

/* output[c] = requantized(bias[c] + the dot product of the `taps` inputs at x and channel c's weights in packed),
 * c < out_c. */
typedef void fg_window_fn(const int8_t *x, int32_t taps, const void *packed, int32_t out_c, const int32_t *bias,
                          const fg_requant_params *q, int8_t *output);

/* The window of output pixel (oy, ox) as one run of filter_h * filter_w * in_c taps: a pointer into the image when it
 * is one row inside it, else copied into `buffer` with the zero point in the padding. No division: Armv6-M has none,
 * and GCC's __aeabi_idiv would cost more than the copy. */
static inline const int8_t *fg_conv_window_run(const fg_conv2d_params *p, const int8_t *image, int32_t oy,
                                               int32_t ox, int8_t *buffer) {
    const int32_t in_c = p->in_c, fw = p->filter_w, run = fw * in_c;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    const int columns_inside = p->dilation_w == 1 && x0 >= 0 && x0 + fw <= p->in_w;
    if (p->filter_h == 1 && columns_inside && y0 >= 0 && y0 < p->in_h) {
        return image + (y0 * p->in_w + x0) * in_c;
    }
    for (int32_t fy = 0; fy < p->filter_h; ++fy, buffer += run) {
        const int32_t y = y0 + fy * p->dilation_h;
        const int row_inside = y >= 0 && y < p->in_h;
        if (row_inside && columns_inside) {
            memcpy(buffer, image + (y * p->in_w + x0) * in_c, (size_t)run);
            continue;
        }
        for (int32_t fx = 0; fx < fw; ++fx) {
            const int32_t x = x0 + fx * p->dilation_w;
            if (row_inside && x >= 0 && x < p->in_w) {
                memcpy(buffer + fx * in_c, image + (y * p->in_w + x) * in_c, (size_t)in_c);
            } else {
                memset(buffer + fx * in_c, -p->requant.input_offset, (size_t)in_c);
            }
        }
    }
    return buffer - p->filter_h * run;
}

/* Every output pixel of a convolution, one at a time: its window's outputs stored after it is read (the forward overlap
 * of firmware_gen/ops/overlap.py). */
static inline __attribute__((always_inline)) void fg_conv_windows(const fg_conv2d_params *p, const int8_t *input,
                                                                  int8_t *output, fg_window_fn *window) {
    const int32_t out_c = p->out_c, taps = p->filter_h * p->filter_w * p->in_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[FG_CONV_GATHER_TAPS] __attribute__((aligned(4))); /* summed a word at a time */
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                const int8_t *x = fg_conv_window_run(p, image, oy, ox, gathered);
                window(x, taps, p->packed, out_c, p->folded_bias, &requant, output);
            }
        }
    }
}

/* Every batch row of a fully-connected layer. */
static inline __attribute__((always_inline)) void fg_fully_connected_rows(const fg_fully_connected_params *p,
                                                                          const int8_t *input, int8_t *output,
                                                                          fg_window_fn *window) {
    const int32_t depth = p->accum_depth, out_depth = p->out_depth;
    const fg_requant_params requant = p->requant;
    for (int32_t b = 0; b < p->batches; ++b) {
        window(input + b * depth, depth, p->packed, out_depth, p->folded_bias, &requant, output + b * out_depth);
    }
}

#endif /* FG_WINDOW_RUN_H */
