/* BATCH_MATMUL on int8 tensors (TFLite Micro reference semantics): output[b, m, n] = requantize(sum over k of
 * (lhs(b, m, k) + input_offset) * (rhs(b, k, n) + rhs_offset)), operands read in place through strides (adjoint
 * operands need no transposed copy), batch dimensions broadcast by zero strides. */
#ifndef FG_BATCH_MATMUL_H
#define FG_BATCH_MATMUL_H

#include <stdint.h>

#include "fg/support/requantize.h"

#define FG_MATMUL_BATCH_DIMS 3

typedef struct {
    int32_t batch_shape[FG_MATMUL_BATCH_DIMS];        /* the output's batch dimensions, 1s in front */
    int32_t lhs_batch_strides[FG_MATMUL_BATCH_DIMS];  /* in elements; 0 where lhs repeats */
    int32_t rhs_batch_strides[FG_MATMUL_BATCH_DIMS];
    int32_t rows, cols, depth;                        /* m, n, k */
    int32_t lhs_row_stride, lhs_depth_stride;         /* lhs(m, k) = lhs[m * row_stride + k * depth_stride] */
    int32_t rhs_depth_stride, rhs_col_stride;         /* rhs(k, n) = rhs[k * depth_stride + n * col_stride] */
    int32_t rhs_offset;                               /* minus the rhs zero point */
    fg_requant_params requant;                        /* input_offset: minus the lhs zero point; one multiplier */
} fg_batch_matmul_params;

void fg_batch_matmul_s8(const fg_batch_matmul_params *params, const int8_t *lhs, const int8_t *rhs, int8_t *output);

#endif /* FG_BATCH_MATMUL_H */
