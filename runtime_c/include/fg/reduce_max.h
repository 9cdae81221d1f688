/* REDUCE_MAX and REDUCE_MIN of int8 over constant axes, walked as MEAN walks them (fg/mean.h). TFLM requires the
 * input and output quantization to be equal, so the raw extreme is the answer. */
#ifndef FG_REDUCE_MAX_H
#define FG_REDUCE_MAX_H

#include <stdint.h>

#include "fg/support/nd_walk.h"

typedef struct {
    int32_t num_outputs;
    int32_t outer_rank;
    int32_t outer_shape[FG_MAX_RANK];
    int32_t outer_strides[FG_MAX_RANK];
    int32_t inner_rank;
    int32_t inner_shape[FG_MAX_RANK];
    int32_t inner_strides[FG_MAX_RANK];
    int32_t count; /* elements reduced into each output */
    int32_t flip;  /* 0: REDUCE_MAX; -1: REDUCE_MIN, the maximum of the bitwise complements */
} fg_reduce_max_params;

void fg_reduce_max_s8(const fg_reduce_max_params *params, const int8_t *input, int8_t *output);

#endif /* FG_REDUCE_MAX_H */
