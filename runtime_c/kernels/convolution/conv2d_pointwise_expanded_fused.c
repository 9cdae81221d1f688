#include "fg/support/expanded_passes.h"
#include "fg/support/fused_group.h"

/* A layer of at most FG_EXPAND_BUFFERED_OUT channels keeps a pass's outputs on the stack (FG_EXPAND_LATER bytes,
 * fewer pixels per pass) until its last input is read; the output of any other must not overlap its input
 * (firmware_gen/ops/convolution/expanded_layout.py). */
#define FG_EXPAND_BUFFERED_OUT 16
#define FG_EXPAND_LATER 288
/* Taps of one group expanded at a time (16 bytes each), and output pixels whose sums are kept meanwhile (32 bytes
 * each): a 6x6 map takes one pass of its pixels. 2.8 KB of stack with the passes. */
#define FG_EXPAND_TAPS 64
#define FG_EXPAND_PIXELS 36

/* The paired words (fg/support/paired_run.h) of `taps` taps from tap t of channels [oc, oc + 8), from the compact
 * blocked groups oc / 4 (channels 0-3) and oc / 4 + 1 (channels 4-7), four weights per tap each. */
static void fg_expand_blocked(const fg_conv2d_params *p, int32_t oc, int32_t t, int32_t taps, int32_t *words) {
    const int32_t depth = p->in_c;
    const int8_t *a = p->blocked.weights + oc * depth + FG_BLOCK_CHANNELS * t, *b = a + FG_BLOCK_CHANNELS * depth;
    for (int32_t i = 0; i < taps; ++i, a += FG_BLOCK_CHANNELS, b += FG_BLOCK_CHANNELS, words += FG_PAIRED_WORDS) {
        words[0] = a[0] + a[1] * 4194304;
        words[1] = a[2] + a[3] * 4194304;
        words[2] = b[0] + b[1] * 4194304;
        words[3] = b[2] + b[3] * 4194304;
    }
}

/* The fg_fused_channel rows of channels [oc, oc + count), derived from the multipliers and the int8 shifts at
 * params->packed (every shift a right shift in [2, 31]) as the lowering of the paired layout lays them out. */
static void fg_blocked_constants(const fg_conv2d_params *p, int32_t oc, int32_t count, fg_fused_channel c[]) {
    const int8_t *const shifts = (const int8_t *)p->packed;
    for (int32_t j = 0; j < count; ++j) {
        const int32_t k = p->requant.per_channel ? oc + j : 0;
        c[j].bias = (int32_t)((uint32_t)p->folded_bias[oc + j] - (j % 2 == 0 ? (uint32_t)FG_LOW_START : 0u));
        c[j].fast = fg_fast_channel_right(p->requant.multipliers[k], shifts[k]);
    }
}

void fg_conv2d_pointwise_expanded_fused_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                           int8_t *output) {
    int8_t later[FG_EXPAND_LATER];
    int32_t words[FG_EXPAND_TAPS * FG_PAIRED_WORDS];
    int64_t sums[FG_EXPAND_PIXELS][FG_PAIRED_WORDS];
    const fg_expanded_layer layer = {fg_expand_blocked, fg_blocked_constants, later,
                                     p->out_c <= FG_EXPAND_BUFFERED_OUT ? FG_EXPAND_LATER : 0, 0,
                                     words, FG_EXPAND_TAPS, sums, FG_EXPAND_PIXELS};
    (void)filter;
    fg_expanded_passes(p, input, output, &layer);
}
