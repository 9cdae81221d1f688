#include "fg/transpose_conv2d.h"

void fg_transpose_conv2d_walk(const fg_transpose_conv2d_params *p, const void *input, int32_t element_bytes,
                              const int8_t *filter, const int32_t *bias, void *output, fg_transpose_conv_pixel pixel) {
    const int32_t image_bytes = p->in_h * p->in_w * p->in_c * element_bytes;
    for (int32_t b = 0; b < p->batches; ++b) {
        const void *image = (const uint8_t *)input + b * image_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const fg_tap_walk rows = fg_tap_walk_of(oy, p->pad_top, p->filter_h, p->stride_h, p->in_h);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const fg_tap_walk cols = fg_tap_walk_of(ox, p->pad_left, p->filter_w, p->stride_w, p->in_w);
                output = pixel(p, image, filter, bias, rows, cols, output);
            }
        }
    }
}
