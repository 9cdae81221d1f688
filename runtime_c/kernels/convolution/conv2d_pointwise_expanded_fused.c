#include "fg/support/fused_group.h"
#include "fg/support/row_copy.h"

/* Taps of one group of eight channels expanded at a time (16 bytes each), and output pixels whose sums are kept
 * meanwhile (32 bytes each); a 6x6 map takes one pass of its pixels. A layer of at most FG_EXPAND_BUFFERED_OUT
 * channels keeps a pass's outputs on the stack (FG_EXPAND_LATER bytes, fewer pixels per pass) until its last input is
 * read. 2.6 KB of stack in all. */
#define FG_EXPAND_TAPS 64
#define FG_EXPAND_PIXELS 36
#define FG_EXPAND_BUFFERED_OUT 16
#define FG_EXPAND_LATER 288

/* The paired words (fg/support/paired_run.h) of `taps` taps of one group of eight channels, from the compact blocked groups
 * `a` (channels 0-3) and `b` (channels 4-7), four weights per tap each. */
static inline void fg_expand_pairs(const int8_t *a, const int8_t *b, int32_t taps, int32_t *words) {
    for (int32_t i = 0; i < taps; ++i, a += FG_BLOCK_CHANNELS, b += FG_BLOCK_CHANNELS, words += FG_PAIRED_WORDS) {
        words[0] = a[0] + a[1] * 4194304;
        words[1] = a[2] + a[3] * 4194304;
        words[2] = b[0] + b[1] * 4194304;
        words[3] = b[2] + b[3] * 4194304;
    }
}

/* The fg_fused_channel rows of channels [oc, oc + 8), derived from the multipliers and the int8 shifts at
 * params->packed (every shift a right shift in [2, 31]) as the lowering of the paired layout lays them out: one call
 * of the paired loop. */
static inline void fg_expanded_constants(const fg_conv2d_params *p, int32_t oc, fg_fused_channel c[]) {
    const int8_t *const shifts = (const int8_t *)p->packed;
    for (int32_t j = 0; j < FG_PAIRED_CHANNELS; ++j) {
        const int32_t k = p->requant.per_channel ? oc + j : 0;
        c[j].bias = (int32_t)((uint32_t)p->folded_bias[oc + j] - (j % 2 == 0 ? (uint32_t)FG_LOW_START : 0u));
        c[j].fast = fg_fast_channel_right(p->requant.multipliers[k], shifts[k]);
    }
}

/* The eight outputs of one group for one pixel (a loop: the unrolled stores would take 300 bytes more code). */
static inline void fg_expanded_store(const int64_t s[4], const fg_fused_channel *c, int32_t offset, int8_t *out) {
#pragma GCC unroll 1
    for (int32_t k = 0; k < FG_PAIRED_WORDS; ++k) {
        fg_fused_put(fg_low_field(s[k]), &c, offset, &out);
        fg_fused_put(fg_high_field(s[k]), &c, offset, &out);
    }
}

FG_HOT_LOOP void fg_conv2d_pointwise_expanded_fused_s8(const fg_conv2d_params *p, const int8_t *input,
                                                       const int8_t *filter, int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, depth = p->in_c, out_c = p->out_c;
    const int32_t offset = p->requant.output_offset;
    const int buffered = out_c <= FG_EXPAND_BUFFERED_OUT;
    const int32_t most = buffered && FG_EXPAND_LATER / out_c < FG_EXPAND_PIXELS ? FG_EXPAND_LATER / out_c
                                                                               : FG_EXPAND_PIXELS;
    const int32_t passes = (pixels + most - 1) / most;
    const int32_t per_pass = (pixels + passes - 1) / passes;  /* even passes: no short last one */
    int32_t words[FG_EXPAND_TAPS * FG_PAIRED_WORDS];
    int64_t sums[FG_EXPAND_PIXELS][FG_PAIRED_WORDS];
    fg_fused_channel constants[FG_PAIRED_CHANNELS];
    int8_t later[FG_EXPAND_LATER];
    (void)filter;
    for (int32_t first = 0; first < pixels; first += per_pass) {
        const int32_t count = pixels - first < per_pass ? pixels - first : per_pass;
        const int8_t *const x = input + first * depth;
        int8_t *const stored = buffered ? later : output + first * out_c;
        for (int32_t oc = 0; oc < out_c; oc += FG_PAIRED_CHANNELS) {
            const int8_t *const group = p->blocked.weights + oc * depth;  /* compact groups oc / 4 and oc / 4 + 1 */
            for (int32_t i = 0; i < count; ++i) {
                sums[i][0] = sums[i][1] = sums[i][2] = sums[i][3] = FG_LOW_START;
            }
            for (int32_t t = 0; t < depth; t += FG_EXPAND_TAPS) {
                const int32_t taps = depth - t < FG_EXPAND_TAPS ? depth - t : FG_EXPAND_TAPS;
                fg_expand_pairs(group + FG_BLOCK_CHANNELS * t, group + FG_BLOCK_CHANNELS * (depth + t), taps, words);
                for (int32_t i = 0; i < count; ++i) {
                    const int32_t *w = words;
                    fg_paired_run(x + i * depth + t, x + i * depth + t + taps, &w, sums[i]);
                }
            }
            fg_expanded_constants(p, oc, constants);
            for (int32_t i = 0; i < count; ++i) {
                fg_expanded_store(sums[i], constants, offset, stored + i * out_c + oc);
            }
        }
        if (buffered) {
            fg_copy_row(output + first * out_c, later, count * out_c);
        }
    }
}
