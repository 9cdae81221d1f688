#include "fg/depthwise_conv2d.h"

/* One output pixel whose 3x3 window lies inside the image: rows r0..r2 start at the window's first column. */
static void fg_dw3x3_interior(const fg_depthwise_conv2d_params *p, const int8_t *r0, int32_t row_step,
                              int32_t col_step, int8_t *output) {
    const int8_t *r1 = r0 + row_step, *r2 = r1 + row_step;
    const int8_t *w = p->channel_taps;
    const int32_t c2 = 2 * col_step;
    for (int32_t c = 0; c < p->in_c; ++c, w += 9) {
        const int32_t sum = w[0] * r0[0] + w[1] * r0[col_step] + w[2] * r0[c2]
                          + w[3] * r1[0] + w[4] * r1[col_step] + w[5] * r1[c2]
                          + w[6] * r2[0] + w[7] * r2[col_step] + w[8] * r2[c2];
        ++r0, ++r1, ++r2;
        output[c] = fg_requantize_channel_s8(&p->requant, fg_wrapped_i32((uint32_t)p->folded_bias[c] + (uint32_t)sum),
                                             c);
    }
}

/* One output pixel at the border: a tap in the padding reads the input zero point (its x + offset is 0). */
static void fg_dw3x3_border(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                            int8_t *output) {
    const int32_t channels = p->in_c;
    int32_t offsets[9];  /* of each tap's pixel in the image, -1 in the padding */
    for (int32_t t = 0; t < 9; ++t) {
        const int32_t y = y0 + (t / 3) * p->dilation_h, x = x0 + (t % 3) * p->dilation_w;
        offsets[t] = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w ? (y * p->in_w + x) * channels : -1;
    }
    const int32_t zero_point = -p->requant.input_offset;
    const int8_t *w = p->channel_taps;
    for (int32_t c = 0; c < channels; ++c, w += 9) {
        int32_t sum = 0;
        for (int32_t t = 0; t < 9; ++t) {
            sum += w[t] * (offsets[t] >= 0 ? image[offsets[t] + c] : zero_point);
        }
        output[c] = fg_requantize_channel_s8(&p->requant, fg_wrapped_i32((uint32_t)p->folded_bias[c] + (uint32_t)sum),
                                             c);
    }
}

void fg_depthwise_conv2d_3x3_s8(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->in_c;
    const int32_t row_step = p->dilation_h * p->in_w * channels, col_step = p->dilation_w * channels;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h;
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                if (rows_inside && x0 >= 0 && x0 + 2 * p->dilation_w < p->in_w) {
                    fg_dw3x3_interior(p, image + (y0 * p->in_w + x0) * channels, row_step, col_step, output);
                } else {
                    fg_dw3x3_border(p, image, y0, x0, output);
                }
                output += channels;
            }
        }
    }
}
