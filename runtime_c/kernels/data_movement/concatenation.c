#include "fg/concatenation.h"

#include <stddef.h>
#include <string.h>

/* Every input contributing the same run of `bytes` bytes (1, 2 or 4: PACK along the innermost axis) to each output
 * row: input by input, one load and store per row, where a memcpy call per row would cost several times the bytes. */
static inline __attribute__((always_inline)) void interleave(const fg_concatenation_params *params,
                                                             const int8_t *const inputs[], int8_t *output,
                                                             size_t bytes) {
    const size_t stride = (size_t)params->num_inputs * bytes;
    for (int32_t i = 0; i < params->num_inputs; ++i) {
        const int8_t *from = inputs[i];
        int8_t *to = output + (size_t)i * bytes;
        for (int32_t o = 0; o < params->outer; ++o, from += bytes, to += stride) {
            memcpy(to, from, bytes);
        }
    }
}

/* The row size every input shares, or 0. */
static int32_t common_row_size(const fg_concatenation_params *params) {
    const int32_t size = params->row_sizes[0];
    for (int32_t i = 1; i < params->num_inputs; ++i) {
        if (params->row_sizes[i] != size) {
            return 0;
        }
    }
    return size;
}

void fg_concatenation_s8(const fg_concatenation_params *params, const int8_t *const inputs[], int8_t *output) {
    const int32_t num_inputs = params->num_inputs, outer = params->outer;
    const int32_t *const row_sizes = params->row_sizes;
    switch (num_inputs > 0 ? common_row_size(params) : 0) {
    case 1:
        interleave(params, inputs, output, 1);
        return;
    case 2:
        interleave(params, inputs, output, 2);
        return;
    case 4:
        interleave(params, inputs, output, 4);
        return;
    default:
        break;
    }
    for (int32_t o = 0; o < outer; ++o) {
        for (int32_t i = 0; i < num_inputs; ++i) {
            const int32_t size = row_sizes[i];
            memcpy(output, inputs[i] + (size_t)o * (size_t)size, (size_t)size);
            output += size;
        }
    }
}
