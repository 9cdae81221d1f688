/* CONV_2D with 4-bit weights on the DSP extension: the int8 variant's tile (fg/isa/dsp.h: three pixels x a channel
 * pair per pass of SMLAD on int16 weight pairs, the output stage fused) run on weights unpacked block by block.
 *
 * Output pixels go in blocks of up to `tiles` tiles of three (raster order): each tile's windows are sign-extended
 * into input pairs first (inside the image straight from its rows, else gathered with the zero point in the padding),
 * then for each block of up to `pairs` channel pairs the 4-bit weights are unpacked into the int8 layout on the stack
 * and every tile of the pixel block runs on them. A weight is unpacked once per pixel block (AND with a shifted
 * operand and SSUB16, four words a STM: about 1.2 instructions a weight) and multiplied by every pixel of it, so the
 * unpacking costs 1.2 / (3 x tiles) instructions per product against the tile's ~0.7. Both blocks are the
 * generator's (firmware_gen/ops/variants/dsp_4bit.py, dsp_blocking: bigger on a board with a 16 KB stack), and so
 * are the two arrays they size on the stack (the call's run_time_stack).
 *
 * params->packed: the pixel block's tiles and the channel block's pairs, fg_dsp_channel[out_c], then per channel pair
 * (an odd last one with a zero channel) one word per four depths q (the window's taps to a multiple of 8): nibble k
 * (k < 4) the weight + 8 of int16 word k's low lane, nibble 4 + k its high lane's, word k of the int8 layout being
 * (A[4q], A[4q+2]), (B[4q], B[4q+2]), (A[4q+1], A[4q+3]), (B[4q+1], B[4q+3]) for channels A, B of the pair. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp_tile_store.h"
#include "fg/support/window_run.h"

/* Unpacks `count` channel pairs of `words` words each (four depths a word, an even count) into the int8 layout at
 * out: each word shifted, masked and SSUB16 into four words stored by one STM (9 instructions a word), four words
 * loaded by one LDM a pass after two by themselves when the count is not a multiple of 4. */
static void fg_s4_unpack_dsp(const uint32_t *packed, int32_t count, int32_t words, uint32_t *out) {
    const uint32_t *const end = packed + count * words;
    const uint32_t lanes = 0x000F000Fu, eights = 0x00080008u;
#define FG_S4_UNPACK_WORD(w)                          \
    "and r8, %[m], " w "\n\t"                         \
    "ssub16 r8, r8, %[e]\n\t"                         \
    "and r9, %[m], " w ", lsr #4\n\t"                 \
    "ssub16 r9, r9, %[e]\n\t"                         \
    "and r10, %[m], " w ", lsr #8\n\t"                \
    "ssub16 r10, r10, %[e]\n\t"                       \
    "and r11, %[m], " w ", lsr #12\n\t"               \
    "ssub16 r11, r11, %[e]\n\t"                       \
    "stmia %[o]!, {r8-r11}\n\t"
    if ((count * words) & 2) {
        __asm__ volatile("ldmia %[p]!, {r4, r5}\n\t"
                         FG_S4_UNPACK_WORD("r4") FG_S4_UNPACK_WORD("r5")
                         : [p] "+r"(packed), [o] "+r"(out)
                         : [m] "r"(lanes), [e] "r"(eights)
                         : "r4", "r5", "r8", "r9", "r10", "r11", "memory");
    }
    if (packed != end) {
        __asm__ volatile("1:\n\t"
                         "ldmia %[p]!, {r4-r7}\n\t"
                         FG_S4_UNPACK_WORD("r4") FG_S4_UNPACK_WORD("r5") FG_S4_UNPACK_WORD("r6")
                         FG_S4_UNPACK_WORD("r7")
                         "cmp %[p], %[end]\n\t"
                         "bne 1b\n\t"
                         : [p] "+r"(packed), [o] "+r"(out)
                         : [m] "r"(lanes), [e] "r"(eights), [end] "r"(end)
                         : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory");
    }
#undef FG_S4_UNPACK_WORD
}

/* The input pairs of output pixel `pixel` into x (stride 3): a pointwise layer's straight from its pixel; a window
 * inside the image whose filter rows are whole words straight from its rows; else gathered. The pairs past the
 * window stay as they are (zero). */
static void fg_s4_extend_dsp(const fg_conv2d_params *p, const int8_t *image, int32_t pixel, int pointwise,
                             int8_t *gathered, uint32_t *x) {
    const int32_t row = p->filter_w * p->in_c;
    if (pointwise) {
        fg_dsp_extend_words(image + pixel * row, row / 4, x);
        return;
    }
    const int32_t oy = pixel / p->out_w, ox = pixel % p->out_w;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    if (row % 4 == 0 && p->dilation_w == 1 && x0 >= 0 && x0 + p->filter_w <= p->in_w && y0 >= 0 &&
        y0 + (p->filter_h - 1) * p->dilation_h < p->in_h) {
        const int32_t line = p->in_w * p->in_c * p->dilation_h;
        const int8_t *from = image + (y0 * p->in_w + x0) * p->in_c;
        for (int32_t r = 0; r < p->filter_h; ++r, from += line, x += 3 * (row / 2)) {
            fg_dsp_extend_words(from, row / 4, x);
        }
        return;
    }
    const int32_t taps = p->filter_h * row;
    fg_dsp_extend(fg_conv_window_run(p, image, oy, ox, gathered), taps, ((taps + 3) >> 2) << 1, x, 3);
}

/* The channels' output stages, after the two blocks' sizes. */
static inline const fg_dsp_channel *fg_s4_channels(const fg_conv2d_params *p) {
    return (const fg_dsp_channel *)((const int32_t *)p->packed + 2);
}

/* Channel pairs [first, first + count) of `tiles` tiles (their input pairs at x, `pairs` a tile) from the unpacked
 * weights w (the int8 variants' tile); pixels: of the last tile (the others have three). */
static void fg_s4_block_dsp(const fg_conv2d_params *p, const uint32_t *x, int32_t tiles, int32_t pixels,
                            int32_t pairs, const uint32_t *w, int32_t first, int32_t count, int narrow,
                            int8_t *output) {
    const int32_t out_c = p->out_c, channels = out_c - 2 * first < 2 * count ? out_c - 2 * first : 2 * count;
    const fg_dsp_channel *ch = fg_s4_channels(p) + 2 * first;
    for (int32_t t = 0; t < tiles; ++t, x += 3 * pairs, output += 3 * out_c) {
        fg_dsp_gemm_3_strided(x, w, pairs, ch, channels, out_c, t + 1 < tiles ? 3 : pixels, output + 2 * first,
                              &p->requant, narrow, 0);
    }
}

/* Every pixel block of the layer on its arrays: x (tiles_max tiles of input pairs), w (pairs_max unpacked channel
 * pairs). Out of line: the arrays' frame pointer (r7) would take a register the unpacking's assembly uses. */
FG_HOT_LOOP static __attribute__((noinline)) void fg_s4_conv_dsp(const fg_conv2d_params *p, const int8_t *input,
                                                                 int8_t *output, int32_t tiles_max, int32_t pairs_max,
                                                                 uint32_t *x, uint32_t *w) {
    const int32_t out_c = p->out_c, taps = p->filter_h * p->filter_w * p->in_c, pairs = ((taps + 7) >> 3) << 2;
    const int32_t per_image = p->out_h * p->out_w, in_bytes = p->in_h * p->in_w * p->in_c;
    const int32_t channel_pairs = (out_c + 1) >> 1, words = pairs >> 1;
    const uint32_t *packed = (const uint32_t *)(fg_s4_channels(p) + out_c);
    const int narrow = fg_dsp_all_narrow(fg_s4_channels(p), out_c);
    const int pointwise = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                          p->pad_top == 0 && p->pad_left == 0 && p->out_w == p->in_w && p->in_c % 4 == 0;
    int8_t *const gathered = (int8_t *)w;  /* a border window, before the block's weights are unpacked over it */
    for (int32_t k = 0; k < tiles_max * 3 * pairs; ++k) {
        x[k] = 0;  /* the pairs past a window stay zero */
    }
    for (int32_t b = 0; b < p->batches; ++b, input += in_bytes) {
        for (int32_t i = 0; i < per_image; i += 3 * tiles_max) {
            const int32_t left = per_image - i, tiles = left < 3 * tiles_max ? (left + 2) / 3 : tiles_max;
            const int32_t last = left - 3 * (tiles - 1) < 3 ? left - 3 * (tiles - 1) : 3;
            for (int32_t t = 0; t < tiles; ++t) {
                for (int32_t px = 0; px < 3; ++px) {  /* a short last tile repeats its first pixel */
                    const int32_t pixel = i + 3 * t + (t + 1 < tiles || px < last ? px : 0);
                    fg_s4_extend_dsp(p, input, pixel, pointwise, gathered, x + 3 * pairs * t + px);
                }
            }
            for (int32_t first = 0; first < channel_pairs; first += pairs_max) {
                const int32_t count = channel_pairs - first < pairs_max ? channel_pairs - first : pairs_max;
                fg_s4_unpack_dsp(packed + first * words, count, words, w);
                fg_s4_block_dsp(p, x, tiles, last, pairs, w, first, count, narrow,
                                output + (b * per_image + i) * out_c);
            }
        }
    }
}

void fg_conv2d_s4_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t pairs = ((p->filter_h * p->filter_w * p->in_c + 7) >> 3) << 2;
    const int32_t tiles_max = ((const int32_t *)p->packed)[0], pairs_max = ((const int32_t *)p->packed)[1];
    uint32_t x[tiles_max * 3 * pairs], w[pairs_max * 2 * pairs];
    (void)filter;
    fg_s4_conv_dsp(p, input, output, tiles_max, pairs_max, x, w);
}
#endif
