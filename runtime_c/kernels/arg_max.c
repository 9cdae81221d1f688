#include "fg/arg_max.h"

void fg_arg_max_s8(const fg_arg_max_params *params, const int8_t *input, int32_t *output) {
    const int32_t flip = params->flip, inner = params->inner, axis_size = params->axis_size;
    for (int32_t o = 0; o < params->outer; ++o) {
        const int8_t *slab = input + o * axis_size * inner;
        for (int32_t i = 0; i < inner; ++i) {
            int32_t best = slab[i] ^ flip, best_index = 0;
            for (int32_t k = 1; k < axis_size; ++k) {
                const int32_t value = slab[k * inner + i] ^ flip;
                if (value > best) {
                    best = value;
                    best_index = k;
                }
            }
            *output++ = best_index;
        }
    }
}
