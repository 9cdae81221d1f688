/* The im2col machinery of the int8 DSP convolutions fg_conv2d_folded_dsp and fg_conv2d_folded_staged_dsp (each
 * kernel file its own copy: made so while the cycle estimate placed a block's weight reads by one register sample
 * for the whole invoke, the two kernels reading their weights from flash and from RAM; bench/speed.py now samples per
 * step, as flash_reads.py did). Everything here is static; outside __ARM_FEATURE_DSP this header declares nothing. */
#ifndef FG_DSP_FOLDED_H
#define FG_DSP_FOLDED_H

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/conv2d.h"
#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"
#include "fg/isa/dsp_staged.h"
#include "fg/variants_dsp.h"

/* n bytes, a word at a time (a library call costs more than the few bytes of a window's row). */
static inline void fg_dsp_copy(int8_t *to, const int8_t *from, int32_t n) {
    int32_t k = 0;
    for (; k + 4 <= n; k += 4) {
        uint32_t v;
        __builtin_memcpy(&v, from + k, sizeof v);
        __builtin_memcpy(to + k, &v, sizeof v);
    }
    for (; k < n; ++k) {
        to[k] = from[k];
    }
}

/* The pairs of `rows` rows of `row` bytes (a multiple of 4) `line` bytes apart, pair g at out[3 * g]. */
static inline void fg_dsp_extend_rows(const int8_t *from, int32_t rows, int32_t row, int32_t line, uint32_t *out) {
    for (int32_t fy = 0; fy < rows; ++fy, from += line, out += 6 * (row >> 2)) {
        fg_dsp_extend_words(from, row >> 2, out);
    }
}

/* The window of the output pixel whose top left tap is (y0, x0), as the filter orders its taps
 * ([filter_h][filter_w][in_c]); a tap in the padding reads the zero point (x + input_offset = 0, which the folded
 * bias expects). */
static void fg_dsp_window(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0, int8_t *patch,
                          int32_t padded_row) {
    const int32_t in_c = p->in_c, row = p->filter_w * in_c;
    const int zero_point = (int)(int8_t)-p->requant.input_offset;
    if (p->dilation_h == 1 && p->dilation_w == 1 && y0 >= 0 && y0 + p->filter_h <= p->in_h && x0 >= 0 &&
        x0 + p->filter_w <= p->in_w) {  /* inside the image: each row of the window is contiguous */
        const int8_t *line = image + (y0 * p->in_w + x0) * in_c;
        for (int32_t fy = 0; fy < p->filter_h; ++fy, patch += padded_row, line += p->in_w * in_c) {
            fg_dsp_copy(patch, line, row);
        }
        return;
    }
    for (int32_t fy = 0; fy < p->filter_h; ++fy, patch += padded_row) {
        const int32_t y = y0 + fy * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            memset(patch, zero_point, (size_t)row);
            continue;
        }
        const int8_t *line = image + y * p->in_w * in_c;
        for (int32_t fx = 0; fx < p->filter_w;) {
            const int32_t x = x0 + fx * p->dilation_w;
            int32_t run = 1;  /* taps read together: without dilation the in-bounds taps are contiguous */
            if (x < 0 || x >= p->in_w) {
                memset(patch + fx * in_c, zero_point, (size_t)in_c);
            } else {
                if (p->dilation_w == 1) {
                    run = p->filter_w - fx < p->in_w - x ? p->filter_w - fx : p->in_w - x;
                }
                fg_dsp_copy(patch + fx * in_c, line + x * in_c, run * in_c);
            }
            fx += run;
        }
    }
}

/* Each filter row's bytes in the weights: its taps padded to whole words unless that adds more than 8 blocks x
 * outputs (dsp.py's padded_row pads the weights alike). */
static int32_t fg_dsp_padded_row(const fg_conv2d_params *p) {
    const int32_t row = p->filter_w * p->in_c, words = (row + 3) & ~3;
    const int32_t extra = ((p->filter_h * words + 7) >> 3) - ((p->filter_h * row + 7) >> 3);
    return extra * p->out_c <= 8 ? words : row;
}

/* What a pixel's window is read from. */
typedef struct {
    const fg_conv2d_params *p;
    const int8_t *image;
    int8_t *patch;  /* a gathered window: 2 * pairs bytes, zeros past depth (their weights are zero too) */
    int32_t padded_row, line, pairs;
    int direct;  /* a window inside the image read straight from its rows (the padding's bytes from the same image
                  * row: their weights are zero) */
} fg_dsp_folded_input;

static __attribute__((flatten)) void fg_dsp_folded_pairs(const void *context, int32_t pixel, uint32_t *x) {
    const fg_dsp_folded_input *in = (const fg_dsp_folded_input *)context;
    const fg_conv2d_params *p = in->p;
    const int32_t oy = pixel / p->out_w, ox = pixel % p->out_w;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    if (in->direct && y0 >= 0 && y0 + p->filter_h <= p->in_h && x0 >= 0 && x0 * p->in_c + in->padded_row <= in->line) {
        fg_dsp_extend_rows(in->image + (y0 * p->in_w + x0) * p->in_c, p->filter_h, in->padded_row, in->line, x);
    } else {
        fg_dsp_window(p, in->image, y0, x0, in->patch, in->padded_row);
        fg_dsp_extend_words(in->patch, in->pairs >> 1, x);
    }
}

/* The pairs of a window of `p`: its filter rows padded to fg_dsp_padded_row's bytes, rounded up to 8 depths. */
static inline int32_t fg_dsp_folded_window_pairs(const fg_conv2d_params *p) {
    return ((p->filter_h * fg_dsp_padded_row(p) + 7) >> 3) << 2;
}

/* How the image is run: the channels' output stages (the weights follow them), the blocks and arrays of
 * fg/isa/dsp_staged.h (x: tiles tiles of input pairs, w: block staged channel pairs, or none). */
typedef struct {
    const fg_dsp_channel *ch;
    int32_t tiles, block;
    uint32_t *x, *w;
} fg_dsp_folded_arrays;

/* The layer `layer` and its input `in` of the image at `image` (pairs and padded_row as fg_dsp_folded_image's),
 * gathered windows in `patch` (2 * pairs bytes, zeroed), the channels' output stages at ch (the weights follow them),
 * q the requantization's local copy. */
#define FG_DSP_FOLDED_LAYER(p, image, ch, q, patch)                                                               \
    const fg_dsp_layer layer = {ch, (const uint32_t *)((ch) + (p)->out_c), (p)->out_c, pairs,                    \
                                (p)->out_h * (p)->out_w, fg_dsp_all_narrow(ch, (p)->out_c), &(q)};              \
    const fg_dsp_folded_input in = {p, image, patch, padded_row, (p)->in_w * (p)->in_c, pairs,                  \
                                    (p)->dilation_h == 1 && (p)->dilation_w == 1 && padded_row % 4 == 0};

#if defined(FG_CORE_CORTEX_M7)
/* `words` words from `from` sign-extended into one pixel's pairs of the M7's four-pixel tile (pair g at x[4 g]);
 * returns x past them. */
static inline uint32_t *fg_dsp_quad_words(const int8_t *from, int32_t words, uint32_t *x) {
    for (int32_t k = 0; k < words; ++k, x += 8) {
        uint32_t v;
        __builtin_memcpy(&v, from + 4 * k, sizeof v);
        x[0] = __sxtb16(v);
        x[4] = fg_dsp_odd_s8x2(v);
    }
    return x;
}

/* Where pixel `pixel`'s window is read straight from the image's rows (as fg_dsp_folded_pairs reads it), or 0. */
static inline __attribute__((always_inline)) const int8_t *fg_dsp_folded_origin(const fg_dsp_folded_input *in,
                                                                                int32_t pixel, int32_t *y0,
                                                                                int32_t *x0) {
    const fg_conv2d_params *p = in->p;
    *y0 = pixel / p->out_w * p->stride_h - p->pad_top;
    *x0 = pixel % p->out_w * p->stride_w - p->pad_left;
    const int inside =
        *y0 >= 0 && *y0 + p->filter_h <= p->in_h && *x0 >= 0 && *x0 * p->in_c + in->padded_row <= in->line;
    return in->direct && inside ? in->image + (*y0 * p->in_w + *x0) * p->in_c : 0;
}

/* The word at `at` of the four pixels' rows at from[] into the four-pixel tile's x: its even pairs, then its odd. */
static inline __attribute__((always_inline)) void fg_dsp_quad_word(const int8_t *const from[4], int32_t at,
                                                                  uint32_t *x) {
#pragma GCC unroll 4
    for (int32_t px = 0; px < 4; ++px) {
        uint32_t v;
        __builtin_memcpy(&v, from[px] + at, sizeof v);
        x[px] = __sxtb16(v);
        x[4 + px] = fg_dsp_odd_s8x2(v);
    }
}

/* The window pairs of the four pixels from `pixel` into the M7's four-pixel tile (pixel p's pair g at x[4 g + p]):
 * when all four are read straight from the rows, a word of each at a time (4 LDR, 8 SXTB16, 8 STR), else pixel by
 * pixel (a window outside the image gathered first, as fg_dsp_folded_pairs). */
static inline __attribute__((always_inline)) void fg_dsp_folded_quad(const fg_dsp_folded_input *in, int32_t pixel,
                                                                    uint32_t *x) {
    const fg_conv2d_params *p = in->p;
    const int8_t *from[4];
    int32_t y0[4], x0[4], all = 1;
    for (int32_t px = 0; px < 4; ++px) {
        from[px] = fg_dsp_folded_origin(in, pixel + px, &y0[px], &x0[px]);
        all = all && from[px];
    }
    const int32_t row = in->padded_row, line = in->line;
    if (all && row == 4) {  /* a word a row (kws_ref_model's 10x4 stem on one channel): one loop */
        for (const uint32_t *const end = x + 8 * p->filter_h; x != end; x += 8) {  /* end: the stores may alias p */
            fg_dsp_quad_word(from, 0, x);
            from[0] += line;
            from[1] += line;
            from[2] += line;
            from[3] += line;
        }
        return;
    }
    if (all) {
        for (int32_t fy = 0, at = 0; fy < p->filter_h; ++fy, at += line - row) {
            for (const int32_t end = at + row; at < end; at += 4, x += 8) {
                fg_dsp_quad_word(from, at, x);
            }
        }
        return;
    }
    for (int32_t px = 0; px < 4; ++px) {
        uint32_t *to = x + px;
        if (from[px]) {
            for (int32_t fy = 0; fy < p->filter_h; ++fy) {
                to = fg_dsp_quad_words(from[px] + fy * line, row >> 2, to);
            }
            continue;
        }
        fg_dsp_window(p, in->image, y0[px], x0[px], in->patch, row);
        fg_dsp_quad_words(in->patch, in->pairs >> 1, to);
    }
}

/* The pixels from `first` on, as fg_dsp_folded_pairs reads them (the tiles of three after the four-pixel ones). */
typedef struct {
    const fg_dsp_folded_input *in;
    int32_t first;
} fg_dsp_folded_rest;

static void fg_dsp_folded_rest_pairs(const void *context, int32_t pixel, uint32_t *x) {
    const fg_dsp_folded_rest *rest = (const fg_dsp_folded_rest *)context;
    fg_dsp_folded_pairs(rest->in, rest->first + pixel, x);
}

/* Whether the M7's tiles of four pixels may apply: a relu layer (the output zero point -128, the clamp all of int8)
 * of an even out_c; tested before the call (the other layers' cost: a few instructions an image). */
static inline __attribute__((always_inline)) int fg_dsp_folded_quads_apply(const fg_conv2d_params *p) {
    return p->requant.output_offset == -128 && p->requant.activation_min == -128 && p->requant.activation_max == 127 &&
           !(p->out_c & 1);
}

/* The M7's tiles of four pixels (fg_dsp_quad_store_relu_doubled, _32, _20: 14 instructions for 16
 * MACs against 11 for 12 in tiles of three, and one output stage for 8 outputs) where fg_dsp_folded_quads_apply,
 * every channel is narrow and the pairs are a multiple of 16 or 20 whose four pixels fit x (3 * FG_DSP_CONV_MAX_PAIRS
 * words, the in-place kernel's): a call a tile, the last 3 * ((-pixels) % 4) pixels as tiles of three. Returns
 * whether it ran the image. Out of fg_dsp_folded_image: its code for the other layers stays as it was. */
FG_HOT_LOOP static __attribute__((noinline, flatten)) int fg_dsp_folded_quads(const fg_conv2d_params *p,
                                                                              const int8_t *image, int8_t *output,
                                                                              const fg_dsp_channel *ch, uint32_t *x) {
    const fg_requant_params q = p->requant;
    const int32_t out_c = p->out_c, pixels = p->out_h * p->out_w, threes = (4 - (pixels & 3)) & 3;
    const int32_t quads = (pixels - 3 * threes) >> 2;
    const int32_t padded_row = fg_dsp_padded_row(p), pairs = fg_dsp_folded_window_pairs(p);
    if (quads <= 0 || (pairs % 16 && pairs % 20) || 4 * pairs > 3 * FG_DSP_CONV_MAX_PAIRS) {
        return 0;
    }
    int8_t patch[2 * FG_DSP_CONV_MAX_PAIRS];
    memset(patch, 0, 2u * (uint32_t)pairs);
    FG_DSP_FOLDED_LAYER(p, image, ch, q, patch)
    if (!layer.narrow) {
        return 0;
    }
    void (*const store)(const uint32_t *, const uint32_t *, const fg_dsp_quad_job *) =
        pairs % 32 == 0 ? fg_dsp_quad_store_relu_doubled_32
                        : pairs % 16 == 0 ? fg_dsp_quad_store_relu_doubled : fg_dsp_quad_store_relu_doubled_20;
    fg_dsp_quad_job job = {(uintptr_t)ch + 4, output, out_c, x, (uintptr_t)(ch + out_c) + 4, (uintptr_t)(x + 4 * pairs),
                           0, 0, 0, 0};
    memset(x, 0, 16u * (uint32_t)pairs);  /* the pairs past depth stay zero */
    for (int32_t t = 0; t < quads; ++t) {
        fg_dsp_folded_quad(&in, 4 * t, x);
        job.out = output + 4 * t * out_c;
        store(x, layer.weights, &job);
    }
    if (threes) {
        memset(x, 0, 12u * (uint32_t)pairs);
        const fg_dsp_layer rest = {ch, layer.weights, out_c, pairs, 3 * threes, 1, &q};
        const fg_dsp_folded_rest rest_in = {&in, 4 * quads};
        fg_dsp_tiles_in_turn(&rest, ch, layer.weights, x, fg_dsp_folded_rest_pairs, 0, &rest_in,
                             output + 4 * quads * out_c);
    }
    return 1;
}
#endif

/* One image (params' batches unused); flattened: the tile loop and the extension inlined at both of
 * fg_dsp_staged_gemm's paths. */
FG_HOT_LOOP static __attribute__((flatten)) void fg_dsp_folded_image(const fg_conv2d_params *p, const int8_t *image, int8_t *output,
                                            const fg_dsp_folded_arrays *a) {
    const int32_t padded_row = fg_dsp_padded_row(p), pairs = fg_dsp_folded_window_pairs(p);
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_channel *ch = a->ch;
    uint32_t *x = a->x;
    int8_t patch[2 * FG_DSP_CONV_MAX_PAIRS];  /* 2 * pairs used */
    memset(patch, 0, 2u * (uint32_t)pairs);
    memset(x, 0, 3u * sizeof x[0] * (uint32_t)(pairs * a->tiles));  /* the pairs past depth stay zero */
    FG_DSP_FOLDED_LAYER(p, image, ch, q, patch)
    fg_dsp_staged_gemm(&layer, a->tiles, a->block, x, a->w, fg_dsp_folded_pairs, 0, &in, output);
}

#define FG_DSP_PAD_MAX 1024  /* bytes of a padded copy of the image on the stack */

/* The geometry of the image with its padding written out (the zero point) so that every window lies inside and is
 * read straight from its rows: rows *h, columns *w, the params to run it with. 0 when no window needs it, the
 * filter is dilated, the rows are not read straight, or the copy exceeds FG_DSP_PAD_MAX. */
static int fg_dsp_padded_image(const fg_conv2d_params *p, int32_t *h, int32_t *w, fg_conv2d_params *padded) {
    const int32_t padded_row = fg_dsp_padded_row(p), in_c = p->in_c;
    const int32_t bottom = (p->out_h - 1) * p->stride_h + p->filter_h;
    const int32_t right = ((p->out_w - 1) * p->stride_w * in_c + padded_row + in_c - 1) / in_c;
    if (p->dilation_h != 1 || p->dilation_w != 1 || padded_row % 4 || bottom * right * in_c > FG_DSP_PAD_MAX ||
        (p->pad_top == 0 && p->pad_left == 0 && bottom <= p->in_h && right <= p->in_w)) {
        return 0;
    }
    *h = bottom;
    *w = right;
    *padded = *p;
    padded->in_h = bottom;
    padded->in_w = right;
    padded->pad_top = padded->pad_left = 0;
    return 1;
}

#if defined(FG_CORE_CORTEX_M7)  /* the in-place kernel's images in tiles of four where they apply */
#define FG_DSP_FOLDED_IMAGE(p, image, output, a)                                                                   \
    if ((a)->w || !fg_dsp_folded_quads_apply(p) || !fg_dsp_folded_quads(p, image, output, (a)->ch, (a)->x)) {     \
        fg_dsp_folded_image(p, image, output, a);                                                                 \
    }
#else
#define FG_DSP_FOLDED_IMAGE(p, image, output, a) fg_dsp_folded_image(p, image, output, a);
#endif

/* Every image, a padded copy of it first when fg_dsp_padded_image says so. Out of line: the staged arrays' frame
 * pointer (r7) stays out of the assembly's way. */
static __attribute__((noinline)) void fg_dsp_folded_run(const fg_conv2d_params *p, const int8_t *input, int8_t *output,
                              const fg_dsp_folded_arrays *a) {
    const int32_t in_bytes = p->in_h * p->in_w * p->in_c, out_bytes = p->out_h * p->out_w * p->out_c;
    fg_conv2d_params padded;
    int32_t h, w;
    if (!fg_dsp_padded_image(p, &h, &w, &padded)) {
        for (int32_t b = 0; b < p->batches; ++b) {
            FG_DSP_FOLDED_IMAGE(p, input + b * in_bytes, output + b * out_bytes, a)
        }
        return;
    }
    int8_t copy[FG_DSP_PAD_MAX];
    const int32_t in_c = p->in_c, rows = p->in_h < h - p->pad_top ? p->in_h : h - p->pad_top;
    const int32_t cols = p->in_w < w - p->pad_left ? p->in_w : w - p->pad_left;
    for (int32_t b = 0; b < p->batches; ++b) {  /* each image copied whole before any of its outputs is stored */
        memset(copy, (int)(int8_t)-p->requant.input_offset, (size_t)(h * w * in_c));
        for (int32_t y = 0; y < rows; ++y) {
            fg_dsp_copy(copy + ((y + p->pad_top) * w + p->pad_left) * in_c, input + b * in_bytes + y * p->in_w * in_c,
                        cols * in_c);
        }
        FG_DSP_FOLDED_IMAGE(&padded, copy, output + b * out_bytes, a)
    }
}

#endif /* __ARM_FEATURE_DSP */
#endif /* FG_DSP_FOLDED_H */
