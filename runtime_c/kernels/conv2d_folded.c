#include <string.h>

#include "fg/conv2d.h"
#include "fg/dot_s8.h"

/* The filter rows of output pixel `pixel`'s window: pointers into the image where a row lies inside it (and the
 * filter is not dilated along x), else the row gathered into `buffer` with the zero point in the padding. Returns 1
 * when every row points into the image. */
static int fg_window_rows(const fg_conv2d_params *p, const int8_t *input, int32_t pixel, int8_t *buffer,
                          const int8_t *rows[]) {
    const int32_t in_c = p->in_c, run = p->blocked.run;
    const int32_t ox = pixel % p->out_w, oy = pixel / p->out_w % p->out_h, b = pixel / p->out_w / p->out_h;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    const int8_t *image = input + b * p->in_h * p->in_w * in_c;
    const int columns_inside = p->dilation_w == 1 && x0 >= 0 && x0 + p->filter_w <= p->in_w;
    int direct = 1;
    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t y = y0 + fy * p->dilation_h;
        const int row_inside = y >= 0 && y < p->in_h;
        if (row_inside && columns_inside) {
            rows[fy] = image + (y * p->in_w + x0) * in_c;
            continue;
        }
        int8_t *row = buffer + fy * run;
        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
            const int32_t x = x0 + fx * p->dilation_w;
            if (row_inside && x >= 0 && x < p->in_w) {
                memcpy(row + fx * in_c, image + (y * p->in_w + x) * in_c, (size_t)in_c);
            } else {
                memset(row + fx * in_c, -p->requant.input_offset, (size_t)in_c);
            }
        }
        rows[fy] = row;
        direct = 0;
    }
    return direct;
}

void fg_conv2d_folded_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, out_c = p->out_c;
    const int32_t row_step = p->dilation_h * p->in_w * p->in_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[2][FG_CONV_GATHER_TAPS];
    const int8_t *rows0[FG_CONV_MAX_ROWS], *rows1[FG_CONV_MAX_ROWS];
    (void)filter;
    for (int32_t i = 0; i < pixels; i += 2) {
        /* an odd last pixel (or every pixel, past FG_PAIR_MAX_OUT channels) is computed twice */
        const int pair = i + 1 < pixels && out_c <= FG_PAIR_MAX_OUT;
        const int direct = fg_window_rows(p, input, i, gathered[0], rows0)
                         & fg_window_rows(p, input, pair ? i + 1 : i, gathered[1], rows1);
        fg_blocked_pair_s8(&p->blocked, rows0, rows1, direct ? row_step : 0, out_c, p->folded_bias, &requant,
                           output + i * out_c, pair ? output + (i + 1) * out_c : NULL);
        i -= !pair;
    }
}

void fg_depthwise_conv2d_one_channel_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                        int8_t *output) {
    fg_conv2d_folded_s8(p, input, filter, output);
}
