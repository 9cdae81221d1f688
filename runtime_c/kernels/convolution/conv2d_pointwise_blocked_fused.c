#include <string.h>

#include "fg/support/blocked_run.h"
#include "fg/support/fused_group.h"

/* The two outputs of one channel: its low field (less the 2^21 each sum starts at) for pixel 0, its high field for
 * pixel 1, through the fast output stage with the constants derived from the channel's multiplier and shift. */
static inline void fg_blocked_fused_put(int64_t sum, uint32_t bias, int32_t multiplier, int32_t shift,
                                        int32_t offset, int8_t *out0, int8_t *out1) {
    const fg_fast_channel fast = fg_fast_channel_right(multiplier, shift);  /* the lowering's shifts: [-31, -2] */
    *out0 = fg_fast_output(fg_low_field(sum) + bias - FG_LOW_START, &fast, offset);
    *out1 = fg_fast_output(fg_high_field(sum) + bias, &fast, offset);
}

FG_HOT_LOOP void fg_conv2d_pointwise_blocked_fused_s8(const fg_conv2d_params *p, const int8_t *input,
                                                      const int8_t *filter, int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const int32_t offset = p->requant.output_offset, step = p->requant.per_channel ? 1 : 0;
    int8_t later[FG_PAIR_MAX_OUT];  /* pixel 1's outputs until pixel 0's last input is read */
    (void)filter;
    for (int32_t i = 0; i < pixels; i += 2) {
        const int8_t *const x0 = input + i * in_c;
        const int8_t *const x1 = i + 1 < pixels ? x0 + in_c : x0;  /* an odd last pixel is computed twice */
        const int8_t *w = p->blocked.weights;
        const int32_t *multiplier = p->requant.multipliers, *bias = p->folded_bias;
        const int8_t *shift = (const int8_t *)p->packed;  /* the shifts as int8 (requant.shifts is NULL) */
        int8_t *out0 = output + i * out_c, *out1 = later;
        for (int32_t oc = 0; oc < out_c; oc += FG_BLOCK_CHANNELS) {
            int64_t s[FG_BLOCK_CHANNELS] = {FG_LOW_START, FG_LOW_START, FG_LOW_START, FG_LOW_START};
            fg_blocked_run(x0, x1, in_c, &w, s);
#pragma GCC unroll 4
            for (int j = 0; j < FG_BLOCK_CHANNELS; ++j, multiplier += step, shift += step) {
                fg_blocked_fused_put(s[j], (uint32_t)*bias++, *multiplier, *shift, offset, out0++, out1++);
            }
        }
        if (i + 1 < pixels) {
            memcpy(out0, later, (size_t)out_c);
        }
    }
}
