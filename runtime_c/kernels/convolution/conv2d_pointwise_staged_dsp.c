#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp_pointwise.h"
#include "fg/isa/dsp_staged.h"

/* fg_conv2d_pointwise_dsp with its weights staged (fg/isa/dsp_staged.h). params->packed: the pixel and channel
 * blocks, then fg_conv2d_pointwise_dsp's table. */
void fg_conv2d_pointwise_staged_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                    int8_t *output) {
    (void)filter;
    const int32_t *table = (const int32_t *)p->packed, tiles = table[0], block = table[1];
    const int32_t pairs = ((p->in_c + 7) >> 3) << 2;
    uint32_t x[tiles * 3 * pairs], w[block * (8 + 2 * pairs)];
    fg_dsp_pointwise_run(p, input, output, (const fg_dsp_channel *)(table + FG_DSP_STAGING_WORDS), tiles, block, x, w);
}
#endif
