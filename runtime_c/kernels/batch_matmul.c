#include "fg/batch_matmul.h"

#include "fg/dot_s8.h" /* FG_HOT_LOOP */

/* One [rows x cols] output matrix. */
FG_HOT_LOOP static void fg_matmul_one_s8(const fg_batch_matmul_params *p, const int8_t *lhs, const int8_t *rhs,
                                         int8_t *output) {
    for (int32_t m = 0; m < p->rows; ++m) {
        const int8_t *lhs_row = lhs + m * p->lhs_row_stride;
        for (int32_t n = 0; n < p->cols; ++n) {
            const int8_t *rhs_col = rhs + n * p->rhs_col_stride;
            int32_t acc = 0;
            for (int32_t k = 0; k < p->depth; ++k) {
                acc += ((int32_t)lhs_row[k * p->lhs_depth_stride] + p->requant.input_offset)
                       * ((int32_t)rhs_col[k * p->rhs_depth_stride] + p->rhs_offset);
            }
            *output++ = fg_requantize_channel_s8(&p->requant, acc, 0);
        }
    }
}

void fg_batch_matmul_s8(const fg_batch_matmul_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *output) {
    const int32_t matrix = p->rows * p->cols;
    for (int32_t b0 = 0; b0 < p->batch_shape[0]; ++b0) {
        for (int32_t b1 = 0; b1 < p->batch_shape[1]; ++b1) {
            for (int32_t b2 = 0; b2 < p->batch_shape[2]; ++b2) {
                const int8_t *l = lhs + b0 * p->lhs_batch_strides[0] + b1 * p->lhs_batch_strides[1]
                                  + b2 * p->lhs_batch_strides[2];
                const int8_t *r = rhs + b0 * p->rhs_batch_strides[0] + b1 * p->rhs_batch_strides[1]
                                  + b2 * p->rhs_batch_strides[2];
                fg_matmul_one_s8(p, l, r, output);
                output += matrix;
            }
        }
    }
}
