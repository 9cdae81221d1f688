#include "fg/batch_matmul.h"

#include "fg/support/requantize.h"

/* One output matrix, any strides: TFLM's order of products (along the depth), summed in int64 without wrapping. */
static void fg_matmul_matrix_s16(const fg_batch_matmul_params *p, const int16_t *lhs, const int16_t *rhs,
                                 int16_t *output) {
    const fg_wide_bias no_bias = {0, 0};
    const int32_t lhs_step = p->lhs_depth_stride, rhs_step = p->rhs_depth_stride;
    for (int32_t m = 0; m < p->rows; ++m) {
        const int16_t *lhs_row = lhs + m * p->lhs_row_stride;
        for (int32_t n = 0; n < p->cols; ++n) {
            const int16_t *l = lhs_row, *r = rhs + n * p->rhs_col_stride;
            int64_t acc = 0;
            for (int32_t k = 0; k < p->depth; ++k, l += lhs_step, r += rhs_step) {
                acc += (int32_t)*l * (int32_t)*r;
            }
            *output++ = fg_requantize_channel_s16(&p->requant, &no_bias, acc, 0);
        }
    }
}

void fg_batch_matmul_s16(const fg_batch_matmul_params *p, const int16_t *lhs, const int16_t *rhs, int16_t *output) {
    const int32_t matrix = p->rows * p->cols;
    for (int32_t batch = 0; batch < fg_matmul_batch_count(p); ++batch) {
        int32_t lhs_offset, rhs_offset;
        fg_matmul_batch_offsets(p, batch, &lhs_offset, &rhs_offset);
        fg_matmul_matrix_s16(p, lhs + lhs_offset, rhs + rhs_offset, output);
        output += matrix;
    }
}
