/* fg/isa/dsp.h's tile-store macros kept defined: the band's tile store is built from its output stages. */
#define FG_DSP_TILE_STORES
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <stddef.h>
#include <string.h>

#include "fg/isa/dsp_staged.h"

/* A 3x3 convolution of stride 1 or 2 (dilation 1, in_c a multiple of 16) whose input rows are sign-extended once
 * each, not once per window that holds them (fg_conv2d_folded_dsp's im2col: nine times at stride 1). The band holds an
 * output row's three input rows (padded columns holding the zero point) as int16 pairs, each row as in_c / 2 lines of
 * `columns` words: line g holds pair g (fg/isa/dsp.h's SXTB16 order) of every column, so three pixels' pair g at one
 * tap are three consecutive words (one LDM) and the next tap's one word further (at stride 2: the line's even columns,
 * then its odd ones, FG_DSP_BAND2_TAPS_2_1). The rows follow each other in the band (the window moved down a stride an
 * output row), so a tile's window is read line after line at a fixed pitch.
 *
 * params->packed: four words, the channel pairs staged on the stack a block (0: none, the table read in place; all
 * of them: the table staged once per call; fewer: each block staged again for each group of output rows' tiles), the
 * band's spare rows (below, fg_conv2d_3x3_band_dsp), the output rows a group (1, or more where the spare rows hold
 * the later rows' windows: a staged block read by that many rows' tiles) and whether the held pixels' pairs share
 * the staged block's words (1 where every group but an image's last holds a whole number of held triples: flushed
 * after the group's tiles, before the next group's block is staged; the block at least as large), then
 * fg_conv2d_folded_dsp's channel constants and weights with each window's input pairs in the band's order (ky, g, kx)
 * instead of (ky, kx, g), kx in the order 0, 2, 1 at stride 2 (ops/variants/dsp_band.py). */

/* The band tile store's job: fg_dsp_job's words at the offsets its output stages read them (fg/isa/dsp.h), the pitch
 * and the end of the window in place of its passes and entry. */
typedef struct {
    uintptr_t ch;       /*  0 */
    int8_t *out;        /*  4 */
    int32_t stride;     /*  8 */
    const uint32_t *x;  /* 12: the tile's first pixel's first pair (line 0 of the band's first row) */
    uintptr_t end;      /* 16 */
    int32_t pitch;      /* 20: bytes from a line to the next */
    uintptr_t x_end;    /* 24: x past the window's last line */
    int32_t low, high, full;  /* 28, 32, 36 */
} fg_dsp_band_job;
#if !defined(FG_CORE_CORTEX_M7)
/* The words the output stages read where fg_dsp_job has them (a negative array size otherwise). */
typedef char fg_dsp_band_job_matches[offsetof(fg_dsp_band_job, end) == offsetof(fg_dsp_job, end) &&
                                     offsetof(fg_dsp_band_job, full) == offsetof(fg_dsp_job, full) &&
                                     sizeof(fg_dsp_band_job) == sizeof(fg_dsp_job) ? 1 : -1];
#endif

#if !defined(FG_CORE_CORTEX_M7)
/* One line of the window (three taps of input pair g) for the channel pair: pixels' pairs a, b, c by one LDM, then
 * d and e (the columns past c) into the registers each tap leaves free; x moves a pitch (r2) to the next line. The
 * same SMLADs on the same registers as FG_DSP_TILE_PAIR (weights A in lr, B in r3): 25 instructions and 36 cycles a
 * line by the M4's timing, against 24 and 39 for FG_DSP_TILE_PAIR's three passes. */
#define FG_DSP_BAND_TAP(a, b, c)                                                                    \
    "ldrd lr, r3, [%[w]], #8\n\t"                                                                  \
    "smlad r4, " a ", lr, r4\n\t" "smlad r5, " b ", lr, r5\n\t" "smlad r6, " c ", lr, r6\n\t"      \
    "smlad r7, " a ", r3, r7\n\t" "smlad r8, " b ", r3, r8\n\t" "smlad r9, " c ", r3, r9\n\t"
#define FG_DSP_BAND_TAPS_1_2                    \
    "ldr r10, [%[x], #12]\n\t"                  \
    FG_DSP_BAND_TAP("r11", "r12", "r10")        \
    "ldr r11, [%[x], #16]\n\t"                  \
    "add %[x], %[x], r2\n\t"                    \
    FG_DSP_BAND_TAP("r12", "r10", "r11")
/* Stride 2: the line is two half-lines a pitch apart, the even columns then the odd ones (fg_dsp_band_at), so the
 * pixels' pairs at taps 0 and 2 are the even half's words 0-2 and 1-3 (one LDM, one LDR) and at tap 1 the odd
 * half's 0-2 (one LDM); the weights in the order of the taps so read, 0, 2, 1. 26 instructions and 39 cycles a line
 * by the M4's timing, as FG_DSP_TILE_PAIR's three passes, without the im2col's extension of every window. */
#define FG_DSP_BAND2_TAPS_2_1                   \
    "ldr r10, [%[x], #12]\n\t"                  \
    "add %[x], %[x], r2\n\t"                    \
    FG_DSP_BAND_TAP("r11", "r12", "r10")        \
    "ldm %[x], {r10, r11, r12}\n\t"             \
    "add %[x], %[x], r2\n\t"                    \
    FG_DSP_BAND_TAP("r10", "r11", "r12")
#define FG_DSP_BAND_LINE(REST) "ldm %[x], {r10, r11, r12}\n\t" FG_DSP_BAND_TAP("r10", "r11", "r12") REST
/* The channel pair's first line, its first tap from the biases (r4, r7) as FG_DSP_BIAS_PAIR. */
#define FG_DSP_BAND_FIRST_LINE(REST)                                                                \
    "ldm %[x], {r10, r11, r12}\n\t"                                                                \
    "ldrd lr, r3, [%[w]], #8\n\t"                                                                  \
    "smlad r8, r11, r3, r7\n\t" "smlad r9, r12, r3, r7\n\t" "smlad r7, r10, r3, r7\n\t"            \
    "smlad r5, r11, lr, r4\n\t" "smlad r6, r12, lr, r4\n\t" "smlad r4, r10, lr, r4\n\t"            \
    REST
/* A row end's two pixels (out_w % 3 == 2) as a tile of two: each line's four words by one LDM (at stride 2 the even
 * half's three by one LDM, the odd half's two by an LDRD), four SMLADs a tap on r4, r5 (channel A) and r7, r8 (B);
 * r9 holds a word, so the third pixel's r6 and r9 are whatever they hold: the output stage stores them too, into
 * the caller's scratch. At stride 1, 16 instructions and 26 cycles a line by the M4's timing for two pixels, against
 * 25 and 36 for three (stride 2: 18 and 30, against 26 and 39). */
#define FG_DSP_BAND_PAIR_TAP(a, b)                                                                 \
    "ldrd lr, r3, [%[w]], #8\n\t"                                                                  \
    "smlad r4, " a ", lr, r4\n\t" "smlad r5, " b ", lr, r5\n\t"                                       \
    "smlad r7, " a ", r3, r7\n\t" "smlad r8, " b ", r3, r8\n\t"
/* A line's first tap on pixels' words r9, r10 (from the biases r4, r7 on the channel pair's first line), then REST. */
#define FG_DSP_BAND_PAIR_LINE(REST) FG_DSP_BAND_PAIR_TAP("r9", "r10") REST
#define FG_DSP_BAND_PAIR_FIRST_LINE(REST)                                                          \
    "ldrd lr, r3, [%[w]], #8\n\t"                                                                  \
    "smlad r5, r10, lr, r4\n\t" "smlad r4, r9, lr, r4\n\t"                                           \
    "smlad r8, r10, r3, r7\n\t" "smlad r7, r9, r3, r7\n\t"                                           \
    REST
#define FG_DSP_BAND_PAIR_LOAD "ldm %[x], {r9, r10, r11, r12}\n\t" "add %[x], %[x], r2\n\t"
#define FG_DSP_BAND_PAIR_TAPS_1_2 FG_DSP_BAND_PAIR_TAP("r10", "r11") FG_DSP_BAND_PAIR_TAP("r11", "r12")
/* Stride 2: taps 0 and 2 from the even half's words 0-2, tap 1 from the odd half's 0-1 (weights 0, 2, 1). */
#define FG_DSP_BAND2_PAIR_LOAD "ldm %[x], {r9, r10, r11}\n\t" "add %[x], %[x], r2\n\t"
#define FG_DSP_BAND2_PAIR_TAPS_2_1             \
    FG_DSP_BAND_PAIR_TAP("r10", "r11")         \
    "ldrd r9, r10, [%[x]]\n\t"                \
    "add %[x], %[x], r2\n\t"                  \
    FG_DSP_BAND_PAIR_TAP("r9", "r10")
#define FG_DSP_BAND_LINES_4(LINE) LINE LINE LINE LINE
#define FG_DSP_BAND_LINES_23(LINE)                                                                  \
    FG_DSP_BAND_LINES_4(LINE) FG_DSP_BAND_LINES_4(LINE) FG_DSP_BAND_LINES_4(LINE)                   \
    FG_DSP_BAND_LINES_4(LINE) FG_DSP_BAND_LINES_4(LINE) LINE LINE LINE
/* Per channel pair: the window's 3 in_c / 2 lines (a multiple of 24) in rounds of 24, ended when x reaches the
 * frame's x_end, then STAGE (the output stage of fg/isa/dsp.h, x reloaded from the frame, the pitch by
 * FG_DSP_PAIR_NEXT, eq past the last pair). */
#undef FG_DSP_PAIR_NEXT
#define FG_DSP_PAIR_NEXT "ldr r2, [sp, #20]\n\t"
#define FG_DSP_TILE_BAND_OF(FIRST_LINE, LINE, STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_ASM(                                    \
        "ldm %[job], {" FRAME "}\n\t"                   \
        "stm sp, {" FRAME "}\n\t"                       \
        "ldr r4, [r3, #-4]\n\t"                         \
        "ldr r7, [r3, #12]\n\t"                         \
        "ldr r2, [sp, #20]\n"                           \
        "7:\n\t"                                        \
        FIRST_LINE                                      \
        "8:\n\t"                                        \
        FG_DSP_BAND_LINES_23(LINE)                      \
        "ldr r3, [sp, #24]\n\t"                         \
        "cmp %[x], r3\n\t"                              \
        "beq 6f\n\t"                                    \
        LINE                                            \
        "b 8b\n"                                        \
        "6:\n\t"                                        \
        STAGE                                           \
        "bne 7b\n\t"                                    \
        OUT_OF_LINE)
#define FG_DSP_TILE_BAND_TAPS(REST, STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_BAND_OF(FG_DSP_BAND_FIRST_LINE(REST), FG_DSP_BAND_LINE(REST), STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_BAND(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_BAND_TAPS(FG_DSP_BAND_TAPS_1_2, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_BAND2(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_BAND_TAPS(FG_DSP_BAND2_TAPS_2_1, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_BAND_PAIR_OF(LOAD, REST, STAGE, FRAME, OUT_OF_LINE)                                       \
    FG_DSP_TILE_BAND_OF(LOAD FG_DSP_BAND_PAIR_FIRST_LINE(REST), LOAD FG_DSP_BAND_PAIR_LINE(REST), STAGE, FRAME, \
                        OUT_OF_LINE)
#define FG_DSP_TILE_BAND_PAIR(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_BAND_PAIR_OF(FG_DSP_BAND_PAIR_LOAD, FG_DSP_BAND_PAIR_TAPS_1_2, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_BAND2_PAIR(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_BAND_PAIR_OF(FG_DSP_BAND2_PAIR_LOAD, FG_DSP_BAND2_PAIR_TAPS_2_1, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_BAND_FUNCTION(name, LOOP, OUT, KIND) \
    static FG_DSP_TILE_JOB_FUNCTION(name, fg_dsp_band_job, LOOP, OUT, KIND)
FG_DSP_BAND_FUNCTION(fg_dsp_band_store, FG_DSP_TILE_BAND, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_BAND_FUNCTION(fg_dsp_band_store_relu, FG_DSP_TILE_BAND, FG_DSP_RELU_DOUBLED, RELU)
FG_DSP_BAND_FUNCTION(fg_dsp_band2_store, FG_DSP_TILE_BAND2, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_BAND_FUNCTION(fg_dsp_band2_store_relu, FG_DSP_TILE_BAND2, FG_DSP_RELU_DOUBLED, RELU)
FG_DSP_BAND_FUNCTION(fg_dsp_band_pair_store, FG_DSP_TILE_BAND_PAIR, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_BAND_FUNCTION(fg_dsp_band_pair_store_relu, FG_DSP_TILE_BAND_PAIR, FG_DSP_RELU_DOUBLED, RELU)
FG_DSP_BAND_FUNCTION(fg_dsp_band2_pair_store, FG_DSP_TILE_BAND2_PAIR, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_BAND_FUNCTION(fg_dsp_band2_pair_store_relu, FG_DSP_TILE_BAND2_PAIR, FG_DSP_RELU_DOUBLED, RELU)
#define FG_DSP_BAND_STORE(stride, relu)                                                   \
    ((stride) == 2 ? ((relu) ? fg_dsp_band2_store_relu : fg_dsp_band2_store)              \
                   : ((relu) ? fg_dsp_band_store_relu : fg_dsp_band_store))
#define FG_DSP_BAND_PAIR_STORE(stride, relu)                                              \
    ((stride) == 2 ? ((relu) ? fg_dsp_band2_pair_store_relu : fg_dsp_band2_pair_store)    \
                   : ((relu) ? fg_dsp_band_pair_store_relu : fg_dsp_band_pair_store))
#else
/* The M7 (dsp_band.py does not offer the band there): each tile gathered, run by fg_dsp_gemm_3_strided. */
#define FG_DSP_BAND_STORE(stride, relu) ((fg_dsp_band_store_function)0)
#define FG_DSP_BAND_PAIR_STORE(stride, relu) ((fg_dsp_band_store_function)0)
#endif
typedef void (*fg_dsp_band_store_function)(const uint32_t *x, const uint32_t *w, const fg_dsp_band_job *job);

#define FG_DSP_BAND_HEADER_WORDS 4

/* The band: the window's three rows at `rows`, each in_c / 2 lines of `columns` words (slot words a row); at stride
 * 2 a line's even columns first, then its odd ones from word `half`. */
typedef struct {
    const fg_conv2d_params *p;
    uint32_t *rows;
    int32_t columns, slot, half;
    int32_t third;  /* the window's third tap in the weights' order from a pixel's first word: 2, or at stride 2 half */
    uint32_t zero_pair;  /* the zero point in both halves */
} fg_dsp_band;

/* The band's columns: the image's after the left padding, or the last tile's taps and the two words past them (at
 * stride 2 an even count: the columns to 2 out_w + 1 and one more). */
static int32_t fg_dsp_band_columns(const fg_conv2d_params *p) {
    const int32_t image = p->pad_left + p->in_w;
    if (p->stride_w == 2) {
        const int32_t even = (image + 1) & ~1, windows = 2 * p->out_w + 2;
        return even > windows ? even : windows;
    }
    const int32_t windows = p->out_w + 2;
    return image > windows ? image : windows;
}

/* The word of a line that holds column c. */
static inline int32_t fg_dsp_band_at(const fg_dsp_band *b, int32_t c) {
    return b->half ? (c & 1) * b->half + (c >> 1) : c;
}

/* `pixels` pixels of in_c values from `from` (`skip` bytes from a pixel's end to the next's) into the band at `to` and
 * the words after it: each pixel's pairs down its column of the row's lines, two words of four values a pass (in_c
 * is a multiple of 16). Out of line: few values live, none reloaded. */
static __attribute__((noinline)) void fg_dsp_band_extend(const int8_t *from, int32_t skip, uint32_t *to,
                                                         int32_t pixels, int32_t in_c, int32_t columns) {
    for (int32_t k = 0; k < pixels; ++k, from += skip, ++to) {
        uint32_t *line = to;
        const int8_t *const end = from + in_c;
        do {
            uint32_t v, u;
            __builtin_memcpy(&v, from, sizeof v);
            __builtin_memcpy(&u, from + 4, sizeof u);
            line[0] = __sxtb16(v);
            line[columns] = fg_dsp_odd_s8x2(v);
            line[2 * columns] = __sxtb16(u);
            line[3 * columns] = fg_dsp_odd_s8x2(u);
            from += 8;
            line += 4 * columns;
        } while (from != end);
    }
}

/* Input row y (the zero point outside the image) into the band's row at `row`: its columns in runs of consecutive
 * words, all of them, or at stride 2 the even ones, then the odd ones. The padding's columns hold the zero point
 * already: written once a call (fg_conv2d_3x3_band_dsp), never overwritten but by whole rows that hold it too. */
static void fg_dsp_band_fill(const fg_dsp_band *b, const int8_t *image, int32_t y, uint32_t *row) {
    const fg_conv2d_params *p = b->p;
    const uint32_t zero_pair = b->zero_pair;
    const int32_t left = p->pad_left, in_w = p->in_w, in_c = p->in_c;
    if (y < 0 || y >= p->in_h) {
        for (int32_t k = 0; k < b->slot; ++k) {
            row[k] = zero_pair;
        }
        return;
    }
    const int8_t *from = image + y * in_w * in_c;
    const int32_t runs = b->half ? 2 : 1;
    for (int32_t first = 0; first < runs && first < in_w; ++first) {
        fg_dsp_band_extend(from + first * in_c, (runs - 1) * in_c, row + fg_dsp_band_at(b, left + first),
                           (in_w - first + runs - 1) / runs, in_c, b->columns);
    }
}

/* The window of output pixel ox (its rows from `window`) in the band's order, pair k at x[3 k] (the tile's stride). */
static void fg_dsp_band_gather(const fg_dsp_band *b, const uint32_t *window, int32_t ox, uint32_t *x) {
    const uint32_t *line = window + ox;
    const int32_t third = b->third, columns = b->columns;
    const uint32_t *const end = x + 9 * 3 * (b->p->in_c >> 1);
    do {
        x[0] = line[0];
        x[3] = line[1];
        x[6] = line[third];
        line += columns;
        x += 9;
    } while (x != end);
}

/* What the tiles run on: the channels' output stages, the weights, the params' clamp. */
typedef struct {
    const fg_dsp_channel *ch;
    const uint32_t *weights;
    int32_t pairs;
    int narrow;
    const fg_requant_params *q;
} fg_dsp_band_layer;

/* The held pixels' outputs (an output row's last out_w % 3 where the pair tile does not run them, three at a time):
 * run into `held`, then copied to each pixel's place. Stored after their own row, never before: each output only
 * overwrites input no later output reads (ops/overlap.py), and the band already holds their windows. The call's last
 * flush of n < 3 pixels runs three too (through the tile store, not fg_dsp_tile_3x2's pixel-by-pixel output stage),
 * the others' outputs not copied. */
static void fg_dsp_band_flush(const fg_dsp_band_layer *l, const uint32_t *x, int32_t out_c, int32_t n, int8_t *held,
                              int8_t *const to[3]) {
    fg_dsp_gemm_3_strided(x, l->weights, l->pairs, l->ch, out_c, out_c, 3, held, l->q, l->narrow);
    for (int32_t j = 0; j < n; ++j) {
        memcpy(to[j], held + j * out_c, (size_t)out_c);
    }
}

/* The pair tile on the window at x (job's x and x_end set) into `scratch` (job's out), then its two pixels' `bytes`
 * outputs to `to` and a pixel (job's stride) after it. Out of line: the row's tile loop keeps its registers. */
static __attribute__((noinline)) void fg_dsp_band_pair(fg_dsp_band_store_function pair_store, const uint32_t *x,
                                                       const uint32_t *weights, fg_dsp_band_job *job, int8_t *scratch,
                                                       int8_t *to, int32_t bytes) {
    job->out = scratch;
    pair_store(x, weights, job);
    const int32_t stride = job->stride;
    for (int32_t k = 0; k < bytes; k += 2) {  /* a channel pair a pass: 2 to 16 bytes, less than memcpy's calls */
        uint16_t first, second;
        __builtin_memcpy(&first, scratch + k, sizeof first);
        __builtin_memcpy(&second, scratch + stride + k, sizeof second);
        __builtin_memcpy(to + k, &first, sizeof first);
        __builtin_memcpy(to + stride + k, &second, sizeof second);
    }
}

/* `count_rows` output rows' whole tiles (the band holding their windows, a stride of rows apart) through the tile
 * store, channel block by channel block: `block` channel pairs staged at w a block (the in-place table's, from l) when
 * blocked, else all of l's at once. With pair_store (out_w % 3 == 2), each row's last two pixels too, by the pair
 * tile into `scratch` (three pixels of out_c: the third's outputs not used), then copied to their places. */
static void fg_dsp_band_row_tiles(const fg_dsp_band *b, const fg_dsp_band_layer *l, fg_dsp_band_store_function store,
                                  fg_dsp_band_store_function pair_store, fg_dsp_band_job *job, int32_t block,
                                  int blocked, uint32_t *w, int8_t *out, int8_t *scratch, int32_t count_rows) {
    const int32_t out_c = b->p->out_c, channel_pairs = out_c >> 1, tiles = b->p->out_w / 3;
    const int32_t window_step = b->p->stride_h * b->slot, out_step = b->p->out_w * out_c, window_words = 3 * b->slot;
    for (int32_t first = 0; first < channel_pairs; first += block) {
        const int32_t count = channel_pairs - first < block ? channel_pairs - first : block;
        const fg_dsp_channel *ch = l->ch + 2 * first;
        const uint32_t *weights = l->weights + first * 2 * l->pairs;
        if (blocked) {
            fg_dsp_stage_words((const uint32_t *)ch, 8 * count, w);
            fg_dsp_stage_words(weights, 2 * l->pairs * count, w + 8 * count);
            ch = (const fg_dsp_channel *)w;
            weights = w + 8 * count;
        }
        job->ch = (uintptr_t)ch + 4;
        job->end = (uintptr_t)(ch + 2 * count) + 4;
        for (int32_t r = 0; r < count_rows; ++r) {
            const uint32_t *x = b->rows + r * window_step;
            const uint32_t *const whole_end = x + 3 * tiles;
            int8_t *to = out + r * out_step + 2 * first;
            for (; x != whole_end; x += 3, to += 3 * out_c) {
                job->x = x;
                job->x_end = (uintptr_t)(x + window_words);
                job->out = to;
                store(x, weights, job);
            }
            if (pair_store) {
                job->x = x;
                job->x_end = (uintptr_t)(x + window_words);
                fg_dsp_band_pair(pair_store, x, weights, job, scratch + 2 * first, to, 2 * count);
            }
        }
    }
}

FG_HOT_LOOP void fg_conv2d_3x3_band_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                        int8_t *output) {
    (void)filter;
    const int32_t *table = (const int32_t *)p->packed, block = table[0], spare = table[1], row_group = table[2];
    const int held_in_block = table[3];
    const int32_t in_c = p->in_c, out_c = p->out_c, out_w = p->out_w, channel_pairs = (out_c + 1) >> 1;
    const int32_t pairs = 9 * (in_c >> 1), columns = fg_dsp_band_columns(p), slot = (in_c >> 1) * columns;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_channel *const ch = (const fg_dsp_channel *)(table + FG_DSP_BAND_HEADER_WORDS);
    fg_dsp_band_layer l = {ch, (const uint32_t *)(table + FG_DSP_BAND_HEADER_WORDS + 4 * out_c), pairs,
                           fg_dsp_all_narrow(ch, out_c), &q};
    const int full = q.activation_min == -128 && q.activation_max == 127;
    const fg_dsp_band_store_function store =
        l.narrow && out_c % 2 == 0 ? FG_DSP_BAND_STORE(p->stride_w, full && q.output_offset == -128) : 0;
    const fg_dsp_band_store_function pair_store =
        store && out_w % 3 == 2 ? FG_DSP_BAND_PAIR_STORE(p->stride_w, full && q.output_offset == -128) : 0;
    const int blocked = block && block < channel_pairs && store;  /* else in place: the gathered tiles read l */
    uint32_t rows[(3 + spare) * slot], x[store ? 1 : 3 * pairs];
    uint32_t held_pairs[held_in_block || pair_store ? 1 : 3 * pairs];
    uint32_t w[block ? block * (8 + 2 * pairs) : 1];
    uint32_t *const held_x = held_in_block ? w : held_pairs;
    int8_t held[3 * out_c], *held_at[3];
    if (block >= channel_pairs) {  /* the whole table staged once */
        fg_dsp_stage_words((const uint32_t *)l.ch, 8 * channel_pairs, w);
        fg_dsp_stage_words(l.weights, 2 * pairs * channel_pairs, w + 8 * channel_pairs);
        l.ch = (const fg_dsp_channel *)w;
        l.weights = w + 8 * channel_pairs;
    }
    const int16_t zero_point = (int8_t)-q.input_offset;
    const int32_t stride = p->stride_h, half = stride == 2 ? columns >> 1 : 0;
    fg_dsp_band b = {p, rows, columns, slot, half, half ? half : 2, (uint16_t)zero_point * 0x10001u};
    fg_dsp_band_job job = {0, output, out_c, rows, 0, 4 * (half ? half : columns), 0, q.activation_min,
                           q.activation_max, full};
    if (!pair_store) {  /* a short flush's unused pixels: any finite pairs */
        memset(held_x, 0, 3 * (size_t)pairs * sizeof *held_x);
    }
    for (int32_t k = 0; k < (3 + spare) * slot; ++k) {  /* the padding's columns, kept (fg_dsp_band_fill) */
        rows[k] = b.zero_pair;
    }
    for (int32_t n = 0; n < p->batches; ++n) {
        const int8_t *image = input + n * p->in_h * p->in_w * in_c;
        int8_t *out = output + n * p->out_h * out_w * out_c;
        int32_t held_count = 0;
        for (int32_t oy = 0; oy < p->out_h; oy += row_group) {
            /* The window of the group's rows ((rows - 1) stride + 3 band rows) moves down the band's 3 + spare rows
             * rows x stride at a time; past them, the rows it keeps are copied back to the top (forward: the rows
             * move up). */
            const int32_t count_rows = p->out_h - oy < row_group ? p->out_h - oy : row_group;
            const int32_t top = oy * stride - p->pad_top, height = (count_rows - 1) * stride + 3;
            int32_t kept = 3 - stride;
            if (oy == 0) {
                b.rows = rows;
                kept = 0;
            } else if (b.rows + (row_group * stride + height) * slot > rows + (3 + spare) * slot) {
                fg_dsp_stage_words(b.rows + row_group * stride * slot, kept * slot, rows);
                b.rows = rows;
            } else {
                b.rows += row_group * stride * slot;
            }
            for (int32_t k = kept; k < height; ++k) {
                fg_dsp_band_fill(&b, image, top + k, b.rows + k * slot);
            }
            const int32_t whole = out_w - out_w % 3;
            if (store) {
                fg_dsp_band_row_tiles(&b, &l, store, pair_store, &job, blocked ? block : channel_pairs, blocked, w,
                                      out, held, count_rows);
            }
            for (int32_t r = 0; r < count_rows; ++r) {
                const uint32_t *const window = b.rows + r * stride * slot;
                for (int32_t t = 0; !store && t < whole; t += 3) {
                    for (int32_t j = 0; j < 3; ++j) {
                        fg_dsp_band_gather(&b, window, t + j, x + j);
                    }
                    fg_dsp_gemm_3_strided(x, l.weights, pairs, l.ch, out_c, out_c, 3, out + t * out_c, &q, l.narrow);
                }
                int32_t ox = pair_store ? out_w : whole;  /* the pair tile ran the row's end */
                for (out += ox * out_c; ox < out_w; ++ox, out += out_c) {
                    fg_dsp_band_gather(&b, window, ox, held_x + held_count);
                    held_at[held_count] = out;
                    if (++held_count == 3) {
                        fg_dsp_band_flush(&l, held_x, out_c, 3, held, held_at);
                        held_count = 0;
                    }
                }
            }
        }
        if (held_count) {
            fg_dsp_band_flush(&l, held_x, out_c, held_count, held, held_at);
        }
    }
}

#endif
