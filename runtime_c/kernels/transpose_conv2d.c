#include "fg/transpose_conv2d.h"

#include "fg/dot_s8.h" /* FG_HOT_LOOP */

/* The taps of one output row (or column) o: tap t = (o + pad) mod stride, then every stride-th one, paired with input
 * row (o + pad - t) / stride, which decreases by one per tap. first_tap and first_row describe the first of them. */
typedef struct {
    int32_t first_tap, first_row;
} fg_tap_walk;

static fg_tap_walk fg_tap_walk_of(int32_t out, int32_t pad, int32_t stride) {
    const fg_tap_walk walk = {(out + pad) % stride, (out + pad) / stride};
    return walk;
}

/* The accumulator of output (oy, ox, oc): sum over its taps of filter * (input + input_offset). */
FG_HOT_LOOP static int32_t fg_transpose_conv_sum(const fg_transpose_conv2d_params *p, const int8_t *image,
                                                 const int8_t *kernel, fg_tap_walk rows, fg_tap_walk cols) {
    int32_t acc = 0;
    for (int32_t fy = rows.first_tap, y = rows.first_row; fy < p->filter_h && y >= 0; fy += p->stride_h, --y) {
        if (y >= p->in_h) {
            continue;
        }
        for (int32_t fx = cols.first_tap, x = cols.first_row; fx < p->filter_w && x >= 0; fx += p->stride_w, --x) {
            if (x >= p->in_w) {
                continue;
            }
            const int8_t *pixel = image + (y * p->in_w + x) * p->in_c;
            const int8_t *taps = kernel + (fy * p->filter_w + fx) * p->in_c;
            for (int32_t ic = 0; ic < p->in_c; ++ic) {
                acc += (int32_t)taps[ic] * ((int32_t)pixel[ic] + p->requant.input_offset);
            }
        }
    }
    return acc;
}

FG_HOT_LOOP void fg_transpose_conv2d_s8(const fg_transpose_conv2d_params *p, const int8_t *input,
                                        const int8_t *filter, const int32_t *bias, int8_t *output) {
    const int32_t kernel_size = p->filter_h * p->filter_w * p->in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const fg_tap_walk rows = fg_tap_walk_of(oy, p->pad_top, p->stride_h);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const fg_tap_walk cols = fg_tap_walk_of(ox, p->pad_left, p->stride_w);
                for (int32_t oc = 0; oc < p->out_c; ++oc) {
                    int32_t acc = fg_transpose_conv_sum(p, image, filter + oc * kernel_size, rows, cols);
                    if (bias) {
                        acc += bias[oc];
                    }
                    *output++ = fg_requantize_channel_s8(&p->requant, acc, oc);
                }
            }
        }
    }
}
