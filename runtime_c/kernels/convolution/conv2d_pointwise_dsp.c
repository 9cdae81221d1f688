#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp_pointwise.h"

/* params->packed: the table of fg_dsp_pointwise_run, the weights read in place. */
void fg_conv2d_pointwise_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    uint32_t x[3 * FG_DSP_CONV_MAX_PAIRS];  /* 3 * pairs used: depth <= FG_DSP_CONV_MAX_DEPTH (the lowering's) */
    const fg_dsp_channel *ch = (const fg_dsp_channel *)p->packed;
    fg_dsp_pointwise_tiles(p, input, output, ch, (const uint32_t *)(ch + p->out_c), x);
}

#endif
