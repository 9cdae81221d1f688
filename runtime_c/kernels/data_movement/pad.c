#include "fg/pad.h"

#include <string.h>

static int outside(const fg_pad_params *p, int d, int32_t i) {
    return i < p->before[d] || i >= p->before[d] + p->input_shape[d];
}

void fg_pad_s8(const fg_pad_params *params, const int8_t *input, int8_t *output) {
    const int8_t value = (int8_t)params->pad_value;
    int32_t out_shape[FG_PAD_RANK];
    for (int d = 0; d < FG_PAD_RANK; ++d) {
        out_shape[d] = params->before[d] + params->input_shape[d] + params->after[d];
    }
    const int32_t row = params->input_shape[FG_PAD_RANK - 1];
    const int32_t before = params->before[FG_PAD_RANK - 1];
    const int32_t after = params->after[FG_PAD_RANK - 1];
    const int32_t out_row = out_shape[FG_PAD_RANK - 1];
    for (int32_t i0 = 0; i0 < out_shape[0]; ++i0) {
        for (int32_t i1 = 0; i1 < out_shape[1]; ++i1) {
            for (int32_t i2 = 0; i2 < out_shape[2]; ++i2) {
                for (int32_t i3 = 0; i3 < out_shape[3]; ++i3) {
                    if (outside(params, 0, i0) || outside(params, 1, i1) || outside(params, 2, i2) ||
                        outside(params, 3, i3)) {
                        memset(output, value, (size_t)out_row);
                    } else {
                        memset(output, value, (size_t)before);
                        memcpy(output + before, input, (size_t)row);
                        memset(output + before + row, value, (size_t)after);
                        input += row;
                    }
                    output += out_row;
                }
            }
        }
    }
}
