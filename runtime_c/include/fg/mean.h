/* MEAN (and SUM) of int8 or int16 over constant axes. Seen through coalesced strides, the input is an "outer" walk (the
 * kept dimensions, one output each, in output order) and an "inner" walk (the reduced dimensions). */
#ifndef FG_MEAN_H
#define FG_MEAN_H

#include <stddef.h>
#include <stdint.h>

#include "fg/support/fixedpoint.h"
#include "fg/support/nd_walk.h"

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

/* Element `offset` of an int8 (element_size 1) or int16 (2) buffer. */
static inline int32_t fg_mean_load(const void *input, int32_t offset, size_t element_size) {
    return element_size == 1 ? ((const int8_t *)input)[offset] : ((const int16_t *)input)[offset];
}

/* TFLM's QuantizedMeanOrSum on int8 or int16 elements: (sum - zero_point_sum) rescaled to the output and saturated
 * to the element type. Each kernel calls it with a constant element_size, so the type tests fold away. */
static inline void fg_mean_reduce(const fg_mean_params *params, const void *input, void *output,
                                  size_t element_size) {
    int32_t outer_index[FG_MAX_RANK] = {0};
    int32_t inner_index[FG_MAX_RANK] = {0};
    int32_t base = 0;
    for (int32_t o = 0; o < params->num_outputs; ++o) {
        uint32_t sum = 0; /* wraps like TFLM's int32 accumulator, without signed overflow */
        if (params->inner_rank == 1) { /* one strided run: no odometer */
            const int32_t stride = params->inner_strides[0];
            for (int32_t k = 0, offset = base; k < params->count; ++k, offset += stride) {
                sum += (uint32_t)fg_mean_load(input, offset, element_size);
            }
        } else {
            int32_t offset = base;
            for (int32_t k = 0; k < params->count; ++k) {
                sum += (uint32_t)fg_mean_load(input, offset, element_size);
                offset = fg_nd_advance(params->inner_rank, params->inner_shape, params->inner_strides, inner_index,
                                       offset);
            }
        }
        const int32_t shifted = (int32_t)(sum - (uint32_t)params->zero_point_sum);
        const int32_t value =
            fg_multiply_by_quantized_multiplier(shifted, params->multiplier, params->shift) + params->output_zero_point;
        if (element_size == 1) {
            ((int8_t *)output)[o] = fg_saturate_s8(value);
        } else {
            ((int16_t *)output)[o] = fg_saturate_s16(value);
        }
        base = fg_nd_advance(params->outer_rank, params->outer_shape, params->outer_strides, outer_index, base);
    }
}

void fg_mean_s8(const fg_mean_params *params, const int8_t *input, int8_t *output);
void fg_mean_s16(const fg_mean_params *params, const int16_t *input, int16_t *output);

#endif /* FG_MEAN_H */
