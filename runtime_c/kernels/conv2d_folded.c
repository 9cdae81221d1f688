#include "fg/conv2d.h"
#include "fg/dot_s8.h"

/* Adds one window's taps to four output channels' accumulators, advancing rows[] through the filter. With the
 * input offset folded into the bias, a tap in the padding must add zero_point * tap (its x + offset is 0). */
static void fg_window_dot4(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                           const int8_t *rows[4], uint32_t acc[4]) {
    const int32_t in_c = p->in_c, zero_point = -p->requant.input_offset;
    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t y = y0 + fy * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            fg_sum4_s8(rows, p->filter_w * in_c, zero_point, acc);
            fg_advance4(rows, p->filter_w * in_c);
            continue;
        }
        for (int32_t fx = 0; fx < p->filter_w;) {
            const int32_t x = x0 + fx * p->dilation_w;
            if (x < 0 || x >= p->in_w) {
                fg_sum4_s8(rows, in_c, zero_point, acc);
                fg_advance4(rows, in_c);
                ++fx;
                continue;
            }
            /* Without dilation the in-bounds taps of a filter row are contiguous in the input too. */
            int32_t run = 1;
            if (p->dilation_w == 1) {
                run = p->filter_w - fx < p->in_w - x ? p->filter_w - fx : p->in_w - x;
            }
            fg_dot4_s8(image + (y * p->in_w + x) * in_c, rows, run * in_c, acc);
            fg_advance4(rows, run * in_c);
            fx += run;
        }
    }
}

void fg_conv2d_folded_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t taps = p->filter_h * p->filter_w * p->in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                for (int32_t oc = 0; oc < p->out_c; oc += 4) {
                    const int32_t group = p->out_c - oc < 4 ? p->out_c - oc : 4;
                    const int8_t *rows[4];
                    uint32_t acc[4];
                    for (int32_t j = 0; j < 4; ++j) {
                        const int32_t channel = oc + (j < group ? j : 0);  /* a short group repeats its first */
                        rows[j] = filter + channel * taps;
                        acc[j] = (uint32_t)p->folded_bias[channel];
                    }
                    fg_window_dot4(p, image, y0, x0, rows, acc);
                    fg_requantize_run_s8(&p->requant, acc, oc, group, output + oc);
                }
                output += p->out_c;
            }
        }
    }
}
