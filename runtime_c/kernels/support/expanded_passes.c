#include "fg/support/expanded_passes.h"

#include "fg/support/fused_group.h"
#include "fg/support/hot_loop.h"
#include "fg/support/row_copy.h"

/* The `count` outputs of one group for one pixel (a loop: the unrolled stores would take 300 bytes more code). */
static inline void fg_expanded_store(const int64_t s[4], const fg_fused_channel *c, int32_t offset, int32_t count,
                                     int8_t *out) {
    if (count == FG_PAIRED_CHANNELS) {
#pragma GCC unroll 1
        for (int32_t k = 0; k < FG_PAIRED_WORDS; ++k) {
            fg_fused_put(fg_low_field(s[k]), &c, offset, &out);
            fg_fused_put(fg_high_field(s[k]), &c, offset, &out);
        }
        return;
    }
    for (int32_t j = 0; j < count; ++j) {
        fg_fused_put(j % 2 ? fg_high_field(s[j / 2]) : fg_low_field(s[j / 2]), &c, offset, &out);
    }
}

/* The pixels of a pass: at most `most`, and as many as the kept bytes allow, in passes of even size (no short last
 * one). */
static int32_t fg_pass_pixels(int32_t pixels, int32_t most, int32_t kept_per_pixel, int32_t kept_bytes) {
    if (kept_per_pixel && kept_bytes / kept_per_pixel < most) {
        most = kept_bytes / kept_per_pixel;
    }
    const int32_t passes = (pixels + most - 1) / most;
    return (pixels + passes - 1) / passes;
}

/* One group's outputs for `count` pixels whose taps take one expansion: each pixel's sums in registers, the eight
 * outputs stored from them (fewer: through the general store). */
static inline void fg_group_whole(const int8_t *x, int32_t depth, int32_t count, const int32_t *words,
                                  const fg_fused_channel *c, int32_t channels, int32_t offset, int8_t *out,
                                  int32_t out_c) {
    if (channels < FG_PAIRED_CHANNELS) {
        for (int32_t i = 0; i < count; ++i, x += depth, out += out_c) {
            const int32_t *w = words;
            int64_t s[4] = {FG_LOW_START, FG_LOW_START, FG_LOW_START, FG_LOW_START};
            fg_paired_run(x, x + depth, &w, s);
            fg_expanded_store(s, c, offset, channels, out);
        }
        return;
    }
    for (int32_t i = 0; i < count; ++i, x += depth) {
        const int32_t *w = words;
        const fg_fused_channel *k = c;
        int8_t *o = out + i * out_c;
        int64_t s[4];
        s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
        fg_paired_run(x, x + depth, &w, s);
        fg_fused_store8(s, &k, offset, &o);
    }
}

/* One group's outputs for `count` pixels, their taps expanded layer->taps at a time, their sums kept meanwhile. */
static void fg_group_pieces(const fg_conv2d_params *p, const fg_expanded_layer *layer, const int8_t *x, int32_t count,
                            int32_t oc, const fg_fused_channel *c, int32_t channels, int8_t *out) {
    const int32_t depth = p->in_c;
    int64_t (*const sums)[FG_PAIRED_WORDS] = layer->sums;
    for (int32_t i = 0; i < count; ++i) {
        sums[i][0] = sums[i][1] = sums[i][2] = sums[i][3] = FG_LOW_START;
    }
    for (int32_t t = 0; t < depth; t += layer->taps) {
        const int32_t taps = depth - t < layer->taps ? depth - t : layer->taps;
        layer->expand(p, oc, t, taps, layer->words);
        for (int32_t i = 0; i < count; ++i) {
            const int32_t *w = layer->words;
            fg_paired_run(x + i * depth + t, x + i * depth + t + taps, &w, sums[i]);
        }
    }
    for (int32_t i = 0; i < count; ++i) {
        fg_expanded_store(sums[i], c, p->requant.output_offset, channels, out + i * p->out_c);
    }
}

FG_HOT_LOOP void fg_expanded_passes(const fg_conv2d_params *p, const int8_t *input, int8_t *output,
                                    const fg_expanded_layer *layer) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, depth = p->in_c, out_c = p->out_c;
    const int whole = depth <= layer->taps;
    const int copied = layer->kept_bytes > 0 && layer->copy_inputs && depth < out_c;
    const int buffered = layer->kept_bytes > 0 && !copied;
    const int32_t per_pass = fg_pass_pixels(pixels, whole ? pixels : layer->pixels,
                                            copied ? depth : buffered ? out_c : 0, layer->kept_bytes);
    fg_fused_channel c[FG_PAIRED_CHANNELS];
    for (int32_t first = 0; first < pixels; first += per_pass) {
        const int32_t count = pixels - first < per_pass ? pixels - first : per_pass;
        const int8_t *x = input + first * depth;
        int8_t *const stored = buffered ? layer->kept : output + first * out_c;
        if (copied) {
            fg_copy_row(layer->kept, x, count * depth);
            x = layer->kept;
        }
        for (int32_t oc = 0; oc < out_c; oc += FG_PAIRED_CHANNELS) {
            const int32_t channels = out_c - oc < FG_PAIRED_CHANNELS ? out_c - oc : FG_PAIRED_CHANNELS;
            layer->constants(p, oc, channels, c);
            if (whole) {
                layer->expand(p, oc, 0, depth, layer->words);
                fg_group_whole(x, depth, count, layer->words, c, channels, p->requant.output_offset, stored + oc,
                               out_c);
            } else {
                fg_group_pieces(p, layer, x, count, oc, c, channels, stored + oc);
            }
        }
        if (buffered) {
            fg_copy_row(output + first * out_c, layer->kept, count * out_c);
        }
    }
}
