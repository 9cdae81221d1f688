#include "fg/conv2d.h"
#include "fg/dot_s16.h"

/* The window of one output pixel, output channels [oc, oc + 4): each in-bounds filter row is one run of taps when
 * the columns are contiguous (dilation_w 1), else one run per column. */
static void fg_conv2d_s16_group(const fg_conv2d_params *p, const int16_t *image, const int8_t *kernel,
                                int32_t y_origin, int32_t x_origin, const int32_t span[4], int64_t acc[4]) {
    const int32_t in_c = p->in_c;
    const int32_t row_taps = p->filter_w * in_c;
    const int32_t channel_taps = p->filter_h * row_taps;
    const int32_t columns = p->dilation_w == 1 ? 1 : span[3] - span[2];
    const int32_t run = p->dilation_w == 1 ? (span[3] - span[2]) * in_c : in_c;
    for (int32_t fy = span[0]; fy < span[1]; ++fy) {
        const int16_t *line = image + (y_origin + fy * p->dilation_h) * p->in_w * in_c;
        for (int32_t k = 0, fx = span[2]; k < columns; ++k, ++fx) {
            fg_dot4_s16_s8(line + (x_origin + fx * p->dilation_w) * in_c, kernel + fy * row_taps + fx * in_c,
                           channel_taps, run, acc);
        }
    }
}

/* The same for one output channel (the last out_c % 4). */
static int64_t fg_conv2d_s16_channel(const fg_conv2d_params *p, const int16_t *image, const int8_t *kernel,
                                     int32_t y_origin, int32_t x_origin, const int32_t span[4]) {
    const int32_t in_c = p->in_c;
    int64_t acc = 0;
    for (int32_t fy = span[0]; fy < span[1]; ++fy) {
        const int16_t *line = image + (y_origin + fy * p->dilation_h) * p->in_w * in_c;
        for (int32_t fx = span[2]; fx < span[3]; ++fx) {
            acc += fg_dot_s16_s8(line + (x_origin + fx * p->dilation_w) * in_c, kernel + (fy * p->filter_w + fx) * in_c,
                                 in_c);
        }
    }
    return acc;
}

void fg_conv2d_s16(const fg_conv2d_params *p, const int16_t *input, const int8_t *filter, int16_t *output) {
    const fg_requant_params q = p->requant;
    const fg_wide_bias w = p->wide;
    const int32_t in_c = p->in_c;
    const int32_t channel_taps = p->filter_h * p->filter_w * in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            int32_t span[4];  /* in-bounds filter rows [span[0], span[1]) and columns [span[2], span[3]) */
            fg_window_inside(y_origin, p->filter_h, p->dilation_h, p->in_h, &span[0], &span[1]);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                fg_window_inside(x_origin, p->filter_w, p->dilation_w, p->in_w, &span[2], &span[3]);
                int32_t oc = 0;
                for (; oc + 4 <= p->out_c; oc += 4) {
                    int64_t acc[4] = {0, 0, 0, 0};
                    fg_conv2d_s16_group(p, image, filter + oc * channel_taps, y_origin, x_origin, span, acc);
                    for (int32_t k = 0; k < 4; ++k) {
                        *output++ = fg_requantize_channel_s16(&q, &w, acc[k], oc + k);
                    }
                }
                for (; oc < p->out_c; ++oc) {
                    const int64_t acc = fg_conv2d_s16_channel(p, image, filter + oc * channel_taps, y_origin,
                                                              x_origin, span);
                    *output++ = fg_requantize_channel_s16(&q, &w, acc, oc);
                }
            }
        }
    }
}
