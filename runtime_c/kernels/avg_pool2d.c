#include "fg/pooling.h"

/* The rounded average (half away from zero) of a rows x cols window of one channel. */
static int32_t fg_window_average(const int8_t *first, int32_t rows, int32_t cols, int32_t row_stride,
                                 int32_t col_stride) {
    int32_t sum = 0;
    for (int32_t y = 0; y < rows; ++y) {
        for (int32_t x = 0; x < cols; ++x) {
            sum += first[y * row_stride + x * col_stride];
        }
    }
    const int32_t count = rows * cols;
    /* Generation rejects windows with no element in bounds; this only avoids a trap. */
    if (count <= 0) {
        return 0;
    }
    return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

void fg_avg_pool2d_s8(const fg_pool2d_params *p, const int8_t *input, int8_t *output) {
    fg_pool2d_walk_s8(p, input, output, fg_window_average);
}
