/* fg/isa/dsp_pointwise.h's loops of the int8 DSP 1x1 convolutions, one copy per firmware. */
#include "fg/isa/dsp_pointwise.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"
#include "fg/support/hot_loop.h"
#include "fg/isa/dsp_staged.h"
#if defined(FG_CORE_CORTEX_M7)
#include "fg/variants_dsp.h"  /* FG_DSP_CONV_MAX_PAIRS: fg_conv2d_pointwise_dsp's x */
#endif

typedef struct {
    const int8_t *input;
    int32_t depth, pairs;
} fg_dsp_pointwise_input;

static __attribute__((flatten)) void fg_dsp_pointwise_pairs(const void *context, int32_t pixel, uint32_t *x) {
    const fg_dsp_pointwise_input *in = (const fg_dsp_pointwise_input *)context;
    fg_dsp_extend(in->input + pixel * in->depth, in->depth, in->pairs, x, 3);
}

/* The input pairs of the three pixels from `pixel` (consecutive rows of depth int8) into x, pixel p's at x + p
 * (stride 3), when the depth is a multiple of 4: per word of the three, 3 LDR, 6 SXTB16, one STM of the six pairs
 * (x[6k .. 6k + 5]: the three pixels' even pairs, then their odd ones), two words a pass, instead of fg_dsp_extend
 * pixel by pixel; a depth of 8 q + 4 is padded with a zero word. */
static __attribute__((flatten)) void fg_dsp_pointwise_tile(const void *context, int32_t pixel, uint32_t *x) {
    const fg_dsp_pointwise_input *in = (const fg_dsp_pointwise_input *)context;
    const int32_t depth = in->depth;
    if (depth & 3) {
        for (int32_t px = 0; px < 3; ++px) {
            fg_dsp_extend(in->input + (pixel + px) * depth, depth, in->pairs, x + px, 3);
        }
        return;
    }
    const int8_t *from = in->input + pixel * depth;
    const int8_t *const end = from + depth;
    uint32_t *to = x;
#define FG_DSP_TILE_WORD                            \
    "ldr r5, [%[f], %[d]]\n\t"                       \
    "ldr r6, [%[f], %[d], lsl #1]\n\t"               \
    "ldr r4, [%[f]], #4\n\t"                         \
    FG_DSP_EXTEND_THREE_WORDS("%[x]")
#if defined(FG_CORE_CORTEX_M7)
    /* The Cortex-M7 (FG_CORE_CORTEX_M7): two words a pass by loads at offsets (the second word's into r10-r12) and
     * STMs without write-back, each SXTB16 issued with a load, an STM's address or the loop's compare (llvm-mca
     * cortex-m7: 17 cycles a pass, hill-climbed, against 20 and a write-back STM's stalls in the order below). */
#define FG_DSP_TILE_WORDS_2                         \
    "ldr r4, [%[f]]\n\t"                            \
    "ldr r5, [%[f], %[d]]\n\t"                      \
    "ldr r6, [%[f], %[d], lsl #1]\n\t"              \
    "add %[f], %[f], #4\n\t"                        \
    "sxtb16 r8, r5, ror #8\n\t"                     \
    "sxtb16 r7, r4, ror #8\n\t"                     \
    "sxtb16 r9, r6, ror #8\n\t"                     \
    "ldr r12, [%[f], %[d], lsl #1]\n\t"             \
    "sxtb16 r4, r4\n\t"                             \
    "sxtb16 r5, r5\n\t"                             \
    "ldr r11, [%[f], %[d]]\n\t"                     \
    "sxtb16 r6, r6\n\t"                             \
    "ldr r10, [%[f]]\n\t"                           \
    "stm %[x], {r4, r5, r6, r7, r8, r9}\n\t"        \
    "sxtb16 r9, r12, ror #8\n\t"                    \
    "sxtb16 r6, r12\n\t"                            \
    "sxtb16 r4, r10\n\t"                            \
    "add %[f], %[f], #4\n\t"                        \
    "sxtb16 r8, r11, ror #8\n\t"                    \
    "add %[x], %[x], #24\n\t"                       \
    "sxtb16 r7, r10, ror #8\n\t"                    \
    "cmp %[f], %[end]\n\t"                          \
    "sxtb16 r5, r11\n\t"                            \
    "stm %[x], {r4, r5, r6, r7, r8, r9}\n\t"        \
    "add %[x], %[x], #24\n\t"
#define FG_DSP_TILE_SCRATCH "r10", "r11", "r12",
#else
#define FG_DSP_TILE_WORDS_2 FG_DSP_TILE_WORD FG_DSP_TILE_WORD "cmp %[f], %[end]\n\t"
#define FG_DSP_TILE_SCRATCH
#endif
    __asm__ volatile("tst %[d], #4\n\t"  /* an odd word count (depth 8 q + 4): one word first, a zero word last */
                     "beq 1f\n\t"
                     FG_DSP_TILE_WORD
                     "1:\n\t"
                     "cmp %[f], %[end]\n\t"
                     "beq 3f\n"
                     "2:\n\t"
                     FG_DSP_TILE_WORDS_2
                     "bne 2b\n"
                     "3:\n\t"
                     "tst %[d], #4\n\t"
                     "beq 4f\n\t"
                     "movs r4, #0\n\t"
                     "movs r5, #0\n\t"
                     "movs r6, #0\n\t"
                     "movs r7, #0\n\t"
                     "movs r8, #0\n\t"
                     "movs r9, #0\n\t"
                     "stm %[x]!, {r4, r5, r6, r7, r8, r9}\n"
                     "4:\n\t"
                     : [f] "+r"(from), [x] "+r"(to)
                     : [d] "r"(depth), [end] "r"(end)
                     : "r4", "r5", "r6", "r7", "r8", "r9", FG_DSP_TILE_SCRATCH "cc", "memory");
#undef FG_DSP_TILE_WORD
#undef FG_DSP_TILE_WORDS_2
#undef FG_DSP_TILE_SCRATCH
}

/* The layer of the table at ch with its weights. q: the requantization's local copy (the int8 stores may alias
 * params). */
static inline fg_dsp_layer fg_dsp_pointwise_layer(const fg_conv2d_params *p, const fg_dsp_channel *ch,
                                                  const uint32_t *weights, const fg_requant_params *q) {
    const fg_dsp_layer layer = {ch, weights, p->out_c, ((p->in_c + 7) >> 3) << 2, p->batches * p->out_h * p->out_w,
                                fg_dsp_all_narrow(ch, p->out_c), q};
    return layer;
}

/* The layer's tiles in turn on the table at ch with its weights (the weights read in place or staged whole): the
 * whole tiles of three pixels (a last tile of two stepping back over one pixel, as fg_dsp_tile_start) through the
 * tile store in a loop of their own, the rest (a last pixel; every pixel where the store does not apply) by
 * fg_dsp_tiles_in_turn, whose loop takes each tile's start and short-tile path (~75 cycles a tile on the M33).
 * Where the short tile stores run 2 * pairs inputs (in_c 8 or 16), all the whole tiles but the M7's in one call
 * (FG_DSP_SHORT_NEXT_TILE): vww_96_int8 step 2 has 768 tiles of 8 channel pairs each. */
static inline __attribute__((always_inline)) void fg_dsp_pointwise_in_turn(const fg_dsp_layer *l,
                                                                           const fg_dsp_channel *ch,
                                                                           const uint32_t *weights, uint32_t *x,
                                                                           const fg_dsp_pointwise_input *in,
                                                                           int8_t *output) {
    const int32_t out_c = l->out_c, pixels = l->pixels;
    int32_t done = 0;
    if (pixels >= 3 && l->narrow && out_c >= 2 && !(out_c & 1)) {
        fg_dsp_job job;
        fg_dsp_tile_store_function store = fg_dsp_tile_job(&job, x, l->pairs, ch, out_c, out_c, output, l->q);
        const int32_t left = pixels % 3, last = pixels - 3;
        int32_t start = 0;
#if !defined(FG_CORE_CORTEX_M7)
        if (l->pairs == 16) {  /* fg_dsp_tile_job's passes 1 and the relu's choice hold for it */
            store = store == fg_dsp_tile_store_relu_doubled ? fg_dsp_tile_store_relu_doubled_16
                                                            : fg_dsp_tile_store_doubled_16;
        }
        if (in->depth == 2 * l->pairs && (l->pairs == 4 || l->pairs == 8 || l->pairs == 16)) {
            /* the short stores' tiles in one call */
            fg_dsp_pointwise_tile(in, 0, x);
            job.out = output;
            job.passes = pixels / 3;
            job.entry = (int32_t)(uintptr_t)(in->input + 3 * in->depth);
            store(x, weights, &job);
            start = pixels - left;
            job.passes = 1;  /* a tile a call again */
        }
#endif
        for (;; start += 3) {
            if (start > last) {  /* past the whole tiles: two pixels left step back over one */
                if (left != 2 || start == last + 3) {
                    break;
                }
                start = last;
            }
            fg_dsp_pointwise_tile(in, start, x);
            job.out = output + start * out_c;
            store(x, weights, &job);
        }
        done = left == 1 ? pixels - 1 : pixels;
    }
    if (done < pixels) {
        const fg_dsp_layer rest = {l->ch, l->weights, out_c, l->pairs, pixels - done, l->narrow, l->q};
        const fg_dsp_pointwise_input rest_in = {in->input + done * in->depth, in->depth, in->pairs};
        fg_dsp_tiles_in_turn(&rest, ch, weights, x, fg_dsp_pointwise_pairs, fg_dsp_pointwise_tile, &rest_in,
                             output + done * out_c);
    }
}

#if defined(FG_CORE_CORTEX_M7)
/* The input pairs of the four pixels from `pixel` into x (pixel p's pair g at x[4 g + p]), the depth a multiple of
 * 32: per word of the four, 4 LDR and FG_DSP_EXTEND_FOUR_WORDS. */
static inline __attribute__((always_inline)) void fg_dsp_pointwise_quad(const fg_dsp_pointwise_input *in,
                                                                        int32_t pixel, uint32_t *x) {
    const int32_t depth = in->depth;
    const int8_t *from = in->input + pixel * depth, *far = from + 2 * depth;
    const int8_t *const end = from + depth;
    __asm__ volatile("1:\n\t"
                     "ldr r4, [%[f]]\n\t"
                     "ldr r5, [%[f], %[d]]\n\t"
                     "ldr r6, [%[g]]\n\t"
                     "ldr r7, [%[g], %[d]]\n\t"
                     FG_DSP_EXTEND_FOUR_WORDS("%[x]", "add %[f], %[f], #4\n\t", "add %[g], %[g], #4\n\t",
                                              "cmp %[f], %[end]\n\t")
                     "bne 1b\n\t"
                     : [f] "+r"(from), [g] "+r"(far), [x] "+r"(x)
                     : [d] "r"(depth), [end] "r"(end)
                     : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory");
}

/* The M7's tiles of four pixels (fg_dsp_quad_store_relu_doubled*) where they apply: a relu layer of narrow channels,
 * an even out_c, a depth of 8 to 128, a power of 2 (every tile in one call), or a multiple of 32 whose four pixels'
 * pairs fit x (3 * FG_DSP_CONV_MAX_PAIRS words). The last 3 * ((-pixels) % 4) pixels as whole tiles of three (per
 * pixel ~2 % more cycles than four's in llvm-mca's cortex-m7 model, against a tile of three a pixel or two left would
 * cost). Returns whether it ran the layer. */
static inline __attribute__((always_inline)) int fg_dsp_pointwise_quads(const fg_dsp_layer *l,
                                                                        const fg_dsp_pointwise_input *in,
                                                                        uint32_t *x, int8_t *output) {
    const fg_requant_params *q = l->q;
    const int32_t out_c = l->out_c, depth = in->depth, threes = (4 - (l->pixels & 3)) & 3;
    const int32_t quads = (l->pixels - 3 * threes) >> 2;
    if (quads <= 0 || !l->narrow || (out_c & 1) || ((depth & 31) && depth != 8 && depth != 16) ||
        4 * l->pairs > 3 * FG_DSP_CONV_MAX_PAIRS || q->activation_min != -128 || q->activation_max != 127 ||
        q->output_offset != -128) {
        return 0;
    }
    const uintptr_t ch = (uintptr_t)l->ch + 4;
    fg_dsp_quad_job job = {ch, output, out_c, x, (uintptr_t)(l->ch + out_c) + 4, (uintptr_t)(x + 4 * l->pairs),
                           in->input + 4 * depth, ch, l->weights, output};
    fg_dsp_pointwise_quad(in, 0, x);
    if (depth <= 64 || depth == 128) {  /* 8, 16, 32, 64 or 128: the short stores, every tile in one call */
        static void (*const short_stores[5])(const uint32_t *, const uint32_t *, const fg_dsp_quad_job *) = {
            fg_dsp_quad_store_relu_doubled_4, fg_dsp_quad_store_relu_doubled_8, fg_dsp_quad_store_relu_doubled_16,
            fg_dsp_quad_store_relu_doubled_32s, fg_dsp_quad_store_relu_doubled_64s};
        job.x_end = (uintptr_t)quads;
        short_stores[__builtin_ctz((uint32_t)depth) - 3](x, l->weights, &job);
    } else {
        void (*const store)(const uint32_t *, const uint32_t *, const fg_dsp_quad_job *) =
            depth & 63 ? fg_dsp_quad_store_relu_doubled : fg_dsp_quad_store_relu_doubled_32;
        for (int32_t t = 0;;) {
            store(x, l->weights, &job);
            if (++t == quads) {
                break;
            }
            fg_dsp_pointwise_quad(in, 4 * t, x);
            job.out = output + 4 * t * out_c;
        }
    }
    if (threes) {
        const int32_t start = 4 * quads;
        const fg_dsp_layer rest = {l->ch, l->weights, out_c, l->pairs, 3 * threes, 1, q};
        const fg_dsp_pointwise_input rest_in = {in->input + start * depth, depth, in->pairs};
        fg_dsp_pointwise_in_turn(&rest, l->ch, l->weights, x, &rest_in, output + start * out_c);
    }
    return 1;
}
#endif

/* Out of line: the staged arrays' frame pointer (r7) stays out of the assembly's way; flattened: the tile loop and
 * the extension inlined. */
FG_HOT_LOOP __attribute__((noinline, flatten))
void fg_dsp_pointwise_tiles(const fg_conv2d_params *p, const int8_t *input, int8_t *output, const fg_dsp_channel *ch,
                            const uint32_t *weights, uint32_t *x) {
    const fg_requant_params q = p->requant;
    const fg_dsp_layer layer = fg_dsp_pointwise_layer(p, ch, weights, &q);
    const fg_dsp_pointwise_input in = {input, p->in_c, layer.pairs};
#if defined(FG_CORE_CORTEX_M7)
    if (fg_dsp_pointwise_quads(&layer, &in, x, output)) {
        return;
    }
#endif
    fg_dsp_pointwise_in_turn(&layer, ch, weights, x, &in, output);
}

/* The staged kernel's: its tiles in turn inlined again rather than a call of fg_dsp_pointwise_tiles, whose loop
 * GCC allocates registers for less well there (vww_96_int8's staged steps 2-10 on the M4: ~6 cycles a tile more).
 * A table staged whole once (or read in place) runs as fg_dsp_pointwise_tiles, other blocks by fg_dsp_staged_gemm. */
FG_HOT_LOOP __attribute__((noinline, flatten))
void fg_dsp_pointwise_run(const fg_conv2d_params *p, const int8_t *input, int8_t *output, const fg_dsp_channel *ch,
                          int32_t tiles, int32_t block, uint32_t *x, uint32_t *w) {
    const fg_requant_params q = p->requant;
    const fg_dsp_layer layer = fg_dsp_pointwise_layer(p, ch, (const uint32_t *)(ch + p->out_c), &q);
    const fg_dsp_pointwise_input in = {input, p->in_c, layer.pairs};
    const int32_t channel_pairs = (p->out_c + 1) >> 1;
    if (block && (tiles != 1 || block < channel_pairs)) {
        fg_dsp_staged_gemm(&layer, tiles, block, x, w, fg_dsp_pointwise_pairs, fg_dsp_pointwise_tile, &in, output);
        return;
    }
    if (block) {
        fg_dsp_stage_block(&layer, 0, channel_pairs, w);
    }
    fg_dsp_pointwise_in_turn(&layer, block ? (const fg_dsp_channel *)w : ch, block ? w + 8 * channel_pairs : layer.weights,
                             x, &in, output);
}

#endif
