/* CONV_2D with 4-bit weights on the DSP extension: the int8 variants' tiles (fg/isa/dsp.h: three pixels x a channel
 * pair per pass of SMLAD on int16 weight pairs, the output stage fused) run on weights unpacked into the int8 layout
 * on the stack, with their output stages staged beside them (fg/isa/dsp_staged.h's staged block), doubled where
 * every channel is narrow (the int8 variants' doubled tiles; the generator doubles those layers' biases).
 *
 * A pointwise layer of narrow channels whose unpacked weights fit the channel block runs as the int8 pointwise kernel
 * on them (fg_dsp_pointwise_run: its tile stores, the M33's and M4's short stores a layer's tiles a call, the M7's
 * four-pixel tiles), its weights unpacked once. Otherwise output pixels go in blocks of up to `tiles` tiles of three
 * (fg_dsp_tile_start's, raster order): each tile's windows are sign-extended into input pairs first (a pointwise
 * layer's three pixels a word, a window inside the image straight from its rows, else gathered with the zero point in
 * the padding), then for each block of up to `pairs` channel pairs the weights are unpacked and every tile of the
 * pixel block runs on them (fg_dsp_block_tiles on the M4 and the M33). A weight is unpacked once per pixel block
 * (7 instructions a word of 8: ~0.9 a weight) and multiplied by every pixel of it, so the unpacking costs
 * 0.9 / (3 x tiles) instructions per product against the tile's ~0.7. Both blocks are the generator's
 * (firmware_gen/ops/variants/dsp_4bit.py, dsp_blocking: bigger on a board with a 16 KB stack), and so are the two
 * arrays they size on the stack (the call's run_time_stack).
 *
 * params->packed: the pixel block's tiles and the channel block's pairs, fg_dsp_channel[out_c], then per channel pair
 * (an odd last one with a zero channel) one word per four depths q (the window's taps to a multiple of 8): nibble k
 * (k < 4) the weight + 8 of int16 word k's low lane, nibble 4 + k its high lane's, word k of the int8 layout being
 * (A[4q], A[4q+2]), (B[4q], B[4q+2]), (A[4q+1], A[4q+3]), (B[4q+1], B[4q+3]) for channels A, B of the pair. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp_pointwise.h"
#include "fg/isa/dsp_staged.h"
#include "fg/support/window_run.h"

/* One word of 8 weights (w) unpacked into four int16 pair words stored by one STM (7 instructions a word): shifted
 * by SHIFT0 and masked, its bytes are nibbles 0, 2, 4, 6 (four bits each), by SHIFT1 nibbles 1, 3, 5, 7, and
 * SXTAB16 of the bytes 0 and 2 (or, rotated, 1 and 3) onto the lanes of %[e] (minus the eights) gives word 0 and 2 (1
 * and 3). */
#define FG_S4_UNPACK_WORD(w, SHIFT0, SHIFT1)          \
    "and r10, %[m], " w SHIFT0 "\n\t"                 \
    "sxtab16 r8, %[e], r10\n\t"                       \
    "sxtab16 r10, %[e], r10, ror #8\n\t"              \
    "and r11, %[m], " w SHIFT1 "\n\t"                 \
    "sxtab16 r9, %[e], r11\n\t"                       \
    "sxtab16 r11, %[e], r11, ror #8\n\t"              \
    "stmia %[o]!, {r8-r11}\n\t"
/* Unpacks packed[0, words) (a multiple of 2) into out: two words by themselves when not a multiple of 4, then four
 * loaded by one LDM a pass. The bytes masked by MASK plus EIGHTS: the weights, or doubled (the nibbles shifted one
 * bit less far to the right). */
#define FG_S4_UNPACK(SHIFTS, MASK, EIGHTS)                                                                          \
    do {                                                                                                            \
        const uint32_t *const end = packed + words;                                                                 \
        const uint32_t bytes = MASK, eights = EIGHTS;                                                               \
        if (words & 2) {                                                                                            \
            __asm__ volatile("ldmia %[p]!, {r4, r5}\n\t"                                                            \
                             FG_S4_UNPACK_WORD("r4", SHIFTS) FG_S4_UNPACK_WORD("r5", SHIFTS)                        \
                             : [p] "+r"(packed), [o] "+r"(out)                                                      \
                             : [m] "r"(bytes), [e] "r"(eights)                                                      \
                             : "r4", "r5", "r8", "r9", "r10", "r11", "memory");                                     \
        }                                                                                                           \
        if (packed != end) {                                                                                        \
            __asm__ volatile("1:\n\t"                                                                               \
                             "ldmia %[p]!, {r4-r7}\n\t"                                                             \
                             FG_S4_UNPACK_WORD("r4", SHIFTS) FG_S4_UNPACK_WORD("r5", SHIFTS)                        \
                             FG_S4_UNPACK_WORD("r6", SHIFTS) FG_S4_UNPACK_WORD("r7", SHIFTS)                        \
                             "cmp %[p], %[end]\n\t"                                                                 \
                             "bne 1b\n\t"                                                                           \
                             : [p] "+r"(packed), [o] "+r"(out)                                                      \
                             : [m] "r"(bytes), [e] "r"(eights), [end] "r"(end)                                      \
                             : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory");                   \
        }                                                                                                           \
    } while (0)
#define FG_S4_SHIFTS "", ", lsr #4"
#define FG_S4_SHIFTS_DOUBLED ", lsl #1", ", lsr #3"

/* Channel pairs [first, first + count) into w: their output stages (8 words a pair, fg/isa/dsp_staged.h's staged
 * block: an odd last channel's pair reads the table's next 16 bytes, unused) at w + lead, their weights unpacked at
 * w + 8 * count, doubled when every channel is narrow (the int8 variants' doubled tiles; the generator doubled
 * their biases). */
static void fg_s4_unpack_dsp(const fg_dsp_channel *ch, const uint32_t *packed, int32_t first, int32_t count,
                             int32_t words, int doubled, int32_t lead, uint32_t *w) {
    fg_dsp_stage_words((const uint32_t *)(ch + 2 * first), 8 * count, w + lead);
    uint32_t *out = w + 8 * count;
    packed += first * words;
    words *= count;
    if (doubled) {
        FG_S4_UNPACK(FG_S4_SHIFTS_DOUBLED, 0x1E1E1E1Eu, 0xFFF0FFF0u);
    } else {
        FG_S4_UNPACK(FG_S4_SHIFTS, 0x0F0F0F0Fu, 0xFFF8FFF8u);
    }
}
#undef FG_S4_UNPACK_WORD
#undef FG_S4_UNPACK
#undef FG_S4_SHIFTS
#undef FG_S4_SHIFTS_DOUBLED

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

/* The input pairs of the three pixels from `pixel` of a pointwise layer (consecutive rows of in_c, a multiple of 4)
 * into x, pixel p's at x + p (stride 3): per word of the three, 3 LDR and FG_DSP_EXTEND_THREE_WORDS, two words a
 * pass after an odd one. */
static void fg_s4_extend_tile_dsp(const int8_t *from, int32_t depth, uint32_t *x) {
    const int8_t *const end = from + depth;
#define FG_S4_TILE_WORD                   \
    "ldr r5, [%[f], %[d]]\n\t"             \
    "ldr r6, [%[f], %[d], lsl #1]\n\t"     \
    "ldr r4, [%[f]], #4\n\t"               \
    FG_DSP_EXTEND_THREE_WORDS("%[x]")
    __asm__ volatile("tst %[d], #4\n\t"
                     "beq 1f\n\t"
                     FG_S4_TILE_WORD
                     "cmp %[f], %[end]\n\t"
                     "beq 2f\n"
                     "1:\n\t"
                     FG_S4_TILE_WORD
                     FG_S4_TILE_WORD
                     "cmp %[f], %[end]\n\t"
                     "bne 1b\n"
                     "2:\n\t"
                     : [f] "+r"(from), [x] "+r"(x)
                     : [d] "r"(depth), [end] "r"(end)
                     : "r4", "r5", "r6", "r7", "r8", "r9", "cc", "memory");
#undef FG_S4_TILE_WORD
}

/* The channels' output stages, after the two blocks' sizes. */
static inline const fg_dsp_channel *fg_s4_channels(const fg_conv2d_params *p) {
    return (const fg_dsp_channel *)((const int32_t *)p->packed + 2);
}

/* The pixel block's tiles from pixel i (count of them, fg_dsp_tile_start's) into x, 3 * pairs words a tile. */
static void fg_s4_lay_dsp(const fg_conv2d_params *p, const int8_t *image, const fg_dsp_layer *l, int32_t i,
                          int32_t count, int pointwise, int8_t *gathered, uint32_t *x) {
    for (int32_t t = 0; t < count; ++t, x += 3 * l->pairs) {
        int32_t n;
        const int32_t start = fg_dsp_tile_start(i + 3 * t, l->pixels, &n);
        if (pointwise && n == 3) {
            fg_s4_extend_tile_dsp(image + start * p->in_c, p->in_c, x);
            continue;
        }
        for (int32_t px = 0; px < 3; ++px) {  /* a short tile repeats its first pixel */
            fg_s4_extend_dsp(p, image, start + (px < n ? px : 0), pointwise, gathered, x + px);
        }
    }
}

/* Every pixel block of the layer on its arrays: x (tiles_max tiles of input pairs), w (pairs_max channel pairs'
 * output stages and unpacked weights). A pointwise layer of narrow channels whose weights w holds whole runs as the
 * int8 pointwise kernel on them (fg_dsp_pointwise_run), its images one. Out of line: the arrays' frame pointer (r7)
 * would take a register the unpacking's assembly uses. */
FG_HOT_LOOP static __attribute__((noinline)) void fg_s4_conv_dsp(const fg_conv2d_params *p, const int8_t *input,
                                                                 int8_t *output, int32_t tiles_max, int32_t pairs_max,
                                                                 uint32_t *x, uint32_t *w) {
    const int32_t out_c = p->out_c, taps = p->filter_h * p->filter_w * p->in_c, pairs = ((taps + 7) >> 3) << 2;
    const int32_t per_image = p->out_h * p->out_w, in_bytes = p->in_h * p->in_w * p->in_c;
    const int32_t channel_pairs = (out_c + 1) >> 1, words = pairs >> 1;
    const fg_dsp_channel *const ch = fg_s4_channels(p);
    const uint32_t *packed = (const uint32_t *)(ch + out_c);
    const fg_requant_params q = p->requant;
    const int narrow = fg_dsp_all_narrow(ch, out_c);
    const int pointwise = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                          p->pad_top == 0 && p->pad_left == 0 && p->out_w == p->in_w && p->in_c % 4 == 0;
    if (pointwise && narrow && pairs_max >= channel_pairs) {  /* its table: out_c output stages, then the weights */
        fg_s4_unpack_dsp(ch, packed, 0, channel_pairs, words, 1, 4 * (out_c & 1), w);
        fg_dsp_pointwise_run(p, input, output, (const fg_dsp_channel *)(w + 4 * (out_c & 1)), 0, 0, x, 0);
        return;
    }
    int8_t *const gathered = (int8_t *)w;  /* a border window, before the block's weights are unpacked over it */
    for (int32_t k = 0; k < tiles_max * 3 * pairs && taps % 8; ++k) {
        x[k] = 0;  /* the pairs past a window stay zero */
    }
    /* a pointwise layer's images are one run of pixels */
    const int32_t images = pointwise ? 1 : p->batches, pixels = pointwise ? p->batches * per_image : per_image;
    const fg_dsp_layer l = {ch, packed, out_c, pairs, pixels, narrow, &q};
    for (int32_t b = 0; b < images; ++b, input += in_bytes, output += per_image * out_c) {
        for (int32_t i = 0; i < pixels; i += 3 * tiles_max) {
            const int32_t count = (pixels - i + 2) / 3 < tiles_max ? (pixels - i + 2) / 3 : tiles_max;
            fg_s4_lay_dsp(p, input, &l, i, count, pointwise, gathered, x);
            for (int32_t first = 0; first < channel_pairs; first += pairs_max) {
                const int32_t here = channel_pairs - first < pairs_max ? channel_pairs - first : pairs_max;
                const int32_t channels = out_c - 2 * first < 2 * here ? out_c - 2 * first : 2 * here;
                fg_s4_unpack_dsp(ch, packed, first, here, words, narrow, 0, w);
                fg_dsp_run_block(&l, i, count, x, w, here, channels, output + 2 * first);
            }
        }
    }
}

void fg_conv2d_s4_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t pairs = ((p->filter_h * p->filter_w * p->in_c + 7) >> 3) << 2;
    const int32_t tiles_max = ((const int32_t *)p->packed)[0], pairs_max = ((const int32_t *)p->packed)[1];
    uint32_t x[tiles_max * 3 * pairs], w[pairs_max * (8 + 2 * pairs)];
    (void)filter;
    fg_s4_conv_dsp(p, input, output, tiles_max, pairs_max, x, w);
}
#endif
