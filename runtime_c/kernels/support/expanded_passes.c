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
            fg_fused_put(fg_low_field(s[k]), &c, offset, &out, 0);
            fg_fused_put(fg_high_field(s[k]), &c, offset, &out, 0);
        }
        return;
    }
    for (int32_t j = 0; j < count; ++j) {
        fg_fused_put(j % 2 ? fg_high_field(s[j / 2]) : fg_low_field(s[j / 2]), &c, offset, &out, 0);
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

/* Where the pixels of a pass read their taps: pixel i's window row r (r < rows) is the run of `run` taps at
 * fg_pass_pixel(g, i) + r * row. */
typedef struct {
    const int8_t *x;
    int32_t width;  /* pixels a line */
    int32_t step;   /* bytes from a pixel to the next on a line */
    int32_t line;   /* bytes from a line to the next */
    int32_t rows, row, run;
} fg_pass_taps;

static inline const int8_t *fg_pass_pixel(const fg_pass_taps *g, int32_t i) {
    return g->x + (i / g->width) * g->line + (i % g->width) * g->step;
}

/* The sums of one pixel's window (its taps from x, `rows` runs of `run` taps `row` bytes apart) with the expanded
 * words of all of them. */
__attribute__((always_inline)) static inline void fg_window_sums(int32_t rows, int32_t run, int32_t row,
                                                                 const int8_t *x, const int32_t *w, int64_t s[4]) {
    s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
    for (int32_t r = 0; r < rows; ++r, x += row) {
        fg_paired_run(x, x + run, &w, s);
    }
}

/* One group's outputs for `count` pixels of a line (their taps from x, `step` bytes apart) whose windows take one
 * expansion: out of line, one copy of the loop for every window and group. */
static __attribute__((noinline)) void fg_group_general(int32_t rows, int32_t run, int32_t row, const int8_t *x,
                                                     int32_t step, int32_t count, const int32_t *words,
                                                     const fg_fused_channel *c, int32_t channels, int32_t offset,
                                                     int8_t *out, int32_t out_c) {
    for (int32_t i = 0; i < count; ++i, x += step, out += out_c) {
        int64_t s[4];
        fg_window_sums(rows, run, row, x, words, s);
        fg_expanded_store(s, c, offset, channels, out);
    }
}

/* The same for a whole group of eight and windows of one row (the pointwise layers, whose taps are fewest per
 * output: their own loop, each pixel's eight outputs stored from the sums' registers). */
static inline void fg_group_line(const int8_t *x, int32_t run, int32_t count, const int32_t *words,
                                 const fg_fused_channel *c, int32_t offset, int8_t *out, int32_t out_c) {
    for (int32_t i = 0; i < count; ++i, x += run) {
        const fg_fused_channel *k = c;
        int8_t *o = out + i * out_c;
        int64_t s[4];
        fg_window_sums(1, run, 0, x, words, s);
        fg_fused_store8(s, &k, offset, &o, 0);
    }
}

/* The same for the `count` pixels of a pass, line by line. */
static void fg_group_whole(const fg_pass_taps *g, int32_t count, const int32_t *words, const fg_fused_channel *c,
                           int32_t channels, int32_t offset, int8_t *out, int32_t out_c) {
    if (g->rows == 1 && g->step == g->run && channels == FG_PAIRED_CHANNELS && count <= g->width) {
        fg_group_line(g->x, g->run, count, words, c, offset, out, out_c);
        return;
    }
    const int8_t *x = g->x;
    for (int32_t i = 0; i < count; i += g->width, x += g->line) {
        const int32_t pixels = count - i < g->width ? count - i : g->width;
        fg_group_general(g->rows, g->run, g->row, x, g->step, pixels, words, c, channels, offset, out + i * out_c,
                         out_c);
    }
}

/* One group's outputs for `count` pixels, their taps expanded layer->taps at a time (within a window row), their
 * sums kept meanwhile. */
static void fg_group_pieces(const fg_conv2d_params *p, const fg_expanded_layer *layer, const fg_pass_taps *g,
                            int32_t count, int32_t oc, const fg_fused_channel *c, int32_t channels, int8_t *out) {
    int64_t (*const sums)[FG_PAIRED_WORDS] = layer->sums;
    for (int32_t i = 0; i < count; ++i) {
        sums[i][0] = sums[i][1] = sums[i][2] = sums[i][3] = FG_LOW_START;
    }
    for (int32_t r = 0; r < g->rows; ++r) {
        for (int32_t t = 0; t < g->run; t += layer->taps) {
            const int32_t taps = g->run - t < layer->taps ? g->run - t : layer->taps;
            layer->expand(p, oc, r * g->run + t, taps, layer->words);
            for (int32_t i = 0; i < count; ++i) {
                const int8_t *const x = fg_pass_pixel(g, i) + r * g->row + t;
                const int32_t *w = layer->words;
                fg_paired_run(x, x + taps, &w, sums[i]);
            }
        }
    }
    for (int32_t i = 0; i < count; ++i) {
        fg_expanded_store(sums[i], c, p->requant.output_offset, channels, out + i * p->out_c);
    }
}

/* The outputs of `count` pixels (at most layer->pixels unless their windows take one expansion), group by group. */
static void fg_expanded_pass(const fg_conv2d_params *p, const fg_expanded_layer *layer, const fg_pass_taps *g,
                             int32_t count, int8_t *stored) {
    const int whole = g->rows * g->run <= layer->taps;
    fg_fused_channel c[FG_PAIRED_CHANNELS];
    for (int32_t oc = 0; oc < p->out_c; oc += FG_PAIRED_CHANNELS) {
        const int32_t channels = p->out_c - oc < FG_PAIRED_CHANNELS ? p->out_c - oc : FG_PAIRED_CHANNELS;
        layer->constants(p, oc, channels, c);
        if (whole) {
            layer->expand(p, oc, 0, g->rows * g->run, layer->words);
            fg_group_whole(g, count, layer->words, c, channels, p->requant.output_offset, stored + oc, p->out_c);
        } else {
            fg_group_pieces(p, layer, g, count, oc, c, channels, stored + oc);
        }
    }
}

FG_HOT_LOOP void fg_expanded_passes(const fg_conv2d_params *p, const int8_t *input, int8_t *output,
                                    const fg_expanded_layer *layer) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, depth = p->in_c, out_c = p->out_c;
    const int copied = layer->kept_bytes > 0 && layer->copy_inputs && depth < out_c;
    const int buffered = layer->kept_bytes > 0 && !copied;
    const int32_t per_pass = fg_pass_pixels(pixels, depth <= layer->taps ? pixels : layer->pixels,
                                            copied ? depth : buffered ? out_c : 0, layer->kept_bytes);
    for (int32_t first = 0; first < pixels; first += per_pass) {
        const int32_t count = pixels - first < per_pass ? pixels - first : per_pass;
        fg_pass_taps g = {input + first * depth, count, depth, 0, 1, 0, depth};
        if (copied) {
            fg_copy_row(layer->kept, g.x, count * depth);
            g.x = layer->kept;
        }
        fg_expanded_pass(p, layer, &g, count, buffered ? layer->kept : output + first * out_c);
        if (buffered) {
            fg_copy_row(output + first * out_c, layer->kept, count * out_c);
        }
    }
}

/* Rows [y0, y0 + rows) of the image, columns [-pad_left, width - pad_left), into slab: the zero point outside it. */
static void fg_fill_slab(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t rows, int32_t width,
                         int8_t *slab) {
    const int32_t in_c = p->in_c, left = p->pad_left;
    const int32_t first = left < width ? left : width;
    const int32_t last = p->in_w + left < width ? p->in_w + left : width;  /* slab columns [first, last) inside */
    const int8_t zero_point = (int8_t)-p->requant.input_offset;
    for (int32_t r = 0; r < rows; ++r, slab += width * in_c) {
        const int32_t y = y0 + r;
        if (y < 0 || y >= p->in_h || last <= first) {
            fg_fill_row(slab, zero_point, width * in_c);
            continue;
        }
        if (first > 0) {
            fg_fill_row(slab, zero_point, first * in_c);
        }
        fg_copy_row(slab + first * in_c, image + (y * p->in_w + first - left) * in_c, (last - first) * in_c);
        if (last < width) {
            fg_fill_row(slab + last * in_c, zero_point, (width - last) * in_c);
        }
    }
}

FG_HOT_LOOP void fg_expanded_window_passes(const fg_conv2d_params *p, const int8_t *input, int8_t *output,
                                           const fg_expanded_layer *layer) {
    const int32_t in_c = p->in_c, out_w = p->out_w, run = p->filter_w * in_c;
    const int32_t width = (out_w - 1) * p->stride_w + p->filter_w, span = (p->filter_h - 1) * p->dilation_h + 1;
    const int32_t line = width * in_c, whole = p->filter_h * run <= layer->taps;
    int32_t most = (layer->kept_bytes / line - span) / p->stride_h + 1;  /* output rows whose input rows fit */
    if (!whole && most * out_w > layer->pixels) {
        most = layer->pixels / out_w;
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *const image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; oy += most) {
            const int32_t rows = p->out_h - oy < most ? p->out_h - oy : most;
            const fg_pass_taps g = {layer->kept, out_w, p->stride_w * in_c, p->stride_h * line, p->filter_h,
                                    p->dilation_h * line, run};
            fg_fill_slab(p, image, oy * p->stride_h - p->pad_top, (rows - 1) * p->stride_h + span, width,
                         layer->kept);
            fg_expanded_pass(p, layer, &g, rows * out_w, output + ((b * p->out_h + oy) * out_w) * p->out_c);
        }
    }
}
