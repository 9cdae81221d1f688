#define FG_PIN_SUMS 1  /* fg/support/dot_s8.h */
#include "fg/support/fused_group.h"

/* floor (a constant): the constants are fg_floor_channel's (fg_conv2d_pointwise_fused_floor_s8). */
static inline __attribute__((always_inline)) void fg_pointwise_fused(const fg_conv2d_params *p, const int8_t *input,
                                                                     int8_t *output, int floor) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, depth = p->in_c, out_c = p->out_c;
    const int32_t call_taps = p->blocked.call_taps, offset = p->requant.output_offset;
    const int32_t *const weights = p->blocked.paired;
    const fg_fused_channel *const constants = (const fg_fused_channel *)p->packed;
    /* the groups whose taps take one call and whose eight outputs are all stored */
    const int32_t whole = call_taps >= depth ? out_c / FG_PAIRED_CHANNELS : 0;
    /* Output pixel i is stored group by group while input pixel i is read: the planner lets it overlap only the
     * inputs below pixel i (ops/overlap.py). */
    for (int32_t i = 0; i < pixels; ++i, input += depth) {
        const int32_t *w = weights;
        const fg_fused_channel *c = constants;
        fg_fused_groups(input, input + depth, whole, &w, &c, offset, &output, 1, floor);
        for (int32_t oc = whole * FG_PAIRED_CHANNELS; oc < out_c; oc += FG_PAIRED_CHANNELS, c += FG_PAIRED_CHANNELS) {
            const int32_t count = out_c - oc < FG_PAIRED_CHANNELS ? out_c - oc : FG_PAIRED_CHANNELS;
            fg_fused_window_group(&input, 1, depth, 1, call_taps, &w, c, offset, count, output, floor);
            output += count;
        }
    }
}

FG_HOT_LOOP void fg_conv2d_pointwise_fused_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                              int8_t *output) {
    (void)filter;
    fg_pointwise_fused(p, input, output, 0);
}

FG_HOT_LOOP void fg_conv2d_pointwise_fused_floor_s8(const fg_conv2d_params *p, const int8_t *input,
                                                    const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_pointwise_fused(p, input, output, 1);
}
