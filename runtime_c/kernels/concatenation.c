#include "fg/concatenation.h"

#include <string.h>

void fg_concatenation_s8(const fg_concatenation_params *params, const int8_t *const inputs[], int8_t *output) {
    const int32_t num_inputs = params->num_inputs, outer = params->outer;
    const int32_t *const row_sizes = params->row_sizes;
    for (int32_t o = 0; o < outer; ++o) {
        for (int32_t i = 0; i < num_inputs; ++i) {
            const int32_t size = row_sizes[i];
            memcpy(output, inputs[i] + (size_t)o * (size_t)size, (size_t)size);
            output += size;
        }
    }
}
