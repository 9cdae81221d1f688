/* MEAN of int8 over constant axes. Seen through coalesced strides, the input is an "outer" walk (the
 * kept dimensions, one output each, in output order) and an "inner" walk (the reduced dimensions). */
#ifndef FG_MEAN_H
#define FG_MEAN_H

#include <stdint.h>

#include "fg/nd_walk.h"

typedef struct {
    int32_t num_outputs;
    int32_t outer_rank;
    int32_t outer_shape[FG_MAX_RANK];
    int32_t outer_strides[FG_MAX_RANK];
    int32_t inner_rank;
    int32_t inner_shape[FG_MAX_RANK];
    int32_t inner_strides[FG_MAX_RANK];
    int32_t count;             /* elements summed into each output */
    int32_t zero_point_sum;    /* input zero point * count, wrapped to int32 */
    int32_t multiplier;        /* (input scale / output scale) / count, as TFLM folds it */
    int32_t shift;
    int32_t output_zero_point;
} fg_mean_params;

/* TFLM's QuantizedMeanOrSum: (sum - zero_point_sum) rescaled to the output. */
void fg_mean_s8(const fg_mean_params *params, const int8_t *input, int8_t *output);

#endif /* FG_MEAN_H */
