/* The loop of the int8 DSP convolutions (fg_conv2d_pointwise_dsp, fg_conv2d_folded_dsp) around fg/isa/dsp.h's 3 x 2
 * tile, with their weights read in place or staged in RAM.
 *
 * Output pixels go in blocks of `tiles` tiles of three (raster order): each tile's input pairs are laid out first,
 * then for each block of channel pairs every tile of the pixel block runs on its weights. In place (block 0) the
 * weights of every channel pair are read where they are, once per tile: from flash, each read pays its wait states
 * again. Staged, a block of channel pairs is copied into RAM (the stack) once per pixel block, or once per call when
 * one block holds them all, and every tile reads it there. The blocks are the generator's (ops/variants/dsp.py,
 * staging): the table's first two words. */
#ifndef FG_DSP_STAGED_H
#define FG_DSP_STAGED_H

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp_tile_store.h"

#define FG_DSP_STAGING_WORDS 2  /* the table's first words: tiles a pixel block, channel pairs a staged block */

/* `words` (a multiple of 8, at least 8) words from `from` to `to`: an odd eight first, then sixteen a pass (two LDM +
 * STM: 2.5 ESTIMATED cycles a word by the M4's timing, 2.75 at eight a pass). */
#define FG_DSP_STAGE_EIGHT                                      \
    "ldmia %[f]!, {r4, r5, r6, r7, r8, r9, r10, r11}\n\t"     \
    "stmia %[t]!, {r4, r5, r6, r7, r8, r9, r10, r11}\n\t"
static __attribute__((noinline, unused)) void fg_dsp_stage_words(const uint32_t *from, int32_t words, uint32_t *to) {
    const uint32_t *const end = from + words;
    __asm__ volatile("tst %[words], #8\n\t"
                     "beq 1f\n\t"
                     FG_DSP_STAGE_EIGHT
                     "cmp %[f], %[end]\n\t"
                     "beq 2f\n"
                     "1:\n\t"
                     FG_DSP_STAGE_EIGHT
                     FG_DSP_STAGE_EIGHT
                     "cmp %[f], %[end]\n\t"
                     "bne 1b\n"
                     "2:\n\t"
                     : [f] "+r"(from), [t] "+r"(to)
                     : [end] "r"(end), [words] "r"(words)
                     : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory");
}
#undef FG_DSP_STAGE_EIGHT

/* What a layer's tiles read: the channels' output stages, the weights (2 * pairs words a channel pair), the pixels. */
typedef struct {
    const fg_dsp_channel *ch;
    const uint32_t *weights;
    int32_t out_c, pairs, pixels;
    int narrow;  /* fg_dsp_all_narrow */
    const fg_requant_params *q;
} fg_dsp_layer;

/* Lays pixel `pixel`'s input pairs into x (stride 3). */
typedef void (*fg_dsp_pixel_pairs)(const void *context, int32_t pixel, uint32_t *x);
/* Lays the input pairs of the three pixels from `pixel` into x (pixel p's at x + p, stride 3); 0: pixel by pixel. */
typedef void (*fg_dsp_tile_pairs)(const void *context, int32_t pixel, uint32_t *x);

/* The first pixel of the tile at `start` and how many it stores: two pixels left step back over the last pixel
 * stored and store it again (the same values), keeping the tile's fast path. Its inputs are intact: no later output
 * is stored yet, and the planner's overlap keeps each output below its own window. */
static inline int32_t fg_dsp_tile_start(int32_t start, int32_t pixels, int32_t *n) {
    *n = pixels - start < 3 ? pixels - start : 3;
    if (*n == 2 && start > 0) {
        *n = 3;
        return start - 1;
    }
    return start;
}

/* The input pairs of the tile of n pixels from `start` into x: a short tile repeats its first pixel. */
static inline __attribute__((always_inline)) void fg_dsp_lay_tile(fg_dsp_pixel_pairs pixel_pairs,
                                                                  fg_dsp_tile_pairs tile_pairs, const void *context,
                                                                  int32_t start, int32_t n, uint32_t *x) {
    if (tile_pairs && n == 3) {
        tile_pairs(context, start, x);
        return;
    }
    for (int32_t px = 0; px < 3; ++px) {
        pixel_pairs(context, start + (px < n ? px : 0), x + px);
    }
}

/* Every output channel of the layer's tiles in turn, from the channels' output stages at ch and their weights. */
static inline __attribute__((always_inline)) void fg_dsp_tiles_in_turn(const fg_dsp_layer *l, const fg_dsp_channel *ch,
                                                                       const uint32_t *weights, uint32_t *x,
                                                                       fg_dsp_pixel_pairs pixel_pairs,
                                                                       fg_dsp_tile_pairs tile_pairs,
                                                                       const void *context, int8_t *output) {
    const int32_t out_c = l->out_c, pairs = l->pixels >= 3 && l->narrow && out_c >= 2 ? l->pairs : 0;
    fg_dsp_job job;  /* the whole channel pairs of a tile of three, set up once: each tile sets its out */
    const fg_dsp_tile_store_function store =
        pairs ? fg_dsp_tile_job(&job, x, pairs, ch, out_c, out_c, output, l->q) : 0;
    const int32_t last = out_c & ~1;  /* an odd last channel's, after the pairs */
    for (int32_t i = 0; i < l->pixels; i += 3) {
        int32_t n;
        const int32_t start = fg_dsp_tile_start(i, l->pixels, &n);
        int8_t *const out = output + start * out_c;
        fg_dsp_lay_tile(pixel_pairs, tile_pairs, context, start, n, x);
        if (!store || n != 3) {
            fg_dsp_gemm_3_strided(x, weights, l->pairs, ch, out_c, out_c, n, out, l->q, l->narrow);
            continue;
        }
        job.out = out;
        store(x, weights, &job);
        if (last != out_c) {
            fg_dsp_gemm_3_strided(x, weights + (out_c >> 1) * 2 * pairs, pairs, ch + last, 1, out_c, 3, out + last,
                                  l->q, 1);
        }
    }
}

/* Channel pairs [first, first + count) staged at w: their output stages (8 words a pair; an odd last channel's pair
 * reads the table's next 16 bytes, unused), then their weights. */
static inline void fg_dsp_stage_block(const fg_dsp_layer *l, int32_t first, int32_t count, uint32_t *w) {
    fg_dsp_stage_words((const uint32_t *)(l->ch + 2 * first), 8 * count, w);
    fg_dsp_stage_words(l->weights + first * 2 * l->pairs, count * 2 * l->pairs, w + 8 * count);
}

/* fg_dsp_block_tiles on the M4 and the M33 (the M7's and the M55's tiles each through fg_dsp_gemm_3_strided). */
#if !defined(FG_CORE_CORTEX_M7) && !defined(__ARM_FEATURE_MVE)
#define FG_DSP_BLOCK_TILES 1
#else
#define FG_DSP_BLOCK_TILES 0
#endif
#if FG_DSP_BLOCK_TILES
/* The `tiles` (> 1) tiles of three at x (3 * pairs words a tile, the first's outputs at out, each next 3 strides on) by
 * one call of `store` for the job's channel pairs, where it runs several: the M33's stores for 32 and 64 pairs
 * (FG_DSP_SHORT_NEXT_X) and the M4's general ones (fg_dsp_tile_store_doubled_tiles, _relu_doubled_tiles); 0 for the
 * others. */
static inline __attribute__((always_inline)) int fg_dsp_store_tiles(fg_dsp_tile_store_function store, fg_dsp_job *job,
                                                                    const uint32_t *x, const uint32_t *weights,
                                                                    int32_t pairs, int32_t tiles, int8_t *out) {
#if FG_DSP_DEEP_SHORT_STORES
    if (((pairs - 32) & ~32) == 0) {
        job->x = x;
        job->out = out;
        job->passes = tiles;
        job->entry = (int32_t)(uintptr_t)(out + 3 * job->stride);
        store(x, weights, job);
        job->passes = 1;
        return 1;
    }
#endif
#if FG_DSP_TILES_STORES
    const int relu = store == fg_dsp_tile_store_relu_doubled;
    if (!relu && store != fg_dsp_tile_store_doubled) {
        return 0;
    }
    job->x = x;
    job->out = out;
    const fg_dsp_tiles_job tiled = {*job, tiles, 12 * pairs, job->ch, weights};
    (relu ? fg_dsp_tile_store_relu_doubled_tiles : fg_dsp_tile_store_doubled_tiles)(x, weights, &tiled);
    return 1;
#else
    (void)store, (void)job, (void)x, (void)weights, (void)pairs, (void)tiles, (void)out;
    return 0;
#endif
}
/* The last channel of an odd count (`whole` the channels before it) of the tile at x, outputs at out. */
#define FG_DSP_ODD_CHANNEL(x, out)                                                                                \
    if (whole != channels) {                                                                                      \
        fg_dsp_gemm_3_strided(x, weights + (channels >> 1) * 2 * pairs, pairs, ch + whole, 1, out_c, 3,           \
                              (out) + whole, l->q, 1);                                                            \
    }
/* The `count` tiles of the pixel block from pixel i (their input pairs at x, 3 * pairs words a tile) on the staged
 * block at w of pairs_here channel pairs (`channels` channels, the first's outputs at output), the whole tiles'
 * channel pairs by one tile store whose job is set up once for the block (each tile setting its x and out; per
 * call its set-up cost ~100 ESTIMATED cycles on the M33; the M33's stores for 32 and 64 pairs run the block's whole
 * tiles in one call, FG_DSP_SHORT_NEXT_X), the rest by fg_dsp_gemm_3_strided. */
static inline __attribute__((always_inline)) void fg_dsp_block_tiles(const fg_dsp_layer *l, int32_t i, int32_t count,
                                                                     const uint32_t *x, const uint32_t *w,
                                                                     int32_t pairs_here, int32_t channels,
                                                                     int8_t *output) {
    const int32_t pairs = l->pairs, out_c = l->out_c, whole = channels & ~1;
    const fg_dsp_channel *ch = (const fg_dsp_channel *)w;
    const uint32_t *weights = w + 8 * pairs_here;
    const int store_pairs = l->narrow && whole;
    fg_dsp_job job;
    const fg_dsp_tile_store_function store =
        store_pairs ? fg_dsp_tile_job(&job, x, pairs, ch, channels, out_c, output, l->q) : 0;
    int32_t t = 0;
    const int32_t uniform = (l->pixels - i) / 3 < count ? (l->pixels - i) / 3 : count;  /* tiles of three from i */
    if (store_pairs) {
        int8_t *out = output + i * out_c;
        if (uniform > 1 && fg_dsp_store_tiles(store, &job, x, weights, pairs, uniform, out)) {
            for (; whole != channels && t < uniform; ++t) {
                FG_DSP_ODD_CHANNEL(x + 3 * pairs * t, out + 3 * out_c * t)
            }
            t = uniform;
        }
        for (const uint32_t *xt = x + 3 * pairs * t; t < uniform; ++t, xt += 3 * pairs) {  /* tiles at i + 3 t */
            int8_t *const tile_out = out + 3 * out_c * t;
            job.x = xt;
            job.out = tile_out;
            store(xt, weights, &job);
            FG_DSP_ODD_CHANNEL(xt, tile_out)
        }
    }
    for (; t < count; ++t) {
        int32_t n;
        const uint32_t *const xt = x + 3 * pairs * t;
        int8_t *const out = output + fg_dsp_tile_start(i + 3 * t, l->pixels, &n) * out_c;
        if (!store_pairs || n != 3) {
            fg_dsp_gemm_3_strided(xt, weights, pairs, ch, channels, out_c, n, out, l->q, l->narrow);
            continue;
        }
        job.x = xt;
        job.out = out;
        store(xt, weights, &job);
        FG_DSP_ODD_CHANNEL(xt, out)
    }
}
#undef FG_DSP_ODD_CHANNEL
#endif

/* The `count` tiles of the pixel block from pixel i (their input pairs at x, 3 * pairs words a tile) on the staged
 * block at w (its pairs_here channel pairs' output stages, then their weights; `channels` channels, the first's
 * outputs at output): by fg_dsp_block_tiles where the core has it, else each tile by fg_dsp_gemm_3_strided. The int8
 * staged kernels' and the 4-bit convolution's (conv2d_s4_dsp.c) blocks. */
static inline __attribute__((always_inline)) void fg_dsp_run_block(const fg_dsp_layer *l, int32_t i, int32_t count,
                                                                   const uint32_t *x, const uint32_t *w,
                                                                   int32_t pairs_here, int32_t channels,
                                                                   int8_t *output) {
#if FG_DSP_BLOCK_TILES
    fg_dsp_block_tiles(l, i, count, x, w, pairs_here, channels, output);
#else
    for (int32_t t = 0; t < count; ++t) {
        int32_t n;
        const int32_t start = fg_dsp_tile_start(i + 3 * t, l->pixels, &n);
        fg_dsp_gemm_3_strided(x + 3 * l->pairs * t, w + 8 * pairs_here, l->pairs, (const fg_dsp_channel *)w,
                              channels, l->out_c, n, output + start * l->out_c, l->q, l->narrow);
    }
#endif
}

/* Every output of the layer: pixel blocks of `tiles` tiles (x holds 3 * pairs words a tile), channel blocks of
 * `block` channel pairs staged at w (block * (8 + 2 * pairs) words; block 0: one block, read in place). One tile a
 * block with one channel block: the tiles in turn on the table staged once. */
static inline __attribute__((always_inline)) void fg_dsp_staged_gemm(const fg_dsp_layer *l, int32_t tiles,
                                                                     int32_t block, uint32_t *x, uint32_t *w,
                                                                     fg_dsp_pixel_pairs pixel_pairs,
                                                                     fg_dsp_tile_pairs tile_pairs,
                                                                     const void *context, int8_t *output) {
    const int32_t out_c = l->out_c, pairs = l->pairs, pixels = l->pixels, channel_pairs = (out_c + 1) >> 1;
    if (!block || (tiles == 1 && block >= channel_pairs)) {
        if (block) {
            fg_dsp_stage_block(l, 0, channel_pairs, w);
        }
        fg_dsp_tiles_in_turn(l, block ? (const fg_dsp_channel *)w : l->ch,
                             block ? w + 8 * channel_pairs : l->weights, x, pixel_pairs, tile_pairs, context, output);
        return;
    }
    int32_t staged = -1;  /* the first channel pair of the block at w */
    for (int32_t i = 0; i < pixels; i += 3 * tiles) {
        const int32_t count = (pixels - i + 2) / 3 < tiles ? (pixels - i + 2) / 3 : tiles;
        for (int32_t t = 0; t < count; ++t) {
            int32_t n;
            const int32_t start = fg_dsp_tile_start(i + 3 * t, pixels, &n);
            fg_dsp_lay_tile(pixel_pairs, tile_pairs, context, start, n, x + 3 * pairs * t);
        }
        for (int32_t first = 0; first < channel_pairs; first += block) {
            const int32_t pairs_here = channel_pairs - first < block ? channel_pairs - first : block;
            if (staged != first) {
                fg_dsp_stage_block(l, first, pairs_here, w);
                staged = first;
            }
            const int32_t channels = out_c - 2 * first < 2 * pairs_here ? out_c - 2 * first : 2 * pairs_here;
            fg_dsp_run_block(l, i, count, x, w, pairs_here, channels, output + 2 * first);
        }
    }
}

#endif /* __ARM_FEATURE_DSP */
#endif /* FG_DSP_STAGED_H */
