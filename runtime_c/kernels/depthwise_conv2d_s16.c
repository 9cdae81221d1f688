#include "fg/depthwise_conv2d.h"
#include "fg/dot_s16.h"

void fg_depthwise_conv2d_s16(const fg_depthwise_conv2d_params *p, const int16_t *input, const int8_t *filter,
                             int16_t *output) {
    const fg_requant_params q = p->requant;
    const fg_wide_bias w = p->wide;
    const int32_t in_c = p->in_c;
    const int32_t out_c = in_c * p->depth_multiplier;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            int32_t fy_first, fy_end;
            fg_window_inside(y_origin, p->filter_h, p->dilation_h, p->in_h, &fy_first, &fy_end);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                int32_t fx_first, fx_end;
                fg_window_inside(x_origin, p->filter_w, p->dilation_w, p->in_w, &fx_first, &fx_end);
                for (int32_t oc = 0; oc < out_c; ++oc) {
                    const int16_t *channel = image + oc / p->depth_multiplier;
                    int64_t acc = 0;
                    for (int32_t fy = fy_first; fy < fy_end; ++fy) {
                        const int32_t y = y_origin + fy * p->dilation_h;
                        for (int32_t fx = fx_first; fx < fx_end; ++fx) {
                            const int32_t x = x_origin + fx * p->dilation_w;
                            const int32_t tap = filter[(fy * p->filter_w + fx) * out_c + oc];
                            acc += tap * channel[(y * p->in_w + x) * in_c];
                        }
                    }
                    *output++ = fg_requantize_channel_s16(&q, &w, acc, oc);
                }
            }
        }
    }
}
