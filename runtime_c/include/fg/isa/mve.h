/* Helium (MVE) building blocks shared by the *_mve.c kernel variants (firmware_gen/ops/variants/mve.py lays out
 * their constants). Only for a compiler targeting MVE; everything is static inline.
 *
 * The output stage, four lanes at a time: TFLite's MultiplyByQuantizedMultiplier on int32 lanes, bit-exact with
 * fg_multiply_by_quantized_multiplier (fg/support/fixedpoint.h):
 *   left shift (wrapping, VSHL), SaturatingRoundingDoublingHighMul (VQRDMULH: the same rounding and the same single
 *   saturating case), RoundingDivideByPOT (VRSHL by a negative shift rounds half up; subtracting 1 from negative
 *   lanes first, saturating, turns that into TFLite's half away from zero), + output offset, clamp.
 * The shift is stored split: left = max(shift, 0), right = min(shift, 0) (a right shift, as VRSHL takes it). */
#ifndef FG_MVE_SUPPORT_H
#define FG_MVE_SUPPORT_H

#if defined(__ARM_FEATURE_MVE)

#include <arm_mve.h>
#include <stdint.h>

/* The variants' assembly loops keep 13 or 14 core registers busy (r7 included): GCC finds them only when it
 * optimizes and omits the frame pointer (its default from -O1; not with -fno-omit-frame-pointer). */
#if !defined(__OPTIMIZE__)
#error "the MVE kernel variants need an optimized build (-Og, -O1 or above, without -fno-omit-frame-pointer)"
#endif

#include "fg/support/dot_s8.h"

/* The GEMM loops' dot products: STEP unrolled 8 times, entered by TBB at %[t] = steps % 8 steps before the end of a
 * round, %[n] rounds. */
#define FG_MVE_UNROLLED8(STEP)                                                   \
    "tbb [pc, %[t]]\n"                                                          \
    ".Lentries%=:\n"                                                            \
    ".byte (.Ls0%= - .Lentries%=) / 2, (.Ls7%= - .Lentries%=) / 2\n"            \
    ".byte (.Ls6%= - .Lentries%=) / 2, (.Ls5%= - .Lentries%=) / 2\n"            \
    ".byte (.Ls4%= - .Lentries%=) / 2, (.Ls3%= - .Lentries%=) / 2\n"            \
    ".byte (.Ls2%= - .Lentries%=) / 2, (.Ls1%= - .Lentries%=) / 2\n"            \
    ".Ls0%=:\n" STEP ".Ls1%=:\n" STEP ".Ls2%=:\n" STEP ".Ls3%=:\n" STEP       \
    ".Ls4%=:\n" STEP ".Ls5%=:\n" STEP ".Ls6%=:\n" STEP ".Ls7%=:\n" STEP       \
    "subs %[n], %[n], #1\n"                                                     \
    "bne .Ls0%=\n"

/* The GEMM loops' output stage after the multipliers (as fg_mve_requantize): TFLite's rounding divide of acc by the
 * right shifts in q2 (q3 a scratch), then of q0 and q1: offset %q[v], clamp to %q[lo], %q[hi]. */
#define FG_MVE_ROUND_DIVIDE(acc)                \
    "vand q3, " acc ", q2\n"                   \
    "vshr.s32 q3, q3, #31\n"                   \
    "vqadd.s32 " acc ", " acc ", q3\n"         \
    "vrshl.s32 " acc ", " acc ", q2\n"
/* FG_MVE_ROUND_DIVIDE where every lane shifts right (q2 < 0): the sign of x & right is x's. */
#define FG_MVE_ROUND_NEGATIVE(acc)              \
    "vshr.s32 q3, " acc ", #31\n"              \
    "vqadd.s32 " acc ", " acc ", q3\n"         \
    "vrshl.s32 " acc ", " acc ", q2\n"
/* FG_MVE_ROUND_DIVIDE and FG_MVE_ROUND_NEGATIVE of q0 and q1 interleaved (q3 their scratch, one after the other),
 * so that each vector ALU instruction's operands are ready when it issues (llvm-mca's M55 model): LOAD_SHIFT puts
 * the right shifts in q2 (as early as the kind allows), SCALAR is a slot for core instructions, MID (q0's offset,
 * say: q3 is free there) comes before q1's last VRSHL, which still reads q2. */
#define FG_MVE_ROUND2_DIVIDE(LOAD_SHIFT, SCALAR, MID) \
    LOAD_SHIFT                                  \
    "vand q3, q0, q2\n"                        \
    "vshr.s32 q3, q3, #31\n"                   \
    "vqadd.s32 q0, q0, q3\n"                   \
    SCALAR                                      \
    "vand q3, q1, q2\n"                        \
    "vrshl.s32 q0, q0, q2\n"                   \
    "vshr.s32 q3, q3, #31\n"                   \
    "vqadd.s32 q1, q1, q3\n"                   \
    MID                                         \
    "vrshl.s32 q1, q1, q2\n"
#define FG_MVE_ROUND2_NEGATIVE(LOAD_SHIFT, SCALAR, MID) \
    "vshr.s32 q3, q0, #31\n"                   \
    LOAD_SHIFT                                  \
    "vqadd.s32 q0, q0, q3\n"                   \
    SCALAR                                      \
    "vshr.s32 q3, q1, #31\n"                   \
    "vrshl.s32 q0, q0, q2\n"                   \
    "vqadd.s32 q1, q1, q3\n"                   \
    MID                                         \
    "vrshl.s32 q1, q1, q2\n"
#define FG_MVE_OFFSET_CLAMP2                    \
    "vadd.i32 q0, q0, %q[v]\n"                 \
    "vadd.i32 q1, q1, %q[v]\n"                 \
    "vmax.s32 q0, q0, %q[lo]\n"                \
    "vmax.s32 q1, q1, %q[lo]\n"                \
    "vmin.s32 q0, q0, %q[hi]\n"                \
    "vmin.s32 q1, q1, %q[hi]\n"

/* The int8 GEMM loops' eight accumulators from a block's bias words (pk, the block's start, then past the biases:
 * FG_MVE_PAST_QUANT takes it past the 48 bytes of multipliers and shifts to the weights). */
#define FG_MVE_INIT_BIAS "ldm %[pk], {r8, r10, r12, lr}\n" "ldm %[pk]!, {r0, r2, r4, r6}\n"
#define FG_MVE_PAST_QUANT "adds %[pk], %[pk], #48\n"

/* The quantization of one block of four output channels, as the variants' packed tables store it (int32 each). */
typedef struct {
    int32x4_t bias, multiplier, left, right;
} fg_mve_quant4;

/* Offset and clamp of a layer, in vector registers. */
typedef struct {
    int32_t offset;
    int32x4_t low, high;
} fg_mve_clamp;

/* What fg_mve_gemm_blocks2's assembly loop reads and updates in memory (its registers hold the accumulators); the
 * offsets are the loop's. */
typedef struct {
    int32_t sums[8];        /* 0: the accumulators on their way to vector registers */
    const int8_t *x0, *x1;  /* 32, 36 */
    int32_t rounds;         /* 40: ceil(steps / 8), steps = ceil(depth / 16) */
    int32_t entry;          /* 44: steps % 8: the dot loop, unrolled 8 times, is entered that many steps before its
                             * end */
    int8_t *out0;           /* 48: advanced by 4 per block */
    int8_t *out1;           /* 52: row 1's, the same (fg_mve_gemm_set_out) */
    const int32_t *end;     /* 56: past the last full block */
    const int32_t *quant;   /* 60: the current block's multipliers, then left and right shifts (the offset 4-bit
                             * layout's loop: its bias words before them) */
    uint32_t second;        /* 64: row 1's outputs, from row 0's */
    int32_t negative;       /* 68: every channel shifts right (fg_mve_rights_negative) */
    int32_t pairs_after;    /* 72: fg_mve_gemm_blocks2_pairs: pairs of rows after the current one */
    int32_t pair_advance;   /* 76: from a pair's rows to the next pair's */
    const int32_t *first_block;  /* 80 */
    int32_t rounds_peeled;  /* 84: rounds and entry of a block's steps after its first two (fg_mve_pairs2_pipe) */
    int32_t entry_peeled;   /* 88 */
    int8_t *pending0;       /* 92: a pair's last outputs while the next pair's first block stores them
                             * (fg_mve_pairs2_pipe_nine) */
    int8_t *pending1;       /* 96 */
} fg_mve_gemm_state;

/* What fg_mve_gemm_row8's assembly loop reads and updates in memory (one row against pairs of blocks; its registers
 * hold the accumulators); the offsets are the loop's. */
typedef struct {
    const int8_t *x;        /* 0: the row, read up to a multiple of 16 taps */
    int32_t rounds;         /* 4: ceil(steps / 8), steps = depth / 16 */
    int8_t *out;            /* 8: advanced by 8 per pair of blocks */
    int32_t block_bytes;    /* 12: one block of the GEMM layout */
    const int32_t *quant;   /* 16: the first block's multipliers */
    int32_t entry;          /* 20: steps % 8 (fg_mve_gemm_state's entry) */
    const int32_t *end;     /* 24: past the last pair of full blocks */
    int32_t unused;         /* 28 */
    int32_t sums[8];        /* 32: the accumulators on their way to vector registers */
} fg_mve_row_state;

/* fg_mve_gemm_state and, before it, where the offset 4-bit layout's loop starts its eight accumulators (LDMDB from
 * the state): per row, -8 x the row's sum for channels 0 and 2 (the low nibbles' offset), 0 for channels 1 and 3. */
typedef struct {
    int32_t row_terms[8];   /* row 0's four accumulators, then row 1's */
    fg_mve_gemm_state gemm;
} fg_mve_gemm_state_s4;

/* fg_mve_row_state and, before it, where fg_mve_gemm_row8_s4's loop starts its eight accumulators (LDMDB from the
 * state): -8 x the row's sum for channels 0 and 2 of both blocks, 0 for channels 1 and 3. */
typedef struct {
    int32_t row_terms[8];
    fg_mve_row_state row;
} fg_mve_row_state_s4;

/* Row `row` (0 or 1) of st sums to `sum` (the other words stay as fg_mve_gemm_state_s4's odd channels want them:
 * zero, fg_mve_begin_row_terms). */
static inline void fg_mve_set_row_sum(fg_mve_gemm_state_s4 *st, int32_t row, int32_t sum) {
    st->row_terms[4 * row] = -8 * sum;
    st->row_terms[4 * row + 2] = -8 * sum;
}

static inline void fg_mve_begin_row_terms(fg_mve_gemm_state_s4 *st) {
    for (int32_t k = 0; k < 8; ++k) {
        st->row_terms[k] = 0;
    }
}

/* Whether every channel of `blocks` quant blocks, block_words apart from `packed`, shifts right (its right shift
 * word, the block's words 12 to 15, negative): then the variants' output stage takes FG_MVE_ROUND_NEGATIVE. */
static inline int fg_mve_rights_negative(const int32_t *packed, int32_t blocks, int32_t block_words) {
    for (int32_t b = 0; b < blocks; ++b, packed += block_words) {
        for (int32_t k = 12; k < 16; ++k) {
            if (packed[k] >= 0) {
                return 0;
            }
        }
    }
    return 1;
}

/* Words per block of four output channels of a GEMM layout whose weights take step_words words per 16 taps (16: int8
 * weights; 8: 4-bit ones). */
static inline int32_t fg_mve_block_words(int32_t depth, int32_t step_words) {
    return 16 + step_words * ((depth + 15) >> 4);
}

/* st for rows of `depth` taps against the full blocks of `out_c` channels from packed (a layout of step_words words
 * per 16 taps), row 1's outputs `second` bytes after row 0's (the rows and out0 are the caller's, per call). Returns
 * the number of channels in full blocks. */
static inline int32_t fg_mve_gemm_begin_layout(fg_mve_gemm_state *st, int32_t depth, int32_t out_c,
                                               const int32_t *packed, uint32_t second, int32_t step_words) {
    const int32_t steps = (depth + 15) >> 4;
    st->rounds = (steps + 7) >> 3;
    st->entry = steps & 7;
    st->second = second;
    st->end = packed + fg_mve_block_words(depth, step_words) * (out_c >> 2);
    st->negative = fg_mve_rights_negative(packed, out_c >> 2, fg_mve_block_words(depth, step_words));
    return out_c & ~3;
}

/* The outputs of st's next two rows: row 0's at out0, row 1's `second` bytes after (fg_mve_gemm_begin_layout). */
static inline void fg_mve_gemm_set_out(fg_mve_gemm_state *st, int8_t *out0) {
    st->out0 = out0;
    st->out1 = out0 + st->second;
}

/* fg_mve_gemm_begin_layout for the int8 GEMM layout. */
static inline int32_t fg_mve_gemm_begin(fg_mve_gemm_state *st, int32_t depth, int32_t out_c, const int32_t *packed,
                                        uint32_t second) {
    return fg_mve_gemm_begin_layout(st, depth, out_c, packed, second, 16);
}

/* st for one row x (depth a multiple of 16) against the pairs of full blocks of `out_c` channels from packed (a layout
 * of step_words words per 16 taps), its outputs at out (fg_mve_gemm_row8). Returns the channels in those pairs. */
static inline int32_t fg_mve_row_begin(fg_mve_row_state *st, const int8_t *x, int32_t depth, int32_t out_c,
                                       const int32_t *packed, int8_t *out, int32_t step_words) {
    const int32_t steps = depth >> 4, pairs = out_c >> 3;
    st->x = x;
    st->rounds = (steps + 7) >> 3;
    st->entry = steps & 7;
    st->out = out;
    st->block_bytes = 4 * fg_mve_block_words(depth, step_words);
    st->end = packed + 2 * fg_mve_block_words(depth, step_words) * pairs;
    return 8 * pairs;
}

/* The 16 int32 words bias[4], multiplier[4], left[4], right[4] at `words`. */
static inline fg_mve_quant4 fg_mve_load_quant4(const int32_t *words) {
    fg_mve_quant4 q;
    q.bias = vldrwq_s32(words);
    q.multiplier = vldrwq_s32(words + 4);
    q.left = vldrwq_s32(words + 8);
    q.right = vldrwq_s32(words + 12);
    return q;
}

static inline fg_mve_clamp fg_mve_make_clamp(const fg_requant_params *q) {
    fg_mve_clamp c;
    c.offset = q->output_offset;
    c.low = vdupq_n_s32(q->activation_min);
    c.high = vdupq_n_s32(q->activation_max);
    return c;
}

/* TFLite's RoundingDivideByPOT of each lane by 2^-right (right <= 0). */
static inline int32x4_t fg_mve_rounding_divide_by_pot(int32x4_t x, int32x4_t right) {
    x = vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, right), 31));  /* -1 on negative lanes when shifting right */
    return vrshlq_s32(x, right);
}

/* acc (bias already added) scaled by the lanes' multipliers and shifts, offset and clamped. */
static inline int32x4_t fg_mve_requantize(int32x4_t acc, const fg_mve_quant4 *q, const fg_mve_clamp *c) {
    const int32x4_t x = vqrdmulhq_s32(vshlq_s32(acc, q->left), q->multiplier);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(fg_mve_rounding_divide_by_pot(x, q->right), c->offset), c->low), c->high);
}

/* Whether any of the layer's channels shifts left before its multiplier (most convolutions do not: the variants'
 * assembly loops then skip that step). */
static inline int fg_mve_any_left_shift(const fg_requant_params *q, int32_t channels) {
    const int32_t entries = q->per_channel ? channels : 1;
    for (int32_t k = 0; k < entries; ++k) {
        if (q->shifts[k] > 0) {
            return 1;
        }
    }
    return 0;
}

/* The copies below: one tail-predicated loop (DLSTP / LETP) of 16 bytes, loading src into q0 and storing it to dst,
 * with EXTRA after the store (GCC 12 makes its own predicated loop of 12 instructions per 16 bytes, and spills its
 * pointers once a second row is read). Only for n > 0. */
#define FG_MVE_COPY_LOOP(EXTRA)                 \
    "dlstp.8 lr, %[n]\n"                       \
    "1:\n"                                     \
    "vldrb.8 q0, [%[src]], #16\n"              \
    "vstrb.8 q0, [%[dst]], #16\n"              \
    EXTRA                                      \
    "letp lr, 1b\n"

/* dst[i] = src[i], i < n. Inlined: a call would cost a pointwise convolution's pixel as much as the copy. */
__attribute__((always_inline)) static inline void fg_mve_copy_s8(int8_t *dst, const int8_t *src, int32_t n) {
    if (n > 0) {
        __asm__ volatile(FG_MVE_COPY_LOOP("") : [dst] "+r"(dst), [src] "+r"(src) : [n] "r"(n) : "lr", "q0", "memory");
    }
}

/* dst[i] = src[i], i < n; returns their sum. */
__attribute__((always_inline)) static inline int32_t fg_mve_copy_sum_s8(int8_t *dst, const int8_t *src, int32_t n) {
    int32_t sum = 0;
    if (n > 0) {
        __asm__ volatile(FG_MVE_COPY_LOOP("vaddva.s8 %[sum], q0\n")
                         : [dst] "+r"(dst), [src] "+r"(src), [sum] "+Te"(sum)
                         : [n] "r"(n)
                         : "lr", "q0", "memory");
    }
    return sum;
}

/* dst[i] = src[i], i < n (n > 0), and the sums of src[i] and other[i], i < n, into sums[]. */
__attribute__((always_inline)) static inline void fg_mve_copy_sum2_s8(int8_t *dst, const int8_t *src,
                                                                      const int8_t *other, int32_t n,
                                                                      int32_t sums[2]) {
    int32_t sum = 0, sum_other = 0;
    __asm__ volatile(FG_MVE_COPY_LOOP("vaddva.s8 %[sum], q0\n"
                                      "vldrb.8 q0, [%[other]], #16\n"
                                      "vaddva.s8 %[sum_other], q0\n")
                     : [dst] "+r"(dst), [src] "+r"(src), [other] "+r"(other), [sum] "+Te"(sum),
                       [sum_other] "+Te"(sum_other)
                     : [n] "r"(n)
                     : "lr", "q0", "memory");
    sums[0] = sum;
    sums[1] = sum_other;
}

/* dst[i] = value, i < n. */
static inline void fg_mve_fill_s8(int8_t *dst, int8_t value, int32_t n) {
    const int8x16_t v = vdupq_n_s8(value);
    for (; n > 0; n -= 16, dst += 16) {
        vstrbq_p_s8(dst, v, vctp8q((uint32_t)n));
    }
}

/* sum x[i], i < n: a tail-predicated loop of 16 bytes (LETP), two instructions a vector. */
__attribute__((always_inline)) static inline int32_t fg_mve_row_sum(const int8_t *x, int32_t n) {
    int32_t sum = 0;
    if (n > 0) {
        __asm__ volatile("dlstp.8 lr, %[n]\n"
                         "1:\n"
                         "vldrb.8 q0, [%[x]], #16\n"
                         "vaddva.s8 %[sum], q0\n"
                         "letp lr, 1b\n"
                         : [x] "+r"(x), [sum] "+Te"(sum)
                         : [n] "r"(n)
                         : "lr", "q0", "memory");
    }
    return sum;
}

/* A band of an image's rows for a window kernel: `rows` tap rows (step_y image rows apart), each `width` pixels of
 * `channels` bytes from image column -pad_left, one after the other; the bytes outside the image (padding columns,
 * rows above or below it) hold the input zero point, so that every window of an output row lies inside the band. */
typedef struct {
    int32_t rows, step_y, in_h, in_w, channels, pad_left, width;
    int8_t zero_point;
} fg_mve_band;

/* Every byte of the band the zero point (its padding columns then stay so). */
static inline void fg_mve_band_begin(const fg_mve_band *b, int8_t *band) {
    fg_mve_fill_s8(band, b->zero_point, b->rows * b->width * b->channels);
}

/* The band of the output row whose windows start at image row y0 (fg_mve_band_begin first). */
static inline void fg_mve_band_rows(const fg_mve_band *b, const int8_t *image, int32_t y0, int8_t *band) {
    const int32_t line = b->width * b->channels, left = b->pad_left < b->width ? b->pad_left : b->width;
    const int32_t room = b->width - left, inside = (room < b->in_w ? room : b->in_w) * b->channels;
    band += left * b->channels;
    for (int32_t k = 0, y = y0; k < b->rows; ++k, y += b->step_y, band += line) {
        if (y < 0 || y >= b->in_h) {
            fg_mve_fill_s8(band, b->zero_point, inside);
        } else {
            fg_mve_copy_s8(band, image + y * b->in_w * b->channels, inside);
        }
    }
}

/* The vector {a, b, c, d}. */
static inline int32x4_t fg_mve_vec4(int32_t a, int32_t b, int32_t c, int32_t d) {
    int32x4_t v = vdupq_n_s32(a);
    v = vsetq_lane_s32(b, v, 1);
    v = vsetq_lane_s32(c, v, 2);
    return vsetq_lane_s32(d, v, 3);
}

#endif /* __ARM_FEATURE_MVE */

#endif /* FG_MVE_SUPPORT_H */
