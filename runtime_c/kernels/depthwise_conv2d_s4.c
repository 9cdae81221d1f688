#include "fg/depthwise_conv2d.h"
#include "fg/requantize.h"
#include "fg/weights_s4.h"

void fg_depthwise_conv2d_s4(const fg_depthwise_conv2d_params *p, const int8_t *input, const int8_t *filter,
                            int8_t *output) {
    const uint8_t *w = (const uint8_t *)p->packed;
    const int32_t in_c = p->in_c, out_c = in_c * p->depth_multiplier, zero_point = -p->requant.input_offset;
    uint32_t acc[FG_REQUANT_CHUNK];
    (void)filter;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                for (int32_t chunk = 0; chunk < out_c; chunk += FG_REQUANT_CHUNK) {
                    const int32_t count = out_c - chunk < FG_REQUANT_CHUNK ? out_c - chunk : FG_REQUANT_CHUNK;
                    for (int32_t k = 0; k < count; ++k) {
                        acc[k] = (uint32_t)p->folded_bias[chunk + k];
                    }
                    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
                        const int32_t y = y_origin + fy * p->dilation_h;
                        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
                            const int32_t x = x_origin + fx * p->dilation_w;
                            const int32_t start = (fy * p->filter_w + fx) * out_c + chunk;
                            if (y < 0 || y >= p->in_h || x < 0 || x >= p->in_w) {
                                fg_scaled_taps_s4(zero_point, w, start, count, acc);
                            } else {
                                fg_channel_taps_s4(image + (y * p->in_w + x) * in_c, p->depth_multiplier, chunk, w,
                                                   start, count, acc);
                            }
                        }
                    }
                    fg_requantize_run_s8(&p->requant, acc, chunk, count, output + chunk);
                }
            }
        }
    }
}
