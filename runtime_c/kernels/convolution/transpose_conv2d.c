#include "fg/transpose_conv2d.h"

#include "fg/support/hot_loop.h"

/* The accumulator of output (oy, ox, oc): sum over its taps of filter * (input + input_offset). */
FG_HOT_LOOP static int32_t fg_transpose_conv_sum(const fg_transpose_conv2d_params *p, const int8_t *image,
                                                 const int8_t *kernel, fg_tap_walk rows, fg_tap_walk cols) {
    int32_t acc = 0;
    for (int32_t ky = 0; ky < rows.count; ++ky) {
        const int32_t fy = rows.tap + ky * p->stride_h, y = rows.row - ky;
        for (int32_t kx = 0; kx < cols.count; ++kx) {
            const int32_t fx = cols.tap + kx * p->stride_w, x = cols.row - kx;
            const int8_t *pixel = image + (y * p->in_w + x) * p->in_c;
            const int8_t *taps = kernel + (fy * p->filter_w + fx) * p->in_c;
            for (int32_t ic = 0; ic < p->in_c; ++ic) {
                acc += (int32_t)taps[ic] * ((int32_t)pixel[ic] + p->requant.input_offset);
            }
        }
    }
    return acc;
}

FG_HOT_LOOP static void *fg_transpose_conv_s8_pixel(const fg_transpose_conv2d_params *p, const void *image,
                                                    const int8_t *filter, const int32_t *bias, fg_tap_walk rows,
                                                    fg_tap_walk cols, void *output) {
    const int32_t kernel_size = p->filter_h * p->filter_w * p->in_c;
    int8_t *out = (int8_t *)output;
    for (int32_t oc = 0; oc < p->out_c; ++oc) {
        int32_t acc = fg_transpose_conv_sum(p, (const int8_t *)image, filter + oc * kernel_size, rows, cols);
        if (bias) {
            acc += bias[oc];
        }
        *out++ = fg_requantize_channel_s8(&p->requant, acc, oc);
    }
    return out;
}

void fg_transpose_conv2d_s8(const fg_transpose_conv2d_params *p, const int8_t *input, const int8_t *filter,
                            const int32_t *bias, int8_t *output) {
    fg_transpose_conv2d_walk(p, input, 1, filter, bias, output, fg_transpose_conv_s8_pixel);
}
