#include "fg/pad.h"

#include <string.h>

/* n bytes of padding: the pad value's byte repeated, or its two bytes in turn (an int16 value). */
static void fill(const fg_pad_params *p, int8_t *output, int32_t n) {
    if (p->value_bytes == 1) {
        memset(output, (int8_t)p->pad_value, (size_t)n);
        return;
    }
    const int16_t value = (int16_t)p->pad_value;
    for (int32_t k = 0; k + 1 < n; k += 2) {
        memcpy(output + k, &value, sizeof value);
    }
}

static int outside(const fg_pad_params *p, int d, int32_t i) {
    return i < p->before[d] || i >= p->before[d] + p->input_shape[d];
}

void fg_pad_s8(const fg_pad_params *params, const int8_t *input, int8_t *output) {
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
                        fill(params, output, out_row);
                    } else {
                        fill(params, output, before);
                        memcpy(output + before, input, (size_t)row);
                        fill(params, output + before + row, after);
                        input += row;
                    }
                    output += out_row;
                }
            }
        }
    }
}
