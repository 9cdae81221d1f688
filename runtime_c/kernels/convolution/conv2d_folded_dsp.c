#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp_folded.h"

/* params->packed: fg_dsp_channel[out_c], then per channel pair the int16 weight words of filter_h * filter_w * in_c
 * rounded up to 8. A padded image's copy takes at most FG_DSP_PAD_MAX bytes of stack. */
FG_HOT_LOOP void fg_conv2d_folded_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                      int8_t *output) {
    (void)filter;
    uint32_t x[3 * FG_DSP_CONV_MAX_PAIRS];  /* 3 * pairs used (the M7: 4 * pairs): depth <= FG_DSP_CONV_MAX_DEPTH */
    const fg_dsp_folded_arrays a = {(const fg_dsp_channel *)p->packed, 1, 0, x, 0};
    fg_dsp_folded_run(p, input, output, &a);
}

#endif
