#include "fg/pooling.h"
#include "fg/support/hot_loop.h"

/* The rounded average of a rows x cols window of one channel: eight columns a pass, the rows as one when they follow
 * each other (a window as wide as the image). */
FG_HOT_LOOP static int32_t fg_window_average_s8(const void *input, int32_t first, int32_t rows, int32_t cols,
                                                int32_t row_stride, int32_t col_stride) {
    const int32_t count = rows * cols;
    if (row_stride == cols * col_stride) {
        cols = count;
        rows = 1;
    }
    const int8_t *row = (const int8_t *)input + first;
    int32_t sum = 0;
    for (int32_t y = 0; y < rows; ++y, row += row_stride) {
        const int8_t *x = row;
        int32_t left = cols;
        for (; left >= 8; left -= 8, x += 8 * col_stride) {
            const int8_t *const half = x + 4 * col_stride;
            sum += x[0] + x[col_stride] + x[2 * col_stride] + x[3 * col_stride] + half[0] + half[col_stride] +
                   half[2 * col_stride] + half[3 * col_stride];
        }
        for (; left > 0; --left, x += col_stride) {
            sum += *x;
        }
    }
    return fg_rounded_average(sum, count);
}

void fg_avg_pool2d_s8(const fg_pool2d_params *p, const int8_t *input, int8_t *output) {
    fg_pool2d_walk(p, input, output, 1, fg_window_average_s8);
}
