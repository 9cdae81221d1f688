#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"
#include "fg/isa/dsp_staged.h"

typedef struct {
    const int8_t *input;
    int32_t depth, pairs;
} fg_dsp_pointwise_input;

static __attribute__((flatten)) void fg_dsp_pointwise_pairs(const void *context, int32_t pixel, uint32_t *x) {
    const fg_dsp_pointwise_input *in = (const fg_dsp_pointwise_input *)context;
    fg_dsp_extend(in->input + pixel * in->depth, in->depth, in->pairs, x, 3);
}

/* Every output from the table at ch (fg_dsp_channel[out_c], then per channel pair the int16 weight words of in_c
 * rounded up to 8) on the arrays x (tiles tiles of input pairs) and w (block staged channel pairs, or none).
 * Out of line: the staged arrays' frame pointer (r7) stays out of the assembly's way; flattened: the tile loop and
 * the extension inlined at both of fg_dsp_staged_gemm's paths. */
FG_HOT_LOOP static __attribute__((noinline, flatten)) void fg_dsp_pointwise_run(const fg_conv2d_params *p, const int8_t *input,
                                                                       int8_t *output, const fg_dsp_channel *ch,
                                                                       int32_t tiles, int32_t block, uint32_t *x,
                                                                       uint32_t *w) {
    const int32_t depth = p->in_c, out_c = p->out_c, pairs = ((depth + 7) >> 3) << 2;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_layer layer = {ch, (const uint32_t *)(ch + out_c), out_c, pairs,
                                p->batches * p->out_h * p->out_w, fg_dsp_all_narrow(ch, out_c), &q};
    const fg_dsp_pointwise_input in = {input, depth, pairs};
    fg_dsp_staged_gemm(&layer, tiles, block, x, w, fg_dsp_pointwise_pairs, &in, output);
}

/* params->packed: the table of fg_dsp_pointwise_run, the weights read in place. */
void fg_conv2d_pointwise_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    uint32_t x[3 * FG_DSP_CONV_MAX_PAIRS];  /* 3 * pairs used: depth <= FG_DSP_CONV_MAX_DEPTH (the lowering's) */
    fg_dsp_pointwise_run(p, input, output, (const fg_dsp_channel *)p->packed, 1, 0, x, 0);
}

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
