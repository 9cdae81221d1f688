#include "fg/dot_s16.h"
#include "fg/fully_connected.h"

void fg_fully_connected_s16(const fg_fully_connected_params *p, const int16_t *input, const int8_t *weights,
                            int16_t *output) {
    const fg_requant_params q = p->requant;
    const fg_wide_bias w = p->wide;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *row = input + b * p->accum_depth;
        for (int32_t oc = 0; oc < p->out_depth; ++oc) {
            const int64_t acc = fg_dot_s16_s8(row, weights + oc * p->accum_depth, p->accum_depth);
            *output++ = fg_requantize_channel_s16(&q, &w, acc, oc);
        }
    }
}
