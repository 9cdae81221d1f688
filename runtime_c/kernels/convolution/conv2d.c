#include "fg/conv2d.h"
#include "fg/support/requantize.h"

void fg_conv2d_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, const int32_t *bias,
                  int8_t *output) {
    const int32_t in_c = p->in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                for (int32_t oc = 0; oc < p->out_c; ++oc) {
                    const int8_t *kernel = filter + oc * p->filter_h * p->filter_w * in_c;
                    int32_t acc = 0;
                    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
                        const int32_t y = y_origin + fy * p->dilation_h;
                        if (y < 0 || y >= p->in_h) {
                            continue;
                        }
                        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
                            const int32_t x = x_origin + fx * p->dilation_w;
                            if (x < 0 || x >= p->in_w) {
                                continue;
                            }
                            const int8_t *pixel = image + (y * p->in_w + x) * in_c;
                            const int8_t *taps = kernel + (fy * p->filter_w + fx) * in_c;
                            for (int32_t ic = 0; ic < in_c; ++ic) {
                                acc += (int32_t)taps[ic] * ((int32_t)pixel[ic] + p->requant.input_offset);
                            }
                        }
                    }
                    if (bias) {
                        acc += bias[oc];
                    }
                    *output++ = fg_requantize_channel_s8(&p->requant, acc, oc);
                }
            }
        }
    }
}
