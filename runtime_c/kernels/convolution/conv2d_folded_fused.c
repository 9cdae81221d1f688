#include "fg/support/fused_group.h"

FG_HOT_LOOP void fg_conv2d_folded_fused_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                           int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, out_c = p->out_c, offset = p->requant.output_offset;
    const fg_blocked_filter *const f = &p->blocked;
    const fg_fused_channel *const constants = (const fg_fused_channel *)p->packed;
    int8_t gathered[FG_CONV_GATHER_TAPS];
    const int8_t *rows[FG_CONV_MAX_ROWS];
    (void)filter;
    /* One pixel at a time, stored group by group after its window is read or gathered: output pixel i may overlap
     * only the inputs below the lowest one its window reads (ops/overlap.py). */
    for (int32_t i = 0; i < pixels; ++i) {
        fg_conv_window_rows(p, input, i, gathered, rows);
        const int32_t *w = f->paired;
        const fg_fused_channel *c = constants;
        for (int32_t oc = 0; oc < out_c; oc += FG_PAIRED_CHANNELS, c += FG_PAIRED_CHANNELS) {
            const int32_t count = out_c - oc < FG_PAIRED_CHANNELS ? out_c - oc : FG_PAIRED_CHANNELS;
            fg_fused_window_group(rows, f->rows, f->run, f->call_rows, f->call_taps, &w, c, offset, count, output);
            output += count;
        }
    }
}
