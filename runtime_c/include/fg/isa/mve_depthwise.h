/* The 3x3 depthwise kernel's gathering loops and banded path (depthwise_conv2d_3x3_mve.c), as macros that its int8
 * layout and the 4-bit one (depthwise_conv2d_3x3_s4_mve.c) instantiate each in its own file (so that the other's
 * functions change nothing the compiler inlines in it). */
#ifndef FG_MVE_DEPTHWISE_H
#define FG_MVE_DEPTHWISE_H

#if defined(__ARM_FEATURE_MVE)

#include "fg/variants_mve.h"
#include "fg/isa/mve.h"

/* What the gathering loop reads and updates in memory. */
typedef struct {
    int32_t sums[4];              /* 0: the four channels' scalar accumulators on their way to a vector */
    const int32_t *packed;        /* 16: the first block of the gathering layout */
    int32_t blocks;               /* 20 */
    int32_t advance;              /* 24: from past a pixel's last channel to the next pixel's first */
    int32_t pixels;               /* 28: left to do */
} fg_dw_gather_state;

/* Taps 0-7 of one channel gathered into int16 lanes and dotted with its eight weights (at pk + offset, into w: q1
 * and q2 in turn) into acc; on to the next channel (the ADDS before the VMLADAVA, which then overlaps the next
 * gather: llvm-mca's M55 model). The masked form takes the zero point in the lanes of taps in the padding (P0). */
#define FG_DW_GATHER_W(LOAD_W, acc, w)              \
    "vldrb.s16 q0, [%[x], %q[taps]]\n"             \
    LOAD_W                                         \
    "adds %[x], %[x], #1\n"                        \
    "vmladava.s16 " acc ", q0, " w "\n"
/* LOAD_W: the channel's eight weights into w (the int8 layout's int16 ones at pk + offset: FG_DW_W16). */
#define FG_DW_W16(offset, w) "vldrh.16 " w ", [%[pk], #" #offset "]\n"
#define FG_DW_GATHER(offset, acc, w) FG_DW_GATHER_W(FG_DW_W16(offset, w), acc, w)

/* The rest of a block: tap 8 of the four channels (gathered: its offsets are per lane), the scalar sums into a
 * vector through st, requantization (as fg_mve_requantize; LEFT_SHIFT: FG_DW_LEFT_SHIFT, or nothing for a layer
 * that never shifts left), the store, on to the next block. */
#define FG_DW_LEFT_SHIFT "vldrw.32 q1, [%[pk], #16]\n" "vshl.s32 q0, q0, q1\n"
#define FG_DW_SIGN "vand q2, q0, q1\n" "vshr.s32 q2, q2, #31\n"  /* -1 where q0 < 0 and q1 (its right shift) < 0 */
#define FG_DW_SIGN_NEGATIVE "vshr.s32 q2, q0, #31\n"  /* the same when every right shift is negative */
#define FG_DW_GATHER_BLOCK_END_W(TAP8_W, ADVANCE, LEFT_SHIFT, SIGN) \
    "vldrb.s32 q0, [%[x], %q[tap8]]\n"             \
    TAP8_W                                         \
    "vmul.i32 q0, q0, q1\n"                        \
    "stm %[st], {r0, r2, r4, r6}\n"                \
    "vldrw.32 q1, [%[st]]\n"                       \
    "vadd.i32 q0, q0, q1\n"                        \
    LEFT_SHIFT                                      \
    "vldrw.32 q1, [%[pk]]\n"                       \
    "vqrdmulh.s32 q0, q0, q1\n"                    \
    "vldrw.32 q1, [%[pk], #32]\n"                  \
    SIGN                                            \
    "vqadd.s32 q0, q0, q2\n"                       \
    "vrshl.s32 q0, q0, q1\n"                       \
    ADVANCE                                        \
    "subs %[n], %[n], #1\n"                        \
    "vadd.i32 q0, q0, %[off]\n"                    \
    "vmax.s32 q0, q0, %q[lo]\n"                    \
    "vmin.s32 q0, q0, %q[hi]\n"                    \
    "vstrb.32 q0, [%[out]], #4\n"                  \
    "bne 1b\n"
/* The int8 gathering layout's: tap 8's int32 weights, a block of 144 bytes (pk past its bias words). */
#define FG_DW_TAP8_W32(q) "vldrw.32 " q ", [%[pk], #112]\n"
#define FG_DW_ADVANCE8 "adds %[pk], %[pk], #128\n"
#define FG_DW_GATHER_BLOCK_END(LEFT_SHIFT, SIGN) \
    FG_DW_GATHER_BLOCK_END_W(FG_DW_TAP8_W32("q1"), FG_DW_ADVANCE8, LEFT_SHIFT, SIGN)

/* `pixels` interior output pixels of a row (channels a multiple of four; first: the top left tap of the first one),
 * through the gathering layout: per channel, taps 0-7 gathered into eight int16 lanes (VLDRB.S16 with the taps'
 * byte offsets, the same for every interior pixel) and dotted with the channel's eight int16 weights by one
 * VMLADAVA.S16 into an even register; tap 8 of the four channels as a vector (VLDRB.S32 gather, VMUL). */
#define FG_DW_GATHERED_RUN_W(NAME, GATHERS, END, PK) \
FG_HOT_LOOP __attribute__((noinline)) static void NAME(const int8_t *first, const int32_t *packed, \
                                                                     int32_t channels, int32_t pixels, \
                                                                     int32_t pixel_step, uint16x8_t tap_offsets, \
                                                                     uint32_t tap8_offset, const fg_mve_clamp *clamp, \
                                                                     int8_t *out) { \
    fg_dw_gather_state st = {{0, 0, 0, 0}, packed, channels >> 2, pixel_step - channels, pixels}; \
    const int32x4_t low = clamp->low, high = clamp->high; \
    const uint32x4_t tap8 = vaddq_n_u32(vidupq_n_u32(0, 1), tap8_offset - 4u);  /* from past the block */ \
    const int32_t *pk; \
    int32_t n; \
    __asm__ volatile("3:\n" \
                     "ldr %[pk], [%[st], #16]\n" \
                     "ldr %[n], [%[st], #20]\n" \
                     "1:\n" \
                     "ldm %[pk]!, {r0, r2, r4, r6}\n" \
                     GATHERS \
                     END \
                     "ldr %[n], [%[st], #24]\n" \
                     "add %[x], %[x], %[n]\n" \
                     "ldr %[n], [%[st], #28]\n" \
                     "subs %[n], %[n], #1\n" \
                     "str %[n], [%[st], #28]\n" \
                     "bne 3b\n" \
                     : [x] "+r"(first), [out] "+l"(out), [pk] PK(pk), [n] "=&r"(n) \
                     : [st] "r"(&st), [off] "r"(clamp->offset), [lo] "w"(low), [hi] "w"(high), \
                       [taps] "w"(tap_offsets), [tap8] "w"(tap8) \
                     : "r0", "r2", "r4", "r6", "q0", "q1", "q2", "memory", "cc"); \
}
#define FG_DW_GATHERED_RUN(NAME, LEFT_SHIFT, SIGN)                                                          \
    FG_DW_GATHERED_RUN_W(NAME,                                                                             \
                         FG_DW_GATHER(48, "r0", "q1") FG_DW_GATHER(64, "r2", "q2") FG_DW_GATHER(80, "r4", "q1") \
                         FG_DW_GATHER(96, "r6", "q2"), FG_DW_GATHER_BLOCK_END(LEFT_SHIFT, SIGN), "=&r")

/* By kind: 1 with the left shift, 2 every channel shifting right (a layer that shifts left has a channel that does
 * not shift right), else 0. */
typedef void fg_dw_run_loop(const int8_t *first, const int32_t *packed, int32_t channels, int32_t pixels,
                            int32_t pixel_step, uint16x8_t tap_offsets, uint32_t tap8_offset,
                            const fg_mve_clamp *clamp, int8_t *out);

/* What the pairs' gathering loop reads and updates in memory. */
typedef struct {
    int32_t sums[8];              /* 0: pixel A's four scalar accumulators, then pixel B's */
    const int32_t *packed;        /* 32: the first block of the gathering layout */
    int32_t blocks;               /* 36 */
    int32_t advance;              /* 40: from past pixel A's last channel to the next pair's first */
    int32_t pairs;                /* 44: left to do */
    int32_t offset;               /* 48: the output offset */
    int32_t unused;               /* 52 */
    int8_t *row;                  /* 56: pixel B's outputs, until all its inputs are read (or B's output row) */
    int32_t channels;             /* 60 */
    int32x4_t low, high;          /* 64, 80 */
} fg_dw_pairs_state;

/* Taps 0-7 of one channel of two pixels (B: offsets tapsB, one pixel step further) dotted with the channel's eight
 * weights (loaded once, into w: q2 and q3 in turn) into A's and B's accumulators, A's taps already in q0; NEXT
 * gathers the next channel's A taps (or tap 8 of the block) into q0 before B's VMLADAVA, so that loads and
 * multiplies alternate (llvm-mca's M55 model: the M55 overlaps a load's beats with a multiply's). */
#define FG_DW_GATHER_A "vldrb.s16 q0, [%[x], %q[taps]]\n"
#define FG_DW_GATHER2_W(LOAD_W, acc, acc_b, w, NEXT) \
    LOAD_W                                         \
    "vmladava.s16 " acc ", q0, " w "\n"            \
    "vldrb.s16 q1, [%[x], %q[tapsb]]\n"            \
    "adds %[x], %[x], #1\n"                        \
    NEXT                                           \
    "vmladava.s16 " acc_b ", q1, " w "\n"
#define FG_DW_GATHER2(offset, acc, acc_b, w, NEXT) FG_DW_GATHER2_W(FG_DW_W16(offset, w), acc, acc_b, w, NEXT)
#define FG_DW_LEFT_SHIFT2 "vldrw.32 q2, [%[pk], #16]\n" "vshl.s32 q0, q0, q2\n" "vshl.s32 q1, q1, q2\n"

/* After a pair of fg_dw_gathered_pairs: B's outputs, on the stack, copied to the output right after A's (the pair
 * side by side); or nothing: B, the pixel below A, stored its outputs in place (FG_DW_PAIR_BELOW). */
#define FG_DW_PAIR_BESIDE                           \
    "ldrd r0, r2, [%[st], #56]\n"                  \
    "mov %[second], r0\n"                          \
    "mov r4, %[out]\n"                             \
    "add %[out], %[out], r2\n"                     \
    "dlstp.8 lr, r2\n"                             \
    "2:\n"                                         \
    "vldrb.8 q0, [r0], #16\n"                      \
    "vstrb.8 q0, [r4], #16\n"                      \
    "letp lr, 2b\n"
#define FG_DW_PAIR_BELOW ""

/* A block of four channels of a pair of pixels: both pixels' eight accumulators from the block's biases, taps 0-7 by
 * FG_DW_GATHER2, tap 8 multiplied as int32 words, the sums through st into q0 (A) and q1 (B), requantized (LEFT_SHIFT,
 * the multipliers, ROUND2 with the offset and clamp interleaved), stored through out and second; the flags say
 * whether blocks are left. */
#define FG_DW_GATHERED_BLOCK_W(GATHERS2, TAP8_W, ADVANCE, LEFT_SHIFT, ROUND2) \
    "ldm %[pk], {r8, r10, r12, lr}\n"                      \
    "ldm %[pk]!, {r0, r2, r4, r6}\n"                       \
    FG_DW_GATHER_A                                         \
    GATHERS2                                               \
    TAP8_W                                                 \
    "vmul.i32 q0, q0, q2\n"                                \
    "vldrb.s32 q1, [%[x], %q[tap8b]]\n"                    \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"      \
    "vmul.i32 q1, q1, q2\n"                                \
    "vldrw.32 q2, [%[st]]\n"                               \
    "vadd.i32 q0, q0, q2\n"                                \
    "vldrw.32 q3, [%[st], #16]\n"                          \
    "vadd.i32 q1, q1, q3\n"                                \
    LEFT_SHIFT                                             \
    "vldrw.32 q2, [%[pk]]\n"                               \
    "vqrdmulh.s32 q0, q0, q2\n"                            \
    "ldr r0, [%[st], #48]\n"                               \
    "vqrdmulh.s32 q1, q1, q2\n"                            \
    ROUND2("vldrw.32 q2, [%[pk], #32]\n", ADVANCE "subs %[n], %[n], #1\n",                             \
           "vadd.i32 q0, q0, r0\n" "vldrw.32 q3, [%[st], #64]\n")   \
    "vmax.s32 q0, q0, q3\n"                                \
    "vadd.i32 q1, q1, r0\n"                                \
    "vldrw.32 q2, [%[st], #80]\n"                          \
    "vmax.s32 q1, q1, q3\n"                                \
    "vmin.s32 q0, q0, q2\n"                                \
    "vstrb.32 q0, [%[out]], #4\n"                          \
    "vmin.s32 q1, q1, q2\n"                                \
    "vstrb.32 q1, [%[second]], #4\n"
/* The int8 gathering layout's four channels, taps 0-7 (weights q2 and q3 in turn). */
#define FG_DW_GATHER2_S8                                   \
    FG_DW_GATHER2(48, "r0", "r8", "q2", FG_DW_GATHER_A)    \
    FG_DW_GATHER2(64, "r2", "r10", "q3", FG_DW_GATHER_A)   \
    FG_DW_GATHER2(80, "r4", "r12", "q2", FG_DW_GATHER_A)   \
    FG_DW_GATHER2(96, "r6", "lr", "q3", "vldrb.s32 q0, [%[x], %q[tap8]]\n")
#define FG_DW_GATHERED_BLOCK(LEFT_SHIFT, ROUND2) \
    FG_DW_GATHERED_BLOCK_W(FG_DW_GATHER2_S8, FG_DW_TAP8_W32("q2"), FG_DW_ADVANCE8, LEFT_SHIFT, ROUND2)

/* fg_dw_gathered_run two pixels at a time (`pairs` pairs), each weight vector loaded once for both: per block A's
 * outputs are stored, B's (PAIR_END) go to a row on the stack, copied to the output once every block of B is read
 * (ops/overlap.py's order: each pixel's outputs after its reads, those of the pixel before), or, B below A in a band
 * (every input of the two output rows already copied), to B's output row. */
#define FG_DW_GATHERED_PAIRS_W(NAME, BODY, PAIR_END, PK) \
FG_HOT_LOOP __attribute__((noinline)) static void NAME(const int8_t *first, fg_dw_pairs_state *st, \
                                                       uint16x8_t tap_offsets, uint16x8_t tap_offsets_b, \
                                                       uint32x4_t tap8, uint32x4_t tap8_b, int8_t *out) { \
    const int32_t *pk; \
    int32_t n; \
    int8_t *second = st->row; \
    __asm__ volatile("3:\n" \
                     "ldr %[pk], [%[st], #32]\n" \
                     "ldr %[n], [%[st], #36]\n" \
                     "1:\n" \
                     BODY \
                     "bne 1b\n" \
                     PAIR_END \
                     "ldr %[n], [%[st], #40]\n" \
                     "add %[x], %[x], %[n]\n" \
                     "ldr %[n], [%[st], #44]\n" \
                     "subs %[n], %[n], #1\n" \
                     "str %[n], [%[st], #44]\n" \
                     "bne 3b\n" \
                     : [x] "+r"(first), [out] "+l"(out), [second] "+l"(second), [pk] PK(pk), [n] "=&r"(n) \
                     : [st] "r"(st), [taps] "w"(tap_offsets), [tapsb] "w"(tap_offsets_b), [tap8] "w"(tap8), \
                       [tap8b] "w"(tap8_b) \
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory", "cc"); \
}
#define FG_DW_GATHERED_PAIRS(NAME, BODY, PAIR_END) FG_DW_GATHERED_PAIRS_W(NAME, BODY, PAIR_END, "=&r")

typedef void fg_dw_pairs_loop(const int8_t *first, fg_dw_pairs_state *st, uint16x8_t tap_offsets,
                              uint16x8_t tap_offsets_b, uint32x4_t tap8, uint32x4_t tap8_b, int8_t *out);

/* A window's taps in a band: the offsets of taps 0-7 and of tap 8 from the band's first byte (plus the pixel's). */
typedef struct {
    uint16x8_t taps;
    uint32_t tap8;
} fg_dw_taps_at;

/* `pairs` pairs of pixels (fg_dw_gathered_run's arguments; `kind` as fg_dw_gathered_runs'): with below NULL the
 * first 2 x pairs pixels of an interior run, side by side (fg_dw_gathered_pairs); else A's in a row of a band and
 * the pixels right below them (taps at *below, outputs at out_below: fg_dw_gathered_below). */
#define FG_DW_PAIRS_FN(NAME, PAIRS_KINDS, BELOW_KINDS)                                                               \
static void NAME(const int8_t *first, const int32_t *packed, int32_t channels, int32_t pairs,                        \
                 int32_t pixel_step, uint16x8_t tap_offsets, uint32_t tap8_offset, int kind,                         \
                 const fg_mve_clamp *clamp, int8_t *out, const fg_dw_taps_at *below, int8_t *out_below) {            \
    int8_t row[FG_MVE_DEPTHWISE_MAX];                                                                                \
    fg_dw_pairs_state st;                                                                                            \
    st.packed = packed;                                                                                              \
    st.blocks = channels >> 2;                                                                                       \
    st.advance = (below ? 1 : 2) * pixel_step - channels;                                                            \
    st.pairs = pairs;                                                                                                \
    st.offset = clamp->offset;                                                                                       \
    st.row = below ? out_below : row;                                                                                \
    st.channels = channels;                                                                                          \
    st.low = clamp->low;                                                                                             \
    st.high = clamp->high;                                                                                           \
    const uint32x4_t lanes = vidupq_n_u32(0, 1);                                                                     \
    const uint32x4_t tap8 = vaddq_n_u32(lanes, tap8_offset - 4u);  /* from past the block */                         \
    const uint16x8_t tap_offsets_b = below ? below->taps : vaddq_n_u16(tap_offsets, (uint16_t)pixel_step);           \
    const uint32x4_t tap8_b = below ? vaddq_n_u32(lanes, below->tap8 - 4u) : vaddq_n_u32(tap8, (uint32_t)pixel_step); \
    (below ? BELOW_KINDS : PAIRS_KINDS)[kind](first, &st, tap_offsets, tap_offsets_b, tap8, tap8_b, out);            \
}

/* The byte offsets of taps 0-7 (the gathering loops'): tap row r at rows[r], columns col_step apart. */
static uint16x8_t fg_dw_tap_offsets(const int32_t rows[3], int32_t col_step) {
    uint16_t offsets[8];
    for (int32_t k = 0; k < 8; ++k) {
        offsets[k] = (uint16_t)(rows[k / 3] + (k % 3) * col_step);
    }
    return vldrhq_u16(offsets);
}

/* The largest band of three tap rows (with their zero-point columns) on the stack. */
enum { FG_DW_BAND_MAX = 4096 };

/* Band pixels per tap row: from image column -pad_left to the last output pixel's last tap. */
static int32_t fg_dw_band_width(const fg_depthwise_conv2d_params *p) {
    return (p->out_w - 1) * p->stride_w + 2 * p->dilation_w + 1;
}

/* Row by row: the output row's tap rows in a band with the padding's zero points, then every pixel of the row an
 * interior one of the band (fg_dw_pairs, the last odd one fg_dw_gathered_run). The band's lines are a ring: image
 * row y in line (y + pad_top) % lines, so that an output row copies only the rows the one before did not hold (one
 * at stride 1), its window's tap rows in the lines its top one's line says (`top`: the taps' offsets of each). At
 * stride_h and dilation_h 1, four lines when they fit: two output rows at a time, each pixel paired with the one
 * below it (no odd pixel left at the end of a row). Three lines and a dilation_h a multiple of three would put a
 * window's rows in one line: tap row r in line r then. */
#define FG_DW_BANDED(NAME, GATHERING, BLOCK_WORDS, PAIRS, RUNS)                                                      \
__attribute__((noinline)) static void NAME(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) { \
    int8_t band[FG_DW_BAND_MAX];                                                                                     \
    const int32_t channels = p->in_c, width = fg_dw_band_width(p), line = width * channels;                          \
    const int32_t col_step = p->dilation_w * channels, pixel_step = p->stride_w * channels;                          \
    const fg_mve_clamp clamp = fg_mve_make_clamp(&p->requant);                                                       \
    const int32_t *gathering = GATHERING;                                                                            \
    const int kind = fg_mve_any_left_shift(&p->requant, channels) ? 1                                                \
                     : 2 * fg_mve_rights_negative(gathering, channels >> 2, BLOCK_WORDS);                            \
    const int below = p->stride_h == 1 && p->dilation_h == 1 && 4 * line <= FG_DW_BAND_MAX;                          \
    const int32_t lines = below ? 4 : 3;                                                                             \
    const int ring = p->dilation_h % lines != 0;                                                                     \
    const int32_t line_step = ring ? p->dilation_h : 1;  /* from a tap row's line to the next one's, modulo lines */ \
    fg_dw_taps_at at_top[4];                                                                                         \
    for (int32_t top = 0; top < lines; ++top) {                                                                      \
        int32_t rows_at[3];                                                                                          \
        for (int32_t r = 0; r < 3; ++r) {                                                                            \
            rows_at[r] = (top + r * line_step) % lines * line;                                                       \
        }                                                                                                            \
        at_top[top].taps = fg_dw_tap_offsets(rows_at, col_step);                                                     \
        at_top[top].tap8 = (uint32_t)(rows_at[2] + 2 * col_step);                                                    \
    }                                                                                                                \
    const int32_t pairs = p->out_w >> 1, out_row = p->out_w * channels;                                              \
    const fg_mve_band rows = {lines, p->dilation_h, p->in_h, p->in_w, channels, p->pad_left, width,                  \
                              (int8_t)-p->requant.input_offset};                                                     \
    fg_mve_band lone = rows;  /* one line at a time */                                                               \
    lone.rows = 1;                                                                                                   \
    fg_mve_band_begin(&rows, band);                                                                                  \
    for (int32_t b = 0; b < p->batches; ++b) {                                                                       \
        const int8_t *image = input + b * p->in_h * p->in_w * channels;                                              \
        int32_t held[4] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};  /* the image row in each line */            \
        for (int32_t oy = 0; oy < p->out_h;) {                                                                       \
            const int32_t y0 = oy * p->stride_h - p->pad_top, top = ring ? (y0 + p->pad_top) % lines : 0;            \
            const int two = below && oy + 1 < p->out_h;  /* this output row and the one below */                     \
            for (int32_t r = 0; r < 3 + two; ++r) {                                                                  \
                const int32_t y = y0 + r * p->dilation_h, at = (top + r * line_step) % lines;                        \
                if (held[at] != y) {                                                                                 \
                    fg_mve_band_rows(&lone, image, y, band + at * line);                                             \
                    held[at] = y;                                                                                    \
                }                                                                                                    \
            }                                                                                                        \
            const fg_dw_taps_at *taps = &at_top[top];                                                                \
            if (two) {                                                                                               \
                PAIRS(band, gathering, channels, p->out_w, pixel_step, taps->taps, taps->tap8, kind, &clamp,         \
                      output, &at_top[(top + 1) % lines], output + out_row);                                         \
            } else {                                                                                                 \
                if (pairs > 0) {                                                                                     \
                    PAIRS(band, gathering, channels, pairs, pixel_step, taps->taps, taps->tap8, kind, &clamp,        \
                          output, NULL, NULL);                                                                       \
                }                                                                                                    \
                if (p->out_w & 1) {                                                                                  \
                    RUNS[kind](band + 2 * pairs * pixel_step, gathering, channels, 1, pixel_step, taps->taps,        \
                               taps->tap8, &clamp, output + 2 * pairs * channels);                                   \
                }                                                                                                    \
            }                                                                                                        \
            oy += 1 + two;                                                                                           \
            output += (1 + two) * out_row;                                                                           \
        }                                                                                                            \
    }                                                                                                                \
}

#endif /* __ARM_FEATURE_MVE */

#endif /* FG_MVE_DEPTHWISE_H */
