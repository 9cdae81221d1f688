#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp_folded.h"

/* fg_conv2d_folded_dsp with its weights staged (fg/isa/dsp_staged.h). params->packed: the pixel and channel blocks,
 * then fg_conv2d_folded_dsp's table. */
FG_HOT_LOOP void fg_conv2d_folded_staged_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                             int8_t *output) {
    (void)filter;
    const int32_t *table = (const int32_t *)p->packed, tiles = table[0], block = table[1];
    const int32_t pairs = fg_dsp_folded_window_pairs(p);
    uint32_t x[tiles * 3 * pairs], w[block * (8 + 2 * pairs)];
    const fg_dsp_folded_arrays a = {(const fg_dsp_channel *)(table + FG_DSP_STAGING_WORDS), tiles, block, x, w};
    fg_dsp_folded_run(p, input, output, &a);
}
#endif
