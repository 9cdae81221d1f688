#include "fg/support/fixedpoint.h"
#include "fg/pooling.h"

/* The largest value of a rows x cols window of one channel. */
static int32_t fg_window_max_s16(const void *input, int32_t first, int32_t rows, int32_t cols, int32_t row_stride,
                                 int32_t col_stride) {
    const int16_t *corner = (const int16_t *)input + first;
    int32_t max = -32768;
    for (int32_t y = 0; y < rows; ++y) {
        for (int32_t x = 0; x < cols; ++x) {
            max = fg_max_i32(max, corner[y * row_stride + x * col_stride]);
        }
    }
    return max;
}

void fg_max_pool2d_s16(const fg_pool2d_params *p, const int16_t *input, int16_t *output) {
    fg_pool2d_walk(p, input, output, 2, fg_window_max_s16);
}
