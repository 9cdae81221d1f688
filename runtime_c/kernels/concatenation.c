#include "fg/concatenation.h"

#include <string.h>

void fg_concatenation_s8(const fg_concatenation_params *params, const int8_t *const inputs[], int8_t *output) {
    for (int32_t o = 0; o < params->outer; ++o) {
        for (int32_t i = 0; i < params->num_inputs; ++i) {
            const int32_t size = params->row_sizes[i];
            memcpy(output, inputs[i] + (size_t)o * (size_t)size, (size_t)size);
            output += size;
        }
    }
}
