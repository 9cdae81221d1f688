#include "fg/resize.h"

#include "fg/support/hot_loop.h"

#define FG_RESIZE_ONE (1 << 10)

/* TFLM's rounding of a 20-bit fixed-point sum: to nearest, halves away from zero (C division truncates). TFLM sums
 * in int64; the generator checks that |sum| + 2^19 fits an int32 for this layer's weights (ops/data_movement/resize.py). */
static int8_t fg_round_20(int32_t sum) {
    const int32_t half = sum > 0 ? (1 << 19) : -(1 << 19);
    return (int8_t)((sum + half) / (1 << 20));
}

FG_HOT_LOOP void fg_resize_bilinear_s8(const fg_resize_params *p, const int8_t *input, int8_t *output) {
    const int32_t row_bytes = p->in_w * p->depth;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * row_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t *ty = p->rows + 3 * oy;
            const int8_t *top = image + ty[0] * row_bytes, *bottom = image + ty[1] * row_bytes;
            const int32_t wy1 = ty[2], wy0 = FG_RESIZE_ONE - ty[2];
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t *tx = p->cols + 3 * ox;
                const int32_t left = tx[0] * p->depth, right = tx[1] * p->depth;
                const int32_t wx1 = tx[2], wx0 = FG_RESIZE_ONE - tx[2];
                for (int32_t c = 0; c < p->depth; ++c) {
                    const int32_t sum = top[left + c] * wy0 * wx0 + bottom[left + c] * wy1 * wx0
                                        + top[right + c] * wy0 * wx1 + bottom[right + c] * wy1 * wx1;
                    *output++ = fg_round_20(sum);
                }
            }
        }
    }
}
