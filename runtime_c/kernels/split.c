#include "fg/split.h"

#include <string.h>

void fg_split_s8(const fg_split_params *params, const int8_t *input, int8_t *const outputs[]) {
    for (int32_t o = 0; o < params->outer; ++o) {
        const int8_t *row = input + (size_t)o * (size_t)params->input_row;
        for (int32_t k = 0; k < params->num_outputs; ++k) {
            const int32_t size = params->chunk_sizes[k];
            memcpy(outputs[k] + (size_t)o * (size_t)size, row, (size_t)size);
            row += size;
        }
    }
}
