/* FULLY_CONNECTED with 4-bit weights on the DSP extension: each batch row through fg_s4_window_dsp. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/window_run.h"

void fg_fully_connected_s4_dsp(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                               int8_t *output) {
    (void)weights;
    fg_fully_connected_rows(p, input, output, fg_s4_window_dsp);
}
#endif
