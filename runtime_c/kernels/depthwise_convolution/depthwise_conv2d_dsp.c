#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"

/* params->packed: as fg_conv2d_folded_dsp's for depth_multiplier filters [filter_h][filter_w][1]. */
FG_HOT_LOOP void fg_depthwise_conv2d_dsp(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    const fg_conv2d_params conv = {
        .batches = p->batches, .in_h = p->in_h, .in_w = p->in_w, .in_c = 1,
        .out_h = p->out_h, .out_w = p->out_w, .out_c = p->depth_multiplier,
        .filter_h = p->filter_h, .filter_w = p->filter_w, .stride_h = p->stride_h, .stride_w = p->stride_w,
        .dilation_h = p->dilation_h, .dilation_w = p->dilation_w, .pad_top = p->pad_top, .pad_left = p->pad_left,
        .requant = p->requant, .folded_bias = 0, .packed = p->packed};
    fg_conv2d_folded_dsp(&conv, input, 0, output);
}
#endif
