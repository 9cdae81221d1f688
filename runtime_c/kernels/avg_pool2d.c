#include "fg/fixedpoint.h"
#include "fg/pooling.h"

void fg_avg_pool2d_s8(const fg_pool2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->channels;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (int32_t)b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            int32_t y0, y1;
            fg_pool_window_1d(oy, p->stride_h, p->pad_top, p->filter_h, p->in_h, &y0, &y1);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                int32_t x0, x1;
                fg_pool_window_1d(ox, p->stride_w, p->pad_left, p->filter_w, p->in_w, &x0, &x1);
                const int32_t count = (y1 - y0) * (x1 - x0);
                for (int32_t c = 0; c < channels; ++c) {
                    int32_t sum = 0;
                    for (int32_t y = y0; y < y1; ++y) {
                        const int8_t *row = image + (y * p->in_w) * channels + c;
                        for (int32_t x = x0; x < x1; ++x) {
                            sum += row[x * channels];
                        }
                    }
                    /* Generation rejects windows with no element in bounds; this only avoids a trap. */
                    int32_t average = 0;
                    if (count > 0) {
                        average = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
                    }
                    *output++ = (int8_t)fg_clamp_i32(average, p->activation_min, p->activation_max);
                }
            }
        }
    }
}
