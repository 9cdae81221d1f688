#include "fg/support/dot_s16.h"
#include "fg/fully_connected.h"

void fg_fully_connected_s16(const fg_fully_connected_params *p, const int16_t *input, const int8_t *weights,
                            int16_t *output) {
    const fg_requant_params *q = &p->requant;  /* int16 stores cannot alias them */
    const fg_wide_bias *w = &p->wide;
    const int32_t depth = p->accum_depth;
    const int32_t grouped = p->interleaved ? p->out_depth - p->out_depth % FG_S16_GROUP : 0;
    const int8_t *rest = p->interleaved ? p->interleaved + grouped * depth : weights;  /* from `grouped` on */
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *row = input + b * depth;
        int32_t oc = 0;
        for (; oc < grouped; oc += FG_S16_GROUP) {
            int64_t acc[FG_S16_GROUP] = {0, 0, 0, 0, 0, 0, 0, 0};
            fg_dot8_s16_s8(row, p->interleaved + oc * depth, depth, acc);
            output = fg_requantize_block_s16(q, w, acc, oc, FG_S16_GROUP, output);
        }
        for (; oc + 4 <= p->out_depth; oc += 4) {
            int64_t acc[4] = {0, 0, 0, 0};
            fg_dot4_s16_s8(row, rest + (oc - grouped) * depth, depth, depth, acc);
            output = fg_requantize_block_s16(q, w, acc, oc, 4, output);
        }
        for (; oc < p->out_depth; ++oc) {
            *output++ = fg_requantize_channel_s16(q, w, fg_dot_s16_s8(row, rest + (oc - grouped) * depth, depth), oc);
        }
    }
}
