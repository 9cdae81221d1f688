#include "fg/pooling.h"

/* The rounded average of a rows x cols window of one channel. */
static int32_t fg_window_average_s8(const void *input, int32_t first, int32_t rows, int32_t cols,
                                    int32_t row_stride, int32_t col_stride) {
    const int8_t *corner = (const int8_t *)input + first;
    int32_t sum = 0;
    for (int32_t y = 0; y < rows; ++y) {
        for (int32_t x = 0; x < cols; ++x) {
            sum += corner[y * row_stride + x * col_stride];
        }
    }
    return fg_rounded_average(sum, rows * cols);
}

void fg_avg_pool2d_s8(const fg_pool2d_params *p, const int8_t *input, int8_t *output) {
    fg_pool2d_walk(p, input, output, 1, fg_window_average_s8);
}
