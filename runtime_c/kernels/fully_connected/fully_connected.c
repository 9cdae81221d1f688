#include "fg/fully_connected.h"
#include "fg/support/requantize.h"

void fg_fully_connected_s8(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                           const int32_t *bias, int8_t *output) {
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *row = input + b * p->accum_depth;
        for (int32_t oc = 0; oc < p->out_depth; ++oc) {
            const int8_t *column = weights + oc * p->accum_depth;
            int32_t acc = 0;
            for (int32_t d = 0; d < p->accum_depth; ++d) {
                acc += (int32_t)column[d] * ((int32_t)row[d] + p->requant.input_offset);
            }
            if (bias) {
                acc += bias[oc];
            }
            *output++ = fg_requantize_channel_s8(&p->requant, acc, oc);
        }
    }
}
