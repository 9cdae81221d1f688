#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"

/* params->packed: fg_dsp_channel[out_c], then per channel pair the int16 weight words of in_c rounded up to 8. */
FG_HOT_LOOP void fg_conv2d_pointwise_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                         int8_t *output) {
    (void)filter;
    const int32_t depth = p->in_c, out_c = p->out_c, pairs = ((depth + 7) >> 3) << 2;
    const int32_t pixels = p->batches * p->out_h * p->out_w;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_channel *ch = (const fg_dsp_channel *)p->packed;
    const uint32_t *weights = (const uint32_t *)(ch + out_c);
    const int narrow = fg_dsp_all_narrow(ch, out_c);
    uint32_t x[3 * FG_DSP_CONV_MAX_PAIRS];  /* 3 * pairs used: depth <= FG_DSP_CONV_MAX_DEPTH (the lowering's) */
    for (int32_t i = 0; i < pixels; i += 3) {
        if (pixels - i == 2 && i > 0) {
            /* two pixels left: the tile steps back over the last pixel stored and stores it again (the same
             * values), keeping its fast path. Its inputs are intact: no later output is stored yet, and the
             * planner's overlap keeps each output below its own window. */
            i -= 1;
        }
        const int32_t n = pixels - i < 3 ? pixels - i : 3;
        for (int32_t px = 0; px < 3; ++px) {  /* a short block repeats its first pixel */
            fg_dsp_extend(input + (i + (px < n ? px : 0)) * depth, depth, pairs, x + px, 3);
        }
        fg_dsp_gemm_3(x, weights, pairs, ch, out_c, n, output + i * out_c, &q, narrow);
    }
}
#endif
