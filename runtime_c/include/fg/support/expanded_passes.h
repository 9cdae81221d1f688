/* The passes of the 1x1 convolutions whose weights are expanded into paired words at run time (fg/support/paired_run.h):
 * per group of eight output channels, its weights expanded on the stack a few taps at a time, then the paired loop run
 * over up to FG_EXPAND_PIXELS pixels, their 64-bit sums kept meanwhile, and the group's outputs stored through the
 * fused output stage (fg/support/fused_group.h). The weight layout is the caller's: it expands a group's taps and
 * gives the group's fused constants. Shared by the int8 compact layout (fg_conv2d_pointwise_expanded_fused_s8) and
 * the Armv7-M 4-bit one (fg_conv2d_pointwise_expanded_fused_s4). */
#ifndef FG_EXPANDED_PASSES_H
#define FG_EXPANDED_PASSES_H

#include <stdint.h>

#include "fg/conv2d.h"


/* words[4 * i + k] = w(2k) + w(2k + 1) * 2^22 for tap t + i, i < taps, w(j) channel oc + j's weight (a channel past
 * out_c weighs 0). */
typedef void fg_expand_group(const fg_conv2d_params *params, int32_t oc, int32_t t, int32_t taps, int32_t *words);
/* c[j] for the channels oc + j, j < count (<= 8): the folded bias (less FG_LOW_START for an even j) and the fast output
 * constants. */
typedef void fg_group_constants(const fg_conv2d_params *params, int32_t oc, int32_t count, fg_fused_channel c[]);

/* How a layer's passes keep its overlap allowance (ops/overlap.py: output pixel i may overlap the inputs below it):
 * a pass's outputs wait in `kept` (kept_bytes, the caller's stack) until its last input is read, or, with
 * copy_inputs and in_c < out_c, its inputs are read from a copy there; with kept_bytes 0, neither (the output must
 * not overlap the input). A pass then takes at most kept_bytes / (the bytes kept per pixel) pixels. The caller's
 * stack also holds the expanded words of `taps` taps and, for a layer deeper than that, the sums of `pixels` pixels
 * (at most that many a pass). */
typedef struct {
    fg_expand_group *expand;
    fg_group_constants *constants;
    int8_t *kept;
    int32_t kept_bytes;
    int copy_inputs;
    int32_t *words;  /* taps * FG_PAIRED_WORDS */
    int32_t taps;
    int64_t (*sums)[FG_PAIRED_WORDS];  /* [pixels] */
    int32_t pixels;
} fg_expanded_layer;

/* The layer (stride 1, every pixel a dot product of in_c taps, the whole int8 clamp, in_c < 2048 for 4-bit weights:
 * each low field stays in [0, 2^22)). */
void fg_expanded_passes(const fg_conv2d_params *params, const int8_t *input, int8_t *output,
                        const fg_expanded_layer *layer);

/* Any window with dilation_w 1 (4-bit weights), its taps in filter rows of filter_w * in_c: output rows a pass whose
 * input rows (the zero point in the padding) fit in `kept`, read from there, their outputs stored directly (the
 * overlap allowance kept: a pass's inputs are copied before its outputs are stored). At least one output row's
 * input rows must fit, and, unless the whole window takes one expansion, a window row must (filter_w * in_c <=
 * taps) and an output row's pixels (out_w <= pixels). */
void fg_expanded_window_passes(const fg_conv2d_params *params, const int8_t *input, int8_t *output,
                               const fg_expanded_layer *layer);

#endif /* FG_EXPANDED_PASSES_H */
