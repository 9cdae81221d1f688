/* fg/isa/dsp.h's tile macros kept defined: the products' loop is built from FG_DSP_TILE_PAIR. */
#define FG_DSP_TILE_STORES
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/isa/dsp.h"
#include "fg/isa/dsp_staged.h"
#include "fg/support/hot_loop.h"

/* A 3x3 convolution of stride 1 (dilation 1, in_c a multiple of 8, out_c even, out_w at least 3) by Winograd's
 * F(2x2, 3x3) in integers (Lavin & Gray): each 2x2 output tile is A^T [U' . (B^T d B)] A, with U' = G' g G'^T,
 * G' = 2 G, so the tile is 4 times the direct correlation exactly and an arithmetic shift ends it (no rounding).
 * The 4x4 input window d holds the raw int8 inputs (the zero point in the padding; the input offset is in the folded
 * bias), so |B^T d B| <= 512 and |U'| <= 1152: int16 pairs of input channels for SMLAD, the same accumulators as the
 * direct convolution once transformed back.
 *
 * The 16 positions of the transformed tile are 16 independent products over the input channels: tiles in raster
 * order over the image, FG_WINO_TILES at a time; a block's input tiles transformed once into V (position p, input
 * pair g, tile: one LDM-able run of three words), then per output channel pair the 3 x 2 SMLAD tile of the pointwise
 * kernel for each position, the 16 results of each tile and channel transformed back, shifted, biased and put
 * through the output stage of the DSP kernels (fg_dsp_output_doubled: SMMULR).
 *
 * params->packed: the channel pairs whose U' is staged on the stack once a call with the channel constants (where
 * the flash has wait states: each block reads all of U'; as many as the stack holds, 0 for none), one fg_dsp_channel
 * per output channel (fg/isa/dsp.h, a narrow channel's bias doubled), then U' as int16 pairs: per output channel pair,
 * per position p, per input pair g (SXTB16's order), the pair of channel A then of channel B
 * (ops/variants/dsp_winograd.py).
 *
 * Outputs in the order the operator's overlap allowance assumes (raster order, ops/overlap.py): every input of a
 * block is read before its outputs are stored, a tile's upper row stored in place, its lower row held in a buffer
 * of the tile row (two, by the parity of the tile row: a block may end one and start the next) and stored once the
 * tile row is done.
 *
 * An odd out_w or out_h: the last tile column or row covers one output of two. The held rows are a tile row's
 * (one pixel past row_bytes: a last-column tile's lower right output, never stored); a last-column tile's upper row
 * goes to a scratch pair (one per tile row parity) and its left output is stored after the block; a last tile row's
 * lower row (outside the image) stays held. The window past the image reads the zero point, as the padding does. */

#define FG_WINO_TILES 3
#define FG_WINO_POSITIONS 16
#define FG_WINO_HEADER_WORDS 1

/* The layer's constants as the kernel reads them. */
typedef struct {
    const fg_conv2d_params *p;
    const fg_dsp_channel *ch;
    const uint32_t *u;      /* U': per channel pair FG_WINO_POSITIONS * 2 * pairs words */
    const uint32_t *staged_u;  /* the first staged_pairs channel pairs' U' on the stack */
    int32_t staged_pairs;
    int32_t pairs;          /* input pairs: in_c / 2 */
    const int8_t *zeros;    /* in_c bytes of the input zero point: the padding's pixel */
} fg_wino_layer;

/* B^T's rows on a, b, c, d of one column (or (B^T d) B's on one row): two int16 halves each, |result| <= 2 |input|. */
#define FG_WINO_TRANSFORM(a, b, c, d, r0, r1, r2, r3) \
    do {                                              \
        (r0) = __ssub16((a), (c));                    \
        (r1) = __sadd16((b), (c));                    \
        (r2) = __ssub16((c), (b));                    \
        (r3) = __ssub16((b), (d));                    \
    } while (0)

/* The 4x4 window of the tile whose output's top left is (oy, ox), B^T d B, into v (V[p][g][tile]: v[3 (p pairs +
 * g)]), four input channels (two pairs) a pass: per column the four rows' words extended (even and odd pairs) and
 * B^T applied, into t ([half][row][column]); then per row of t the columns' transform into v. */
static FG_HOT_LOOP __attribute__((noinline)) void fg_wino_input_tile(const fg_wino_layer *l, const int8_t *image, int32_t oy, int32_t ox,
                                            uint32_t *v) {
    const fg_conv2d_params *p = l->p;
    const int32_t in_c = p->in_c, position_words = FG_WINO_TILES * l->pairs;
    const int8_t *at[16];  /* column-major: the window's column s at at[4 s .. 4 s + 3] */
    const int32_t top = oy - p->pad_top, left = ox - p->pad_left, row = p->in_w * in_c;
    if (top >= 0 && top + 4 <= p->in_h && left >= 0 && left + 4 <= p->in_w) {  /* no padding in the window */
        const int8_t *column = image + top * row + left * in_c;
        for (int32_t s = 0; s < 16; s += 4, column += in_c) {
            at[s] = column;
            at[s + 1] = column + row;
            at[s + 2] = column + 2 * row;
            at[s + 3] = column + 3 * row;
        }
    } else {
        for (int32_t s = 0; s < 4; ++s) {
            const int32_t ix = left + s;
            for (int32_t r = 0; r < 4; ++r) {
                const int32_t iy = top + r;
                const int inside = iy >= 0 && iy < p->in_h && ix >= 0 && ix < p->in_w;
                at[4 * s + r] = inside ? image + iy * row + ix * in_c : l->zeros;
            }
        }
    }
    for (int32_t c = 0; c < in_c; c += 4, v += 2 * FG_WINO_TILES) {
        int32_t t[2][4][4];
        for (int32_t s = 0; s < 4; ++s) {
            uint32_t d0, d1, d2, d3;
            __builtin_memcpy(&d0, at[4 * s] + c, sizeof d0);
            __builtin_memcpy(&d1, at[4 * s + 1] + c, sizeof d1);
            __builtin_memcpy(&d2, at[4 * s + 2] + c, sizeof d2);
            __builtin_memcpy(&d3, at[4 * s + 3] + c, sizeof d3);
            FG_WINO_TRANSFORM(__sxtb16(d0), __sxtb16(d1), __sxtb16(d2), __sxtb16(d3), t[0][0][s], t[0][1][s],
                              t[0][2][s], t[0][3][s]);
            FG_WINO_TRANSFORM((int32_t)fg_dsp_odd_s8x2(d0), (int32_t)fg_dsp_odd_s8x2(d1),
                              (int32_t)fg_dsp_odd_s8x2(d2), (int32_t)fg_dsp_odd_s8x2(d3), t[1][0][s], t[1][1][s],
                              t[1][2][s], t[1][3][s]);
        }
        for (int32_t half = 0; half < 2; ++half) {
            uint32_t *out = v + half * FG_WINO_TILES;
            for (int32_t i = 0; i < 4; ++i, out += 4 * position_words) {
                const int32_t *const row = t[half][i];
                int32_t r0, r1, r2, r3;
                FG_WINO_TRANSFORM(row[0], row[1], row[2], row[3], r0, r1, r2, r3);
                out[0] = (uint32_t)r0;
                out[position_words] = (uint32_t)r1;
                out[2 * position_words] = (uint32_t)r2;
                out[3 * position_words] = (uint32_t)r3;
            }
        }
    }
}

/* The 16 positions' products of a block for one channel pair: per position (pairs input pairs, its V words at x, its
 * U' words at w: both walked through) the pointwise kernel's 3 x 2 SMLAD tile (FG_DSP_TILE_PAIR; SMUAD on the first
 * pair), its six sums stored at acc (channel A's three tiles, then B's), acc moved past them. 13 instructions and 13
 * ESTIMATED cycles an input pair by the M4's timing. */
#define FG_WINO_FIRST_PAIR                                                                        \
    "ldm %[x]!, {r10, r11, r12}\n\t"                                                              \
    "ldrd lr, r3, [%[w]], #8\n\t"                                                                 \
    "smuad r4, r10, lr\n\t" "smuad r5, r11, lr\n\t" "smuad r6, r12, lr\n\t"                       \
    "smuad r7, r10, r3\n\t" "smuad r8, r11, r3\n\t" "smuad r9, r12, r3\n\t"
#define FG_WINO_PAIRS_4 FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR
#define FG_WINO_PAIRS_8 FG_WINO_PAIRS_4 FG_WINO_PAIRS_4
#define FG_WINO_CLOBBERS "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory"
#define FG_WINO_FRAME_AT_SP ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n"

/* Any count of pairs, a multiple of 4: the first four, then rounds of four; acc and the rounds in the frame (a
 * position's stores and loop 16 ESTIMATED cycles). */
static __attribute__((noinline)) void fg_wino_products(const uint32_t *x, const uint32_t *w, uint32_t *acc,
                                                      int32_t pairs) {
    register const uint32_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    /* acc, the passes of four pairs after a position's first, x past the last position's pairs */
    uint32_t frame[4] = {(uint32_t)acc, (uint32_t)(pairs / 4 - 1),
                         (uint32_t)(x + FG_WINO_POSITIONS * FG_WINO_TILES * pairs), 0};  /* a whole 8 bytes: at sp */
    __asm__ volatile(
        FG_WINO_FRAME_AT_SP
        "1:\n\t"
        FG_WINO_FIRST_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR
        "ldr r2, [sp, #4]\n\t"
        "cmp r2, #0\n\t"
        "beq 3f\n"
        "2:\n\t"
        FG_WINO_PAIRS_4
        "subs r2, r2, #1\n\t"
        "bne 2b\n"
        "3:\n\t"
        "ldr r2, [sp]\n\t"
        "stm r2!, {r4-r9}\n\t"
        "str r2, [sp]\n\t"
        "ldr r2, [sp, #8]\n\t"
        "cmp %[x], r2\n\t"
        "bne 1b\n\t"
        : [x] "+r"(rx), [w] "+r"(rw), [frame] "+m"(frame)
        :
        : "r2", FG_WINO_CLOBBERS);
}

/* A count of pairs known here, its positions unrolled: POSITION one position's pairs (x and w moved past them),
 * acc kept in r2 (a position's stores and loop 13 ESTIMATED cycles on the M4, no rounds). */
#define FG_WINO_PRODUCTS_OF(name, PAIRS, POSITION)                                                                \
    static __attribute__((noinline)) void name(const uint32_t *x, const uint32_t *w, uint32_t *acc) {            \
        register const uint32_t *rx __asm__("r0") = x;                                                          \
        register const uint32_t *rw __asm__("r1") = w;                                                          \
        register uint32_t *racc __asm__("r2") = acc;                                                            \
        uint32_t frame[2] = {(uint32_t)(x + FG_WINO_POSITIONS * FG_WINO_TILES * (PAIRS)), 0};                   \
        __asm__ volatile(FG_WINO_FRAME_AT_SP                                                                    \
                         "1:\n\t"                                                                               \
                         POSITION                                                                               \
                         "stm %[acc]!, {r4-r9}\n\t"                                                             \
                         "ldr r3, [sp]\n\t"                                                                     \
                         "cmp %[x], r3\n\t"                                                                     \
                         "bne 1b\n\t"                                                                           \
                         : [x] "+r"(rx), [w] "+r"(rw), [acc] "+r"(racc), [frame] "+m"(frame)                     \
                         :                                                                                      \
                         : FG_WINO_CLOBBERS);                                                                   \
    }
#if defined(FG_CORE_CORTEX_M7)
/* The M7's order of the pointwise tile's passes (fg/isa/dsp.h's FG_DSP_TILE_PASS_M7: single LDRs each beside an
 * SMLAD, the next pass's first words loaded during the last SMLADs), the sums cleared first. */
#define FG_WINO_M7_CLEAR \
    "movs r4, #0\n\t" "movs r5, #0\n\t" "movs r6, #0\n\t" "movs r7, #0\n\t" "movs r8, #0\n\t" "movs r9, #0\n\t"
/* A run of last + 1 passes (up to 16: the narrow LDR's offsets), x and w moved past them. */
#define FG_WINO_M7_RUN(PASSES, last)                                                                              \
    "ldr r10, [%[x]]\n\t"                                                                                        \
    "ldr lr, [%[w]]\n\t"                                                                                         \
    PASSES FG_DSP_TILE_END_M7(last, "add %[x], %[x], #(" #last " + 1) * 12\n\t", "")
#define FG_WINO_M7_PASSES_7                                                                                     \
    FG_DSP_TILE_PASS_M7(0) FG_DSP_TILE_PASS_M7(1) FG_DSP_TILE_PASS_M7(2) FG_DSP_TILE_PASS_M7(3)                  \
    FG_DSP_TILE_PASS_M7(4) FG_DSP_TILE_PASS_M7(5) FG_DSP_TILE_PASS_M7(6)
#define FG_WINO_M7_PASSES_15                                                                                    \
    FG_WINO_M7_PASSES_7 FG_DSP_TILE_PASS_M7(7) FG_DSP_TILE_PASS_M7(8) FG_DSP_TILE_PASS_M7(9)                    \
    FG_DSP_TILE_PASS_M7(10) FG_DSP_TILE_PASS_M7(11) FG_DSP_TILE_PASS_M7(12) FG_DSP_TILE_PASS_M7(13)             \
    FG_DSP_TILE_PASS_M7(14)
#define FG_WINO_M7_16 FG_WINO_M7_RUN(FG_WINO_M7_PASSES_15, 15)
FG_WINO_PRODUCTS_OF(fg_wino_products_8, 8, FG_WINO_M7_CLEAR FG_WINO_M7_RUN(FG_WINO_M7_PASSES_7, 7))
FG_WINO_PRODUCTS_OF(fg_wino_products_16, 16, FG_WINO_M7_CLEAR FG_WINO_M7_16)
FG_WINO_PRODUCTS_OF(fg_wino_products_32, 32, FG_WINO_M7_CLEAR FG_WINO_M7_16 FG_WINO_M7_16)
#else
#define FG_WINO_PAIRS_7 FG_WINO_PAIRS_4 FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR
FG_WINO_PRODUCTS_OF(fg_wino_products_8, 8, FG_WINO_FIRST_PAIR FG_WINO_PAIRS_7)
FG_WINO_PRODUCTS_OF(fg_wino_products_16, 16, FG_WINO_FIRST_PAIR FG_WINO_PAIRS_8 FG_WINO_PAIRS_7)
FG_WINO_PRODUCTS_OF(fg_wino_products_32, 32,
                    FG_WINO_FIRST_PAIR FG_WINO_PAIRS_8 FG_WINO_PAIRS_8 FG_WINO_PAIRS_8 FG_WINO_PAIRS_7)
#endif

/* A block of one tile (an image's last, where its tiles are 3 k + 1): per position the 1 x 2 SMLAD tile of its
 * words (a tile's stride apart) into acc[6 p] (channel A) and acc[6 p + 3] (B); 6 instructions an input pair. */
static __attribute__((noinline)) void fg_wino_products_one(const uint32_t *x, const uint32_t *w, uint32_t *acc,
                                                          int32_t pairs) {
#define FG_WINO_ONE_PAIR                                  \
    "ldr r10, [%[x]], #12\n\t" /* FG_WINO_TILES words */ \
    "ldrd r11, r12, [%[w]], #8\n\t"                      \
    "smlad r4, r10, r11, r4\n\t"                         \
    "smlad r5, r10, r12, r5\n\t"
    const uint32_t *const end = x + FG_WINO_POSITIONS * FG_WINO_TILES * pairs;
    __asm__ volatile(
        "1:\n\t"
        "movs r4, #0\n\t"
        "movs r5, #0\n\t"
        "mov r6, %[rounds]\n"
        "2:\n\t"
        FG_WINO_ONE_PAIR FG_WINO_ONE_PAIR FG_WINO_ONE_PAIR FG_WINO_ONE_PAIR
        "subs r6, r6, #1\n\t"
        "bne 2b\n\t"
        "str r4, [%[acc]]\n\t"
        "str r5, [%[acc], #12]\n\t"
        "adds %[acc], %[acc], #24\n\t"
        "cmp %[x], %[end]\n\t"
        "bne 1b\n\t"
        : [x] "+r"(x), [w] "+r"(w), [acc] "+r"(acc)
        : [rounds] "r"(pairs >> 2), [end] "r"(end)
        : "r4", "r5", "r6", "r10", "r11", "r12", "cc", "memory");
#undef FG_WINO_ONE_PAIR
}

/* A^T m A of one tile and channel's 16 products (position p at m[6 p]): the 2x2 outputs, 4 times the direct
 * correlation (rows 0-2 and 1-3 of m summed, then their columns). */
#define FG_WINO_AT(p) m[2 * FG_WINO_TILES * (p)]
static inline __attribute__((always_inline)) void fg_wino_output_tile(const int32_t *m, int32_t y[4]) {
    const int32_t upper1 = FG_WINO_AT(1) + FG_WINO_AT(5) + FG_WINO_AT(9);
    const int32_t upper2 = FG_WINO_AT(2) + FG_WINO_AT(6) + FG_WINO_AT(10);
    const int32_t lower1 = FG_WINO_AT(5) - FG_WINO_AT(9) - FG_WINO_AT(13);
    const int32_t lower2 = FG_WINO_AT(6) - FG_WINO_AT(10) - FG_WINO_AT(14);
    y[0] = FG_WINO_AT(0) + FG_WINO_AT(4) + FG_WINO_AT(8) + upper1 + upper2;
    y[1] = upper1 - upper2 - (FG_WINO_AT(3) + FG_WINO_AT(7) + FG_WINO_AT(11));
    y[2] = FG_WINO_AT(4) - FG_WINO_AT(8) - FG_WINO_AT(12) + lower1 + lower2;
    y[3] = lower1 - lower2 - (FG_WINO_AT(7) - FG_WINO_AT(11) - FG_WINO_AT(15));
}

/* The output of four times a channel's accumulator without its bias (fg_dsp_channel: a narrow channel's bias and
 * accumulator doubled, the narrow output stage of the DSP kernels; full: the clamp is all of int8). The bias added
 * unsigned: a dead channel's doubled bias wraps (ops/variants/dsp.py), as the other DSP kernels' sums do. */
static inline __attribute__((always_inline)) int8_t fg_wino_narrow(int32_t four_acc, const fg_dsp_channel *k,
                                                                   int full, int32_t low, int32_t high) {
    return fg_dsp_clamp(fg_dsp_narrow_doubled((int32_t)((uint32_t)(four_acc >> 1) + (uint32_t)k->bias), k), full, low,
                        high);
}
static int8_t fg_wino_wide(int32_t four_acc, const fg_dsp_channel *k, const fg_requant_params *q) {
    return fg_dsp_output_doubled((uint32_t)(four_acc >> 2) + (uint32_t)k->bias, k, q);
}

/* A tile's outputs of one channel from its products m: the upper row at top[0] and top[out_c], the lower at
 * bottom[0] and bottom[out_c]. */
static inline __attribute__((always_inline)) void fg_wino_channel(const int32_t *m,
                                                                  const fg_dsp_channel *restrict ch, int8_t *top,
                                                                  int8_t *bottom, int32_t out_c, int full,
                                                                  const fg_requant_params *q) {
    /* ch never the output (restrict): its words held in registers across the stores */
    int32_t y[4];
    fg_wino_output_tile(m, y);
    if (ch->shift != FG_DSP_WIDE) {
        const int32_t low = q->activation_min, high = q->activation_max;
        top[0] = fg_wino_narrow(y[0], ch, full, low, high);
        top[out_c] = fg_wino_narrow(y[1], ch, full, low, high);
        bottom[0] = fg_wino_narrow(y[2], ch, full, low, high);
        bottom[out_c] = fg_wino_narrow(y[3], ch, full, low, high);
    } else {
        top[0] = fg_wino_wide(y[0], ch, q);
        top[out_c] = fg_wino_wide(y[1], ch, q);
        bottom[0] = fg_wino_wide(y[2], ch, q);
        bottom[out_c] = fg_wino_wide(y[3], ch, q);
    }
}

/* The outputs of a channel pair (c, c + 1) of the block's `count` tiles from their products acc (tile k, channel j
 * at acc + 3 j + k): tile k's upper row at upper[k] + c, its lower at lower[k] + c. */
static inline __attribute__((always_inline)) void fg_wino_pair_outputs(const int32_t *acc, const fg_dsp_channel *ch,
                                                                       int32_t c, int32_t count,
                                                                       int8_t *const *upper, int8_t *const *lower,
                                                                       int32_t out_c, int full,
                                                                       const fg_requant_params *q) {
    for (int32_t k = 0; k < count; ++k) {
        int8_t *const top = upper[k] + c, *const bottom = lower[k] + c;
        fg_wino_channel(acc + k, ch, top, bottom, out_c, full, q);
        fg_wino_channel(acc + FG_WINO_TILES + k, ch + 1, top + 1, bottom + 1, out_c, full, q);
    }
}

/* A block of `count` tiles whose inputs are in v: per channel pair the 16 positions' products (fg_wino_products:
 * acc[6 p + 3 c + k] of position p, channel c, tile k), then each tile's outputs, its upper row at upper[k], its lower
 * at lower[k]. */
static FG_HOT_LOOP void fg_wino_block(const fg_wino_layer *l, const uint32_t *v, int32_t count, int8_t *const *upper,
                                      int8_t *const *lower, const fg_requant_params *q) {
    const int32_t out_c = l->p->out_c, pairs = l->pairs;
    const int full = q->activation_min == -128 && q->activation_max == 127;
    uint32_t acc[FG_WINO_POSITIONS * 2 * FG_WINO_TILES];
    for (int32_t c = 0; c < out_c; c += 2) {
        const uint32_t *const u =
            (c >> 1 < l->staged_pairs ? l->staged_u : l->u) + (c >> 1) * FG_WINO_POSITIONS * 2 * pairs;
        switch (count == 1 ? 0 : pairs) {  /* in_c 16, 32 and 64: their positions unrolled */
        case 0: fg_wino_products_one(v, u, acc, pairs); break;
        case 8: fg_wino_products_8(v, u, acc); break;
        case 16: fg_wino_products_16(v, u, acc); break;
        case 32: fg_wino_products_32(v, u, acc); break;
        default: fg_wino_products(v, u, acc, pairs);
        }
        if (full) {
            fg_wino_pair_outputs((const int32_t *)acc, l->ch + c, c, count, upper, lower, out_c, 1, q);
        } else {
            fg_wino_pair_outputs((const int32_t *)acc, l->ch + c, c, count, upper, lower, out_c, 0, q);
        }
    }
}

FG_HOT_LOOP void fg_conv2d_3x3_winograd_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                            int8_t *output) {
    (void)filter;
    const int32_t in_c = p->in_c, out_c = p->out_c, pairs = in_c >> 1;
    const int32_t tiles_w = (p->out_w + 1) >> 1, tiles = ((p->out_h + 1) >> 1) * tiles_w;
    const int32_t row_bytes = p->out_w * out_c, held_bytes = 2 * tiles_w * out_c;
    const int odd_w = p->out_w & 1;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const uint32_t *const table = (const uint32_t *)p->packed;
    const int32_t staged_pairs = (int32_t)table[0];
    const int32_t staged = staged_pairs ? 4 * out_c + staged_pairs * FG_WINO_POSITIONS * in_c : 0;  /* words */
    int8_t zeros[in_c], held_rows[2 * held_bytes + (odd_w ? 4 * out_c : 0)];  /* then the scratch pairs */
    uint32_t v[FG_WINO_POSITIONS * FG_WINO_TILES * pairs], w[staged ? staged : 1];
    int8_t *held[2] = {held_rows, held_rows + held_bytes};
    int8_t *scratch[2] = {held_rows + 2 * held_bytes, held_rows + 2 * held_bytes + 2 * out_c};
    memset(zeros, (int8_t)-q.input_offset, (size_t)in_c);
    if (staged) {
        fg_dsp_stage_words(table + FG_WINO_HEADER_WORDS, staged, w);
    }
    const fg_dsp_channel *const ch = (const fg_dsp_channel *)(staged ? w : table + FG_WINO_HEADER_WORDS);
    const fg_wino_layer l = {p, ch, table + FG_WINO_HEADER_WORDS + 4 * out_c, w + 4 * out_c, staged_pairs, pairs,
                             zeros};
    for (int32_t n = 0; n < p->batches; ++n) {
        const int8_t *const image = input + n * p->in_h * p->in_w * in_c;
        int8_t *const out = output + n * p->out_h * row_bytes;
        for (int32_t first = 0; first < tiles; first += FG_WINO_TILES) {
            const int32_t count = tiles - first < FG_WINO_TILES ? tiles - first : FG_WINO_TILES;
            int32_t tile[FG_WINO_TILES];
            int8_t *upper[FG_WINO_TILES], *lower[FG_WINO_TILES];
            for (int32_t k = 0; k < (count == 1 ? 1 : FG_WINO_TILES); ++k) {  /* a block of two repeats its last
                                                                                  * tile: outputs not used */
                tile[k] = first + (k < count ? k : count - 1);
                const int32_t ty = tile[k] / tiles_w, tx = tile[k] - ty * tiles_w;
                fg_wino_input_tile(&l, image, 2 * ty, 2 * tx, v + k);
                upper[k] = out + 2 * ty * row_bytes + 2 * tx * out_c;
                lower[k] = held[ty & 1] + 2 * tx * out_c;
            }
            if (odd_w) {  /* a last column of one output: its upper row to the scratch */
                for (int32_t k = 0; k < count; ++k) {
                    if ((tile[k] + 1) % tiles_w == 0) {
                        upper[k] = scratch[(tile[k] / tiles_w) & 1];
                    }
                }
            }
            fg_wino_block(&l, v, count, upper, lower, &q);
            for (int32_t k = 0; k < count; ++k) {  /* a tile row done: its lower row stored (inside the image) */
                if ((tile[k] + 1) % tiles_w == 0) {
                    const int32_t ty = tile[k] / tiles_w;
                    if (odd_w) {
                        memcpy(out + (2 * ty + 1) * row_bytes - out_c, scratch[ty & 1], (size_t)out_c);
                    }
                    if (2 * ty + 1 < p->out_h) {
                        memcpy(out + (2 * ty + 1) * row_bytes, held[ty & 1], (size_t)row_bytes);
                    }
                }
            }
        }
    }
}

#endif
