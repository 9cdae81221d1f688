/* DEPTHWISE_CONV_2D 3x3, depth multiplier 1, stride 1 or 2, no dilation, on Armv6-M. The input rows the windows read
 * are copied, as they are first needed, into a ring of three rows per channel ([channel][3][pitch], unsigned bytes
 * x + 128, the zero point in the padding): each tap is then an LDRB at a constant offset from one of three row
 * pointers, and each input row is copied once. Output rows are computed channel by channel, each output through the
 * Thumb-1 output stage's arithmetic with the channel's constants held over the row. The products hold x w + 128 w:
 * the lowering took 128 times each channel's weight sum off its bias. An output row is written once the input rows
 * it reads are in the ring; the forward overlap of firmware_gen/ops/overlap.py keeps the later rows' inputs intact.
 * When the ring of every channel would not fit FG_DW_RING_BYTES (the blocked entries), blocks of channels run over
 * the whole image one after the other, which the output allows when it is written channel by channel
 * (fg_depthwise_channel_major); else the portable kernel runs, in pixel order.
 * params->packed: the layer's constants and channels (fg_armv6m_layer), then per channel its nine weights and its
 * bias (the folded bias less 128 times the weights' sum) as int32; with 4-bit weights (fg_depthwise_conv2d_s4_armv6m)
 * the channels' biases, then their weights as [channel][9 taps] in TFLite's nibble packing, unpacked into int32s
 * once per image for a block of at most FG_DW_BLOCK_S4 channels (all of them, or the output written channel by
 * channel), else FG_DW_BATCH channels at a time once per chunk of an output row. */
#include "fg/isa/armv6m.h"
#include "fg/depthwise_conv2d.h"
#include "fg/support/hot_loop.h"
#include "fg/support/weights_s4.h"
#include "fg/variants_armv6m.h"

#define FG_DW_SUMS 512 /* the most sums of a chunk of an output row: pixels x channels */

/* The ring of one block of channels, first .. first + count - 1 (all of them when their rows fit). */
typedef struct {
    uint8_t *ring;     /* [channel of the block][3][pitch] */
    int32_t pitch;
    int32_t first, count;
    int32_t held[3];   /* the input row each slot holds */
} fg_dw_ring;

/* y mod 3 for -3 <= y < 2^15 without a division (Armv6-M has none: y % 3 would call __aeabi_idivmod): with r = y + 3,
 * floor(r / 3) = (r * 43691) >> 17 for r < 2^15 (43691 = ceil(2^17 / 3)). */
static inline int32_t fg_dw_slot(int32_t y) {
    const uint32_t r = (uint32_t)(y + 3);
    return (int32_t)(r - 3u * ((r * 43691u) >> 17));
}

typedef uint32_t fg_dw_bytes4 __attribute__((may_alias)); /* four int8 read as one word */

/* The padding columns are a byte or two: GCC's memset for them would cost a call each. */
#if defined(__GNUC__) && !defined(__clang__)
#define FG_NO_MEMSET __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define FG_NO_MEMSET
#endif

/* Four channels at a time (count a multiple of four, source word-aligned, pixels `words` words apart): one word of
 * the input, flipped to x + 128, stored a byte to each channel's row (to[c * step + x]); the padding columns, `left`
 * before and `right` after, set to `padding`. */
static FG_HOT_LOOP FG_NO_MEMSET void fg_dw_fill_words(const int8_t *source, int32_t count, int32_t words, int32_t in_w,
                                                      uint8_t *to, int32_t step, int32_t left, int32_t right,
                                                      uint8_t padding) {
    for (int32_t c = 0; c < count; c += 4, to += 4 * step) {
        const fg_dw_bytes4 *from = (const fg_dw_bytes4 *)(const void *)(source + c);
        uint8_t *t0 = to, *t1 = to + step, *t2 = t1 + step, *t3 = t2 + step;
        for (int32_t i = -left; i < 0; ++i) {
            t0[i] = t1[i] = t2[i] = t3[i] = padding;
        }
        for (int32_t i = in_w; i < in_w + right; ++i) {
            t0[i] = t1[i] = t2[i] = t3[i] = padding;
        }
        for (int32_t x = 0; x < in_w; ++x, from += words) {
            const uint32_t v = *from ^ 0x80808080u;
            t0[x] = (uint8_t)v;
            t1[x] = (uint8_t)(v >> 8);
            t2[x] = (uint8_t)(v >> 16);
            t3[x] = (uint8_t)(v >> 24);
        }
    }
}

/* A row of the padding (`pitch` bytes) for each channel: a few bytes each, no call of memset. */
static FG_HOT_LOOP FG_NO_MEMSET void fg_dw_fill_padding(uint8_t *row, int32_t channels, int32_t pitch, int32_t step,
                                                        uint8_t padding) {
    for (int32_t c = 0; c < channels; ++c, row += step) {
        for (int32_t i = 0; i < pitch; ++i) {
            row[i] = padding;
        }
    }
}

/* Input row y (any y: outside the image, the zero point) of the block's channels into slot y mod 3. */
static void fg_dw_fill(const fg_depthwise_conv2d_params *p, const int8_t *image, fg_dw_ring *r, int32_t y) {
    const int32_t channels = p->in_c, count = r->count, in_w = p->in_w, pitch = r->pitch, step = 3 * pitch;
    const int32_t slot = fg_dw_slot(y);
    const uint8_t padding = (uint8_t)(128 - p->requant.input_offset);
    uint8_t *row = r->ring + slot * pitch;
    r->held[slot] = y;
    if (y < 0 || y >= p->in_h) {
        fg_dw_fill_padding(row, count, pitch, step, padding);
        return;
    }
    const int8_t *source = image + y * in_w * channels + r->first;
    if (((channels | count) & 3) == 0 && ((uintptr_t)source & 3) == 0) {
        fg_dw_fill_words(source, count, channels >> 2, in_w, row + p->pad_left, step, p->pad_left,
                         pitch - p->pad_left - in_w, padding);
        return;
    }
    for (int32_t c = 0; c < count; ++c) {  /* the padding columns: a byte or two, no call of memset */
        uint8_t *to = row + c * step;
        for (int32_t i = 0; i < p->pad_left; ++i) {
            to[i] = padding;
        }
        for (int32_t i = p->pad_left + in_w; i < pitch; ++i) {
            to[i] = padding;
        }
    }
    for (int32_t x = 0; x < in_w; ++x, source += channels) {
        uint8_t *to = row + p->pad_left + x;
        for (int32_t c = 0; c < count; ++c, to += step) {
            *to = (uint8_t)(source[c] + 128);
        }
    }
}

/* The windows of `channels` channels along an output row: the first channel's three row pointers (the window's top
 * left in each; a channel's rows are ring_step bytes after the previous one's), the step between windows, the bytes
 * between a channel's sums of consecutive windows (channel c's first sum at sums + c). */
typedef struct {
    const uint8_t *row[3];
    int32_t stride;
    int32_t step;
    int32_t channels;
    int32_t ring_step;
} fg_dw_pass;

#if defined(__ARM_ARCH_6M__)
/* Four windows at a time, their sums in r6, r7, r8, r9: per tap one weight (r5, from r3) and, per window, the input
 * at a constant offset from its row pointer (r0-r2), MULS and ADD; a lone window's sum in r6. */
#define FG_DW_PRODUCT(row, at, sum, add) "ldrb r4, [" row ", #(" at ")]\n\tmuls r4, r5, r4\n\t" add " " sum ", r4\n\t"
#define FG_DW_TAP4(row, dx, k, s)                                                                      \
    "ldr r5, [r3, #" #k "]\n\t"                                                                        \
    FG_DW_PRODUCT(row, #dx, "r6", "adds r6,") FG_DW_PRODUCT(row, #dx "+" #s, "r7", "adds r7,")          \
    FG_DW_PRODUCT(row, #dx "+2*" #s, "r8", "add") FG_DW_PRODUCT(row, #dx "+3*" #s, "r9", "add")
#define FG_DW_TAP1(row, dx, k, s) "ldr r5, [r3, #" #k "]\n\t" FG_DW_PRODUCT(row, #dx, "r6", "adds r6,")
#define FG_DW_WINDOWS(tap, s)                                                                          \
    tap("r0", 0, 0, s) tap("r0", 1, 4, s) tap("r0", 2, 8, s)                                           \
    tap("r1", 0, 12, s) tap("r1", 1, 16, s) tap("r1", 2, 20, s)                                        \
    tap("r2", 0, 24, s) tap("r2", 1, 28, s) tap("r2", 2, 32, s)

/* Blocks of four windows of stride s while four are left (labels <L>0-<L>2), then to the lone windows (6). */
#define FG_DW_BLOCKS(s, L)                                                                             \
    L "0:\n\t"                                                                                         \
    "ldr r4, [sp, #4]\n\tcmp r4, #4\n\tbge " L "1f\n\tb 6f\n\t"                                        \
    L "1:\n\t"                                                                                         \
    "ldr r6, [r3, #36]\n\tmov r7, r6\n\tmov r8, r6\n\tmov r9, r6\n\t"                                  \
    FG_DW_WINDOWS(FG_DW_TAP4, s)                                                                       \
    "add r0, r12\n\tadd r1, r12\n\tadd r2, r12\n\t"                                                     \
    "pop {r4, r5}\n\t"                                                                                \
    "str r6, [r4]\n\tadd r4, r10\n\t"                                                                  \
    "str r7, [r4]\n\tadd r4, r10\n\t"                                                                  \
    "mov r6, r8\n\tstr r6, [r4]\n\tadd r4, r10\n\t"                                                    \
    "mov r6, r9\n\tstr r6, [r4]\n\tadd r4, r10\n\t"                                                    \
    "subs r5, r5, #4\n\t"                                                                             \
    "push {r4, r5}\n\t"                                                                               \
    "cmp r5, #4\n\tblt " L "2f\n\tb " L "1b\n\t" /* (a conditional branch reaches 256 bytes) */        \
    L "2:\n\t"                                                                                         \
    "b 6f\n\t"

/* For each of pass->channels channels c, sums[c + i * step] = w[10 c + 9] + the nine taps of window i < n (n >= 1)
 * with the weights w[10 c .. 10 c + 8]: four windows per block (117 instructions of products and ~25 of set-up and
 * stores per 36 MACs), then the last n mod 4 one by one; ~26 instructions between channels. r10 = step,
 * r11 = stride, r12 = four strides. On the stack: the sums' pointer and the windows left, then the channel's rows
 * 2, 0 and 1, its weights, its sums, n, the channels left and the ring step. */
static __attribute__((naked)) void fg_dw_sums(__attribute__((unused)) const fg_dw_pass *pass,
                                              __attribute__((unused)) const int32_t *w,
                                              __attribute__((unused)) int32_t *sums, __attribute__((unused)) int32_t n) {
    __asm__ volatile(
        ".syntax unified\n\t"
        "push {r4-r7, lr}\n\t"
        "mov r4, r8\n\tmov r5, r9\n\tmov r6, r10\n\tmov r7, r11\n\t"
        "push {r4-r7}\n\t"
        "ldr r4, [r0, #16]\n\tmov r10, r4\n\t"
        "ldr r4, [r0, #12]\n\tmov r11, r4\n\t"
        "lsls r4, r4, #2\n\tmov r12, r4\n\t"
        "ldr r4, [r0, #20]\n\t"               /* channels */
        "ldr r5, [r0, #24]\n\t"               /* ring step */
        "ldr r6, [r0, #0]\n\tldr r7, [r0, #4]\n\tldr r0, [r0, #8]\n\t"
        "push {r0-r7}\n\t"                    /* [sp]: row 2, w, sums, n, channels, ring step, row 0, row 1 */
        "push {r2, r3}\n\t"                   /* [sp]: the sums' pointer, the windows left */
        "0:\n\t"
        "ldr r0, [sp, #32]\n\tldr r1, [sp, #36]\n\tldr r2, [sp, #8]\n\tldr r3, [sp, #12]\n\t"
        "mov r4, r11\n\tcmp r4, #1\n\tbeq 40f\n\tb 50f\n\t"
        FG_DW_BLOCKS(1, "4")
        FG_DW_BLOCKS(2, "5")
        "6:\n\t"                              /* fewer than four windows left */
        "ldr r4, [sp, #4]\n\tcmp r4, #0\n\tbeq 9f\n\t"
        "ldr r6, [r3, #36]\n\t"
        FG_DW_WINDOWS(FG_DW_TAP1, 1)
        "add r0, r11\n\tadd r1, r11\n\tadd r2, r11\n\t"
        "pop {r4, r5}\n\t"
        "str r6, [r4]\n\tadd r4, r10\n\t"
        "subs r5, r5, #1\n\t"
        "push {r4, r5}\n\t"
        "b 6b\n\t"
        "9:\n\t"                              /* the next channel: its rows, weights, sums and windows */
        "ldr r4, [sp, #28]\n\t"
        "ldr r5, [sp, #32]\n\tadds r5, r5, r4\n\tstr r5, [sp, #32]\n\t"
        "ldr r5, [sp, #36]\n\tadds r5, r5, r4\n\tstr r5, [sp, #36]\n\t"
        "ldr r5, [sp, #8]\n\tadds r5, r5, r4\n\tstr r5, [sp, #8]\n\t"
        "ldr r5, [sp, #12]\n\tadds r5, r5, #40\n\tstr r5, [sp, #12]\n\t"
        "ldr r5, [sp, #16]\n\tadds r5, r5, #4\n\tstr r5, [sp, #16]\n\tstr r5, [sp, #0]\n\t"
        "ldr r5, [sp, #20]\n\tstr r5, [sp, #4]\n\t"
        "ldr r5, [sp, #24]\n\tsubs r5, r5, #1\n\tstr r5, [sp, #24]\n\tbeq 8f\n\tb 0b\n\t"
        "8:\n\t"
        "add sp, sp, #40\n\t"
        "pop {r4-r7}\n\t"
        "mov r8, r4\n\tmov r9, r5\n\tmov r10, r6\n\tmov r11, r7\n\t"
        "pop {r4-r7, pc}\n\t");
}
#else
/* The same sums in C, for the host build of the kernels' tests. */
static void fg_dw_sums(const fg_dw_pass *pass, const int32_t *w, int32_t *sums, int32_t n) {
    for (int32_t c = 0; c < pass->channels; ++c, w += 10, ++sums) {
        for (int32_t i = 0; i < n; ++i) {
            const int32_t at = c * pass->ring_step + i * pass->stride;
            uint32_t sum = (uint32_t)w[9];
            for (int32_t t = 0; t < 9; ++t) {
                sum += (uint32_t)(w[t] * pass->row[t / 3][at + t % 3]);
            }
            *(int32_t *)((char *)sums + i * pass->step) = (int32_t)sum; /* wraps as TFLite's int32 sum does */
        }
    }
}
#endif

#define FG_DW_BATCH 8 /* 4-bit weights: the channels unpacked at a time, once per chunk */
#define FG_DW_BLOCK_S4 32 /* 4-bit weights: the most channels of a block unpacked once per image */

/* Nibbles from `from` (signed bytes, low nibble first) into to[0 .. 2 pairs - 1]. */
static inline void fg_dw_nibbles(const int8_t *from, int32_t pairs, int32_t *to) {
    for (int32_t i = 0; i < pairs; ++i) {
        const int32_t byte = from[i];
        to[2 * i] = fg_low_s4(byte);
        to[2 * i + 1] = fg_high_s4(byte);
    }
}

/* Channels first .. first + count - 1's nine weights and bias as fg_dw_sums reads them (4-bit weights, first even),
 * into unpacked[10 j .. 10 j + 9]: two channels' 18 nibbles are nine whole bytes, channel 2i's from byte 9i. */
static FG_HOT_LOOP void fg_dw_unpack(const int32_t *weights, int32_t channels, int32_t first, int32_t count,
                                     int32_t *unpacked) {
    const int8_t *bytes = (const int8_t *)(weights + channels) + 9 * first / 2;
    for (int32_t j = 0; j < count; j += 2, bytes += 9, unpacked += 20) {
        fg_dw_nibbles(bytes, 4, unpacked);  /* channel first + j: nibbles 0-7 */
        unpacked[8] = fg_low_s4(bytes[4]);
        unpacked[9] = weights[first + j];
        if (j + 1 < count) {
            unpacked[10] = fg_high_s4(bytes[4]);
            fg_dw_nibbles(bytes + 5, 4, unpacked + 11);  /* channel first + j + 1: nibbles 1-8 */
            unpacked[19] = weights[first + j + 1];
        }
    }
}

/* The output rows of one block of channels (r: its ring) of one image, a chunk of pixels at a time: the block's sums,
 * then its outputs. w: the block's weights and biases as fg_dw_sums reads them; NULL for 4-bit weights unpacked a
 * batch of FG_DW_BATCH channels at a time into `unpacked`, once per chunk. */
static FG_HOT_LOOP __attribute__((noinline)) void fg_dw_block_rows(const fg_depthwise_conv2d_params *p,
                                                                    const int8_t *image, fg_dw_ring *r,
                                                                    const int32_t *w, int32_t *unpacked,
                                                                    int32_t *sums, int32_t chunk, int8_t *output) {
    const int32_t channels = p->in_c, out_w = p->out_w, stride = p->stride_w, first = r->first, count = r->count;
    const fg_armv6m_layer *layer = p->packed;
    const fg_armv6m_channel *constants = fg_armv6m_channels(p->packed);
    const int32_t *weights = (const int32_t *)(constants + channels);
    const int32_t batch = w ? count : FG_DW_BATCH;
    r->held[0] = r->held[1] = r->held[2] = -1000000;  /* no row */
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
        const int32_t y0 = oy * p->stride_h - p->pad_top;
        const uint8_t *rows[3];
        for (int32_t dy = 0; dy < 3; ++dy) {
            const int32_t slot = fg_dw_slot(y0 + dy);
            if (r->held[slot] != y0 + dy) {
                fg_dw_fill(p, image, r, y0 + dy);
            }
            rows[dy] = r->ring + slot * r->pitch;
        }
        int8_t *out = output + oy * out_w * channels + first;
        for (int32_t x0 = 0; x0 < out_w; x0 += chunk) {
            const int32_t n = out_w - x0 < chunk ? out_w - x0 : chunk;
            for (int32_t c = 0; c < count; c += batch) {
                const int32_t at = c * 3 * r->pitch + x0 * stride;
                const int32_t part = count - c < batch ? count - c : batch;
                const fg_dw_pass pass = {{rows[0] + at, rows[1] + at, rows[2] + at}, stride,
                                         count * (int32_t)sizeof(int32_t), part, 3 * r->pitch};
                if (!w) {
                    fg_dw_unpack(weights, channels, first + c, part, unpacked);
                }
                fg_dw_sums(&pass, w ? w + 10 * c : unpacked, sums + c, n);
            }
            if (layer->served) {
                (layer->served == FG_ARMV6M_POSITIVE ? fg_armv6m_requantize_pixels_positive_s8
                                                     : fg_armv6m_requantize_pixels_s8)(
                    sums, n, constants + first, out + x0 * channels, layer, count, channels);
                continue;
            }
            for (int32_t i = 0; i < n; ++i) {
                fg_armv6m_outputs_s8(&p->requant, p->packed, sums + i * count, first, count,
                                     out + (x0 + i) * channels);
            }
        }
    }
}

/* A blocked layer whose output overlaps its input other than a whole number of pixels before it (so that it must be
 * written pixel by pixel): the portable kernel, on the filter as [channel][9 taps] unpacked to the stack. */
static inline __attribute__((always_inline)) void fg_dw_raster(const fg_depthwise_conv2d_params *p,
                                                               const int8_t *input, int8_t *output, int int4) {
    const int32_t channels = p->in_c;
    const int32_t *weights = (const int32_t *)(fg_armv6m_channels(p->packed) + channels);
    int8_t taps[9 * channels];
    for (int32_t c = 0; c < channels; ++c) {
        for (int32_t t = 0; t < 9; ++t) {
            taps[9 * c + t] = (int8_t)(int4 ? fg_nibble_s4((const uint8_t *)(weights + channels), 9 * c + t)
                                            : weights[10 * c + t]);
        }
    }
    fg_depthwise_conv2d_params portable = *p;
    portable.channel_taps = taps;
    fg_depthwise_conv2d_3x3_s8(&portable, input, output);
}

/* Blocks of channels, each over the whole image: one block of them all when their ring fits FG_DW_RING_BYTES
 * (`blocked` 0: output rows in order, any overlap the planner allows), else as many as fit, a multiple of four (the
 * generator checks that four fit), when the output may be written channel by channel. Where it may, a block is
 * besides cut to the channels whose sums of a whole output row fit FG_DW_SUMS (one chunk a row: fewer passes), and
 * with 4-bit weights to FG_DW_BLOCK_S4 channels, each unpacked once per image (the stack: 40 bytes a channel). */
static inline __attribute__((always_inline)) void fg_dw_armv6m(const fg_depthwise_conv2d_params *p,
                                                               const int8_t *input, int8_t *output, int int4,
                                                               int blocked) {
    const int32_t channels = p->in_c, out_w = p->out_w;
    const int32_t reach = (out_w - 1) * p->stride_w + 3, inside = p->pad_left + p->in_w;
    const int32_t pitch = reach > inside ? reach : inside;
    const int major = fg_depthwise_channel_major(p, input, output);
    if (blocked && !major) {
        fg_dw_raster(p, input, output, int4);
        return;
    }
    int32_t block = blocked ? (FG_DW_RING_BYTES / (3 * pitch)) & ~3 : channels;
    if (major) {
        const int32_t whole_rows = (FG_DW_SUMS / out_w) & ~3; /* channels whose sums of a whole output row fit */
        block = block * out_w > FG_DW_SUMS && whole_rows >= 4 ? whole_rows : block;
        block = int4 && block > FG_DW_BLOCK_S4 ? FG_DW_BLOCK_S4 : block;
    }
    uint8_t ring[block * 3 * pitch]; /* at most FG_DW_RING_BYTES (the lowering checks); no more than the layer needs */
    const int32_t most = FG_DW_SUMS / block < 1 ? 1 : FG_DW_SUMS / block;
    const int32_t chunk = out_w < most ? out_w : most; /* a whole row when it fits */
    int32_t sums[chunk * block];
    int32_t unpacked[10 * (!int4 ? 0 : block <= FG_DW_BLOCK_S4 ? block : FG_DW_BATCH) + 1];
    const int32_t *weights = (const int32_t *)(fg_armv6m_channels(p->packed) + channels);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        int8_t *out = output + b * p->out_h * out_w * channels;
        for (int32_t first = 0; first < channels; first += block) {
            fg_dw_ring r = {ring, pitch, first, channels - first < block ? channels - first : block, {0, 0, 0}};
            const int32_t *w = weights + 10 * first;
            if (int4) {
                w = block <= FG_DW_BLOCK_S4 ? unpacked : 0;
                if (w) {
                    fg_dw_unpack(weights, channels, first, r.count, unpacked);
                }
            }
            fg_dw_block_rows(p, image, &r, w, unpacked, sums, chunk, out);
        }
    }
}

void fg_depthwise_conv2d_armv6m(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    fg_dw_armv6m(p, input, output, 0, 0);
}

void fg_depthwise_conv2d_s4_armv6m(const fg_depthwise_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                   int8_t *output) {
    (void)filter;
    fg_dw_armv6m(p, input, output, 1, 0);
}

void fg_depthwise_conv2d_blocked_armv6m(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    fg_dw_armv6m(p, input, output, 0, 1);
}

void fg_depthwise_conv2d_blocked_s4_armv6m(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                           const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_dw_armv6m(p, input, output, 1, 1);
}
