#include "fg/conv2d.h"
#include "fg/support/dot_s8.h"

void fg_conv2d_folded_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, out_c = p->out_c;
    const int32_t row_step = p->dilation_h * p->in_w * p->in_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[2][FG_CONV_GATHER_TAPS];
    const int8_t *rows0[FG_CONV_MAX_ROWS], *rows1[FG_CONV_MAX_ROWS];
    (void)filter;
    for (int32_t i = 0; i < pixels; i += 2) {
        /* an odd last pixel (or every pixel, past FG_PAIR_MAX_OUT channels) is computed twice */
        const int pair = i + 1 < pixels && out_c <= FG_PAIR_MAX_OUT;
        const int direct = fg_conv_window_rows(p, input, i, gathered[0], rows0)
                         & fg_conv_window_rows(p, input, pair ? i + 1 : i, gathered[1], rows1);
        fg_blocked_pair_s8(&p->blocked, rows0, rows1, direct ? row_step : 0, out_c, p->folded_bias, &requant,
                           output + i * out_c, pair ? output + (i + 1) * out_c : NULL);
        i -= !pair;
    }
}

void fg_depthwise_conv2d_one_channel_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                        int8_t *output) {
    fg_conv2d_folded_s8(p, input, filter, output);
}
