/* CONV_2D on Armv6-M (fg/isa/armv6m.h): one output pixel at a time, every group of eight channels from the
 * window's taps copied into one run (with the zero point in the padding), its outputs stored
 * after the pixel's inputs are read (the forward overlap of firmware_gen/ops/overlap.py). params->packed holds the
 * layer's weights as fg_armv6m_window_s8 reads them. */
#include "fg/isa/armv6m.h"
#include "fg/conv2d.h"
#include "fg/support/window_run.h"

void fg_conv2d_pointwise_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const fg_requant_params requant = p->requant;
    (void)filter;
    for (int32_t i = 0; i < pixels; ++i) {
        const int8_t *x = input + i * in_c;
        fg_armv6m_window_s8(x, in_c, p->packed, out_c, p->folded_bias, &requant,
                            output + i * out_c);
    }
}

void fg_conv2d_folded_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_conv_windows(p, input, output, fg_armv6m_window_s8);
}

/* fg_conv2d_s4 (4-bit weights, a window of at most FG_CONV_GATHER_TAPS taps): as fg_conv2d_folded_armv6m, the
 * weights as fg_armv6m_window_s4 reads them. */
void fg_conv2d_s4_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_conv_windows(p, input, output, fg_armv6m_window_s4);
}
