/* CONV_2D with 4-bit weights on the DSP extension: one output pixel at a time, its window as one run of taps
 * (gathered at the border) through fg_s4_window_dsp; params->packed the weights as it reads them. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/window_run.h"

void fg_conv2d_s4_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_conv_windows(p, input, output, fg_s4_window_dsp);
}
#endif
