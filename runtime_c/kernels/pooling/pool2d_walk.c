#include "fg/support/fixedpoint.h"
#include "fg/pooling.h"

void fg_pool2d_walk(const fg_pool2d_params *p, const void *input, void *output, int32_t element_bytes,
                    fg_pool2d_reduce reduce) {
    const int32_t channels = p->channels;
    int32_t out = 0;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int32_t image = b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            int32_t y0, y1;
            fg_pool_window_1d(oy, p->stride_h, p->pad_top, p->filter_h, p->in_h, &y0, &y1);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                int32_t x0, x1;
                fg_pool_window_1d(ox, p->stride_w, p->pad_left, p->filter_w, p->in_w, &x0, &x1);
                const int32_t corner = image + (y0 * p->in_w + x0) * channels;
                for (int32_t c = 0; c < channels; ++c, ++out) {
                    const int32_t value = fg_clamp_i32(
                        reduce(input, corner + c, y1 - y0, x1 - x0, p->in_w * channels, channels),
                        p->activation_min, p->activation_max);
                    if (element_bytes == 2) {
                        ((int16_t *)output)[out] = (int16_t)value;
                    } else {
                        ((int8_t *)output)[out] = (int8_t)value;
                    }
                }
            }
        }
    }
}
