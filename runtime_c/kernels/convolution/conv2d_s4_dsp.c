/* CONV_2D with 4-bit weights on the DSP extension: output pixels in pairs, raster order, their windows as runs of taps
 * (gathered at the border) through fg_s4_windows2_dsp, which reads both before storing either (a last pixel alone
 * through fg_s4_window_dsp); params->packed the weights as they read them. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/window_run.h"

void fg_conv2d_s4_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t out_c = p->out_c, taps = p->filter_h * p->filter_w * p->in_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[2][FG_CONV_GATHER_TAPS];
    const int8_t *x[2];
    int32_t pending = 0;
    (void)filter;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                x[pending] = fg_conv_window_run(p, image, oy, ox, gathered[pending]);
                if (++pending == 2) {
                    fg_s4_windows2_dsp(x[0], x[1], taps, p->packed, out_c, &requant, output, output + out_c);
                    output += 2 * out_c;
                    pending = 0;
                }
            }
        }
    }
    if (pending) {
        fg_s4_window_dsp(x[0], taps, p->packed, out_c, NULL, &requant, output);
    }
}
#endif
