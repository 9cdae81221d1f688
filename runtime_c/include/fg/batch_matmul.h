/* BATCH_MATMUL on int8 or int16 tensors (TFLite Micro reference semantics): output[b, m, n] = requantize(sum over k of
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
/* int16 operands and output, zero points 0, the products summed in int64 (TFLM's BatchMatMul<int16_t, int64_t>). */
void fg_batch_matmul_s16(const fg_batch_matmul_params *params, const int16_t *lhs, const int16_t *rhs,
                         int16_t *output);

static inline int32_t fg_matmul_batch_count(const fg_batch_matmul_params *p) {
    return p->batch_shape[0] * p->batch_shape[1] * p->batch_shape[2];
}

/* The element offsets of output matrix `batch`'s operands (batches in row-major order of batch_shape). */
static inline void fg_matmul_batch_offsets(const fg_batch_matmul_params *p, int32_t batch, int32_t *lhs,
                                           int32_t *rhs) {
    *lhs = 0;
    *rhs = 0;
    for (int32_t d = FG_MATMUL_BATCH_DIMS - 1; d >= 0; --d) {
        const int32_t index = batch % p->batch_shape[d];
        batch /= p->batch_shape[d];
        *lhs += index * p->lhs_batch_strides[d];
        *rhs += index * p->rhs_batch_strides[d];
    }
}

#endif /* FG_BATCH_MATMUL_H */
