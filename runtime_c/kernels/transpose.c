#include "fg/transpose.h"

#include <string.h>

void fg_transpose_s8(const fg_transpose_params *params, const int8_t *input, int8_t *output) {
    int32_t index[FG_MAX_RANK] = {0};
    int32_t offset = params->offset;
    for (int32_t r = 0; r < params->rows; ++r) {
        if (params->row == 1) {
            *output = input[offset];
        } else {
            memcpy(output, input + offset, (size_t)params->row);
        }
        output += params->row;
        offset = fg_nd_advance(params->rank, params->shape, params->strides, index, offset);
    }
}
