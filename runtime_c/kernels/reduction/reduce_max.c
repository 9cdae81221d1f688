#include "fg/reduce_max.h"

#include "fg/support/fixedpoint.h"

void fg_reduce_max_s8(const fg_reduce_max_params *params, const int8_t *input, int8_t *output) {
    const int32_t flip = params->flip;
    int32_t outer_index[FG_MAX_RANK] = {0};
    int32_t inner_index[FG_MAX_RANK] = {0};
    int32_t base = 0;
    for (int32_t o = 0; o < params->num_outputs; ++o) {
        int32_t best = -128; /* TFLM's initial value, the int8 lowest (of the complements for REDUCE_MIN) */
        if (params->inner_rank == 1) { /* one strided run: no odometer */
            const int32_t stride = params->inner_strides[0];
            for (int32_t k = 0, offset = base; k < params->count; ++k, offset += stride) {
                best = fg_max_i32(best, input[offset] ^ flip);
            }
        } else {
            int32_t offset = base;
            for (int32_t k = 0; k < params->count; ++k) {
                best = fg_max_i32(best, input[offset] ^ flip);
                offset = fg_nd_advance(params->inner_rank, params->inner_shape, params->inner_strides, inner_index,
                                       offset);
            }
        }
        output[o] = (int8_t)(best ^ flip);
        base = fg_nd_advance(params->outer_rank, params->outer_shape, params->outer_strides, outer_index, base);
    }
}
