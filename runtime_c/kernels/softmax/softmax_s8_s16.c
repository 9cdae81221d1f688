/* SOFTMAX int8 -> int16 (output scale 1/65536, zero point -32768) with TFLite Micro's reference arithmetic
 * (fg/support/softmax_s8_row.h). */
#include "fg/softmax.h"

#include "fg/support/softmax_s8_row.h"

void fg_softmax_s8_s16(const fg_softmax_params *params, const int8_t *input, int16_t *output) {
    const int32_t depth = params->depth;
    for (int32_t r = 0; r < params->rows; ++r) {
        const int8_t *in = input + r * depth;
        int16_t *out = output + r * depth;
        const fg_softmax_s8_row row = fg_softmax_s8_row_sum(params, in, 16);
        for (int32_t c = 0; c < depth; ++c) {
            out[c] = fg_saturate_s16(fg_softmax_s8_probability(params, &row, in[c]) - 32768);
        }
    }
}
