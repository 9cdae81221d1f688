#include "fg/resize.h"

void fg_resize_nearest_s8(const fg_resize_params *p, const int8_t *input, int8_t *output) {
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->depth;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int8_t *row = image + p->rows[oy] * p->in_w * p->depth;
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int8_t *pixel = row + p->cols[ox] * p->depth;
                for (int32_t c = 0; c < p->depth; ++c) {
                    *output++ = pixel[c];
                }
            }
        }
    }
}
