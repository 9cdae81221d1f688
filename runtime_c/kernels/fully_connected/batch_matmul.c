#include "fg/batch_matmul.h"

#include <stdbool.h>

#include "fg/support/dot_s8.h" /* fg_dot4_s8, FG_HOT_LOOP */

/* Up to this many output columns, the contiguous path keeps one sum per right-hand column on the stack. */
#define FG_MATMUL_MAX_SUMMED_COLS 256
/* A right-hand matrix read as [k, n] (no adj_y) of up to this many bytes is first transposed to [n, k] on the stack
 * (as TFLM's Eval transposes it into a scratch tensor), so that it too takes the contiguous path. */
#define FG_MATMUL_TRANSPOSE_MAX_BYTES 1024
/* Up to this depth, a left-hand row strided along the depth (adj_x) is gathered into a contiguous copy per row, so
 * that it too takes the contiguous path (128: attention heads' depths, at 128 bytes more of stack). */
#define FG_MATMUL_MAX_GATHERED_DEPTH 128

/* One [rows x cols] output matrix, any strides. */
FG_HOT_LOOP static void fg_matmul_one_s8(const fg_batch_matmul_params *p, const int8_t *lhs, const int8_t *rhs,
                                         int8_t *output) {
    const int32_t lhs_offset = p->requant.input_offset, rhs_offset = p->rhs_offset, depth = p->depth;
    const int32_t lhs_step = p->lhs_depth_stride, rhs_step = p->rhs_depth_stride;
    for (int32_t m = 0; m < p->rows; ++m) {
        const int8_t *lhs_row = lhs + m * p->lhs_row_stride;
        for (int32_t n = 0; n < p->cols; ++n) {
            const int8_t *l = lhs_row, *r = rhs + n * p->rhs_col_stride;
            int32_t acc = 0;
            for (int32_t k = 0; k < depth; ++k, l += lhs_step, r += rhs_step) {
                acc += ((int32_t)*l + lhs_offset) * ((int32_t)*r + rhs_offset);
            }
            *output++ = fg_requantize_channel_s8(&p->requant, acc, 0);
        }
    }
}

static int32_t sum_s8(const int8_t *x, int32_t n) {
    int32_t sum = 0;
    for (int32_t i = 0; i < n; ++i) {
        sum += x[i];
    }
    return sum;
}

/* Both operands contiguous along the depth (rhs read as [n, k]: adj_y, or a column-major right-hand side; a strided
 * left-hand row is gathered first): the plain products four columns per fg_dot4_s8 pass, the zero points applied
 * after, as
 * sum (l + a)(r + b) = sum l r + b sum l + a sum r + K a b, in uint32 (TFLM's int32 sum, wrapping alike). */
static void fg_matmul_contiguous_s8(const fg_batch_matmul_params *p, const int8_t *lhs, const int8_t *rhs,
                                    int32_t rhs_col_stride, int8_t *output) {
    const int32_t cols = p->cols, depth = p->depth;
    const uint32_t a = (uint32_t)p->requant.input_offset, b = (uint32_t)p->rhs_offset;
    uint32_t col_terms[FG_MATMUL_MAX_SUMMED_COLS];
    int8_t gathered[FG_MATMUL_MAX_GATHERED_DEPTH];
    for (int32_t n = 0; n < cols; ++n) {
        col_terms[n] = a * (uint32_t)sum_s8(rhs + n * rhs_col_stride, depth) + (uint32_t)depth * a * b;
    }
    for (int32_t m = 0; m < p->rows; ++m) {
        const int8_t *x = lhs + m * p->lhs_row_stride;
        if (p->lhs_depth_stride != 1) {
            for (int32_t k = 0; k < depth; ++k) {
                gathered[k] = x[k * p->lhs_depth_stride];
            }
            x = gathered;
        }
        const uint32_t row_term = b * (uint32_t)sum_s8(x, depth);
        for (int32_t n = 0; n < cols; n += 4) {
            const int8_t *w[4];
            uint32_t acc[4] = {0, 0, 0, 0};
            for (int32_t j = 0; j < 4; ++j) { /* past the last column, repeat it (its results are not stored) */
                w[j] = rhs + (n + j < cols ? n + j : cols - 1) * rhs_col_stride;
            }
            fg_dot4_s8(x, w, depth, acc);
            for (int32_t j = 0; j < 4 && n + j < cols; ++j) {
                const uint32_t total = acc[j] + row_term + col_terms[n + j];
                *output++ = fg_requantize_channel_s8(&p->requant, fg_wrapped_i32(total), 0);
            }
        }
    }
}

/* One output matrix: the contiguous path when the left-hand side is contiguous along the depth or its rows fit the
 * gathering buffer, and the right-hand one is contiguous too or fits the transposition buffer; else the strided one. */
static void fg_matmul_matrix_s8(const fg_batch_matmul_params *p, const int8_t *lhs, const int8_t *rhs,
                                int8_t *output) {
    const bool lhs_gatherable = p->lhs_depth_stride == 1 || p->depth <= FG_MATMUL_MAX_GATHERED_DEPTH;
    if (!lhs_gatherable || p->cols > FG_MATMUL_MAX_SUMMED_COLS) {
        fg_matmul_one_s8(p, lhs, rhs, output);
    } else if (p->rhs_depth_stride == 1) {
        fg_matmul_contiguous_s8(p, lhs, rhs, p->rhs_col_stride, output);
    } else if (p->depth * p->cols <= FG_MATMUL_TRANSPOSE_MAX_BYTES) {
        int8_t rhs_nk[FG_MATMUL_TRANSPOSE_MAX_BYTES];
        for (int32_t n = 0; n < p->cols; ++n) {
            for (int32_t k = 0; k < p->depth; ++k) {
                rhs_nk[n * p->depth + k] = rhs[k * p->rhs_depth_stride + n * p->rhs_col_stride];
            }
        }
        fg_matmul_contiguous_s8(p, lhs, rhs_nk, p->depth, output);
    } else {
        fg_matmul_one_s8(p, lhs, rhs, output);
    }
}

void fg_batch_matmul_s8(const fg_batch_matmul_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *output) {
    const int32_t matrix = p->rows * p->cols;
    for (int32_t batch = 0; batch < fg_matmul_batch_count(p); ++batch) {
        int32_t lhs_offset, rhs_offset;
        fg_matmul_batch_offsets(p, batch, &lhs_offset, &rhs_offset);
        fg_matmul_matrix_s8(p, lhs + lhs_offset, rhs + rhs_offset, output);
        output += matrix;
    }
}
