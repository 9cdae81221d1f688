/* A strided gather of int8 data: output[i0..in] = input[offset + sum(i_d * strides[d])], written in order.
 * TRANSPOSE (permuted strides), SLICE and STRIDED_SLICE (an offset, steps), REVERSE_V2 (negative strides)
 * and BROADCAST_TO (zero strides) all lower to it, with unit dimensions dropped and dimensions that stay
 * adjacent merged at generation time. */
#ifndef FG_TRANSPOSE_H
#define FG_TRANSPOSE_H

#include <stdint.h>

#include "fg/support/nd_walk.h"

typedef struct {
    int32_t rank;                    /* dimensions walked, row length excluded */
    int32_t shape[FG_MAX_RANK];      /* output shape of the walked dimensions */
    int32_t strides[FG_MAX_RANK];    /* input stride of each walked output dimension, in elements */
    int32_t row;                     /* elements contiguous in both input and output, copied at once */
    int32_t rows;                    /* product of shape[0..rank) */
    int32_t offset;                  /* input element of output element 0 */
} fg_transpose_params;

void fg_transpose_s8(const fg_transpose_params *params, const int8_t *input, int8_t *output);

/* int16 tensors (16x8 models): fg_transpose_s8 on their bytes, params counted in bytes (ops/data_movement/transpose.py). */
void fg_transpose_s16(const fg_transpose_params *params, const int16_t *input, int16_t *output);

#endif /* FG_TRANSPOSE_H */
