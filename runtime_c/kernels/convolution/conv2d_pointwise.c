#include "fg/conv2d.h"
#include "fg/support/dot_s8.h"

void fg_conv2d_pointwise_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                            int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const fg_requant_params requant = p->requant;
    (void)filter;
    for (int32_t i = 0; i < pixels; i += 2) {
        /* an odd last pixel (or every pixel, past FG_PAIR_MAX_OUT channels) is computed twice */
        const int pair = i + 1 < pixels && out_c <= FG_PAIR_MAX_OUT;
        const int8_t *x0 = input + i * in_c;
        const int8_t *x1 = pair ? x0 + in_c : x0;
        fg_blocked_pair_s8(&p->blocked, &x0, &x1, 0, out_c, p->folded_bias, &requant, output + i * out_c,
                           pair ? output + (i + 1) * out_c : NULL);
        i -= !pair;
    }
}
