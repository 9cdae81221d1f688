#include "fg/mean.h"

#include "fg/fixedpoint.h"

void fg_mean_s8(const fg_mean_params *params, const int8_t *input, int8_t *output) {
    int32_t outer_index[FG_MAX_RANK] = {0};
    int32_t inner_index[FG_MAX_RANK] = {0};
    int32_t base = 0;
    for (int32_t o = 0; o < params->num_outputs; ++o) {
        uint32_t sum = 0; /* wraps like TFLM's int32 accumulator, without signed overflow */
        if (params->inner_rank == 1) { /* one strided run: no odometer */
            const int32_t stride = params->inner_strides[0];
            for (int32_t k = 0, offset = base; k < params->count; ++k, offset += stride) {
                sum += (uint32_t)(int32_t)input[offset];
            }
        } else {
            int32_t offset = base;
            for (int32_t k = 0; k < params->count; ++k) {
                sum += (uint32_t)(int32_t)input[offset];
                offset = fg_nd_advance(params->inner_rank, params->inner_shape, params->inner_strides, inner_index,
                                       offset);
            }
        }
        const int32_t shifted = (int32_t)(sum - (uint32_t)params->zero_point_sum);
        const int32_t value =
            fg_multiply_by_quantized_multiplier(shifted, params->multiplier, params->shift) + params->output_zero_point;
        output[o] = fg_saturate_s8(value);
        base = fg_nd_advance(params->outer_rank, params->outer_shape, params->outer_strides, outer_index, base);
    }
}
