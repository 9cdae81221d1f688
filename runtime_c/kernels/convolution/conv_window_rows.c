#include "fg/conv2d.h"
#include "fg/support/row_copy.h"

int fg_conv_window_rows(const fg_conv2d_params *p, const int8_t *input, int32_t pixel, int8_t *buffer,
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
                fg_copy_row(row + fx * in_c, image + (y * p->in_w + x) * in_c, in_c);
            } else {
                fg_fill_row(row + fx * in_c, (int8_t)-p->requant.input_offset, in_c);
            }
        }
        rows[fy] = row;
        direct = 0;
    }
    return direct;
}
