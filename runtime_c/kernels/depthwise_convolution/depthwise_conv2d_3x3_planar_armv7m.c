#include <string.h>

#include "fg/depthwise_conv2d.h"
#include "fg/support/dot_s8.h"
#include "fg/support/requantize_fast.h"
#include "fg/support/weights_s4.h"

/* Channel by channel, in bands of output rows: the input rows a band's windows need are copied into a plane of int8
 * rows FG_DW_PLANAR_PITCH apart on the stack (the padding holds the input zero point, which the folded bias
 * expects), so that every tap of a window is at a constant offset from its top left and the channel's nine weights
 * stay in registers over the band. The band's sums go to int32s first, then through the output stage with the
 * channel's constants in registers (a channel's outputs are in_c bytes apart across rows too). */

#define FG_DW_PLANAR_ROWS 12   /* input rows of a band's plane */
#define FG_DW_PLANAR_SUMS 192  /* outputs of a band */

/* sums[i * n + x] = the nine taps of window x < n of output row i < rows, windows `stride` columns and `stride_h`
 * rows apart, the first's top left at r. */
static inline __attribute__((always_inline)) void fg_dw_planar_sums(const int8_t *r, const int8_t *w, int32_t stride,
                                                                     int32_t stride_h, int32_t rows, int32_t n,
                                                                     int32_t *sums) {
    enum { P = FG_DW_PLANAR_PITCH };
    const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7], w8 = w[8];
    for (int32_t i = 0; i < rows; ++i, r += stride_h * P - stride * n) {
        for (int32_t x = 0; x < n; ++x, r += stride) {
            *sums++ = w0 * r[0] + w1 * r[1] + w2 * r[2] + w3 * r[P] + w4 * r[P + 1] + w5 * r[P + 2] + w6 * r[2 * P] +
                      w7 * r[2 * P + 1] + w8 * r[2 * P + 2];
        }
    }
}

#if defined(__arm__) && defined(__thumb2__)
/* Two windows side by side per pass, each input of a filter row loaded once for both: acc0 (r2) and acc1 (r3) += the
 * filter row's taps (weights wa, wb, wc) at plane offset `row`; stride 1 reads four columns, stride 2 five. */
#define FG_DW_ROW_S1(row, wa, wb, wc, first)                                   \
    "ldrsb r12, [r0, #" row "]\n\t" first("r2", wa)                         \
    "ldrsb r12, [r0, #" row "+1]\n\t" "mla r2, " wb ", r12, r2\n\t" first("r3", wa) \
    "ldrsb r12, [r0, #" row "+2]\n\t" "mla r2, " wc ", r12, r2\n\t" "mla r3, " wb ", r12, r3\n\t" \
    "ldrsb r12, [r0, #" row "+3]\n\t" "mla r3, " wc ", r12, r3\n\t"
#define FG_DW_ROW_S2(row, wa, wb, wc, first)                                   \
    "ldrsb r12, [r0, #" row "]\n\t" first("r2", wa)                         \
    "ldrsb r12, [r0, #" row "+1]\n\t" "mla r2, " wb ", r12, r2\n\t"           \
    "ldrsb r12, [r0, #" row "+2]\n\t" "mla r2, " wc ", r12, r2\n\t" first("r3", wa) \
    "ldrsb r12, [r0, #" row "+3]\n\t" "mla r3, " wb ", r12, r3\n\t"           \
    "ldrsb r12, [r0, #" row "+4]\n\t" "mla r3, " wc ", r12, r3\n\t"
#define FG_DW_MUL(acc, w) "mul " acc ", " w ", r12\n\t"
#define FG_DW_MLA(acc, w) "mla " acc ", " w ", r12, " acc "\n\t"
#define FG_DW_STR(x) #x
#define FG_DW_XSTR(x) FG_DW_STR(x)
/* What the band's loop keeps on the stack: where the current row's pairs end, from there to the next row's first
 * pair, the rows left, and the bytes of sums an odd row's last pair wrote past the row. */
typedef struct {
    const int8_t *end;
    int32_t jump, rows, back;
    int32_t row_bytes;  /* from one output row's windows to the next's: stride_h * FG_DW_PLANAR_PITCH */
} fg_dw_band_job;

#define FG_DW_BAND_ASM(ROW, advance)                                                        \
    __asm__ volatile(                                                                                   \
        "ldm r3, {r4-r8}\n\t"                                                                         \
        "push {r4-r8}\n\t"                                                                            \
        "ldrsb r4, [r2]\n\t"                                                                         \
        "ldrsb r5, [r2, #1]\n\t"                                                                     \
        "ldrsb r6, [r2, #2]\n\t"                                                                     \
        "ldrsb r7, [r2, #3]\n\t"                                                                     \
        "ldrsb r8, [r2, #4]\n\t"                                                                     \
        "ldrsb r9, [r2, #5]\n\t"                                                                     \
        "ldrsb r10, [r2, #6]\n\t"                                                                    \
        "ldrsb r11, [r2, #7]\n\t"                                                                    \
        "ldrsb lr, [r2, #8]\n"                                                                        \
        "1:\n\t"                                                                                      \
        ROW("0", "r4", "r5", "r6", FG_DW_MUL)                                                           \
        ROW(FG_DW_XSTR(FG_DW_PLANAR_PITCH), "r7", "r8", "r9", FG_DW_MLA)                                \
        ROW(FG_DW_XSTR(2 * FG_DW_PLANAR_PITCH), "r10", "r11", "lr", FG_DW_MLA)                          \
        "strd r2, r3, [r1], #8\n\t"                                                                   \
        "add r0, r0, #" advance "\n\t"                                                                 \
        "ldr r12, [sp]\n\t"                                                                           \
        "cmp r0, r12\n\t"                                                                             \
        "bne 1b\n\t"                                                                                  \
        "ldr r2, [sp, #16]\n\t"                                                                      \
        "add r12, r12, r2\n\t"                                                                       \
        "str r12, [sp]\n\t"                                                                           \
        "ldrd r12, r2, [sp, #4]\n\t"                                                                  \
        "add r0, r0, r12\n\t"                                                                         \
        "ldr r12, [sp, #12]\n\t"                                                                      \
        "sub r1, r1, r12\n\t"                                                                         \
        "subs r2, r2, #1\n\t"                                                                         \
        "str r2, [sp, #8]\n\t"                                                                        \
        "bne 1b\n\t"                                                                                  \
        "add sp, sp, #20\n\t"                                                                         \
        : "+r"(rr), "+r"(rs), "+r"(rw), "+r"(rj)                                                        \
        :                                                                                               \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")

/* sums[i * n + x] of the band's rows, windows `stride` columns and rows apart from r, two per pass; sums has room
 * for one output past the band (an odd row's last pair). */
static __attribute__((noinline)) void fg_dw_planar_band(const int8_t *r, const int8_t *w, int32_t stride,
                                                        int32_t stride_h, int32_t rows, int32_t n, int32_t *sums) {
    const int32_t pairs = (n + 1) / 2, width = 2 * stride * pairs;
    const fg_dw_band_job job = {r + width, stride_h * FG_DW_PLANAR_PITCH - width, rows, 4 * (2 * pairs - n),
                                stride_h * FG_DW_PLANAR_PITCH};
    register const int8_t *rr __asm__("r0") = r;
    register int32_t *rs __asm__("r1") = sums;
    register const int8_t *rw __asm__("r2") = w;
    register const fg_dw_band_job *rj __asm__("r3") = &job;
    if (stride == 1) {
        FG_DW_BAND_ASM(FG_DW_ROW_S1, "2");
    } else {
        FG_DW_BAND_ASM(FG_DW_ROW_S2, "4");
    }
}
#undef FG_DW_BAND_ASM
#undef FG_DW_ROW_S1
#undef FG_DW_ROW_S2
#undef FG_DW_MUL
#undef FG_DW_MLA
#else
FG_HOT_LOOP static void fg_dw_planar_band(const int8_t *r, const int8_t *w, int32_t stride, int32_t stride_h,
                                          int32_t rows, int32_t n, int32_t *sums) {
    fg_dw_planar_sums(r, w, stride, stride_h, rows, n, sums);
}
#endif

/* The output stage of one row of one channel: output x at out[x * step]. fast: the channel's constants, or NULL
 * (TFLite's arithmetic). */
FG_HOT_LOOP static void fg_dw_planar_outputs(const int32_t *sums, int32_t count, uint32_t bias,
                                             const fg_fast_channel *fast, const fg_requant_params *q, int32_t channel,
                                             int8_t *out, int32_t step) {
    const int32_t low = q->activation_min, high = q->activation_max, offset = q->output_offset;
    if (fast == NULL) {
        for (int32_t x = 0; x < count; ++x, out += step) {
            *out = fg_requantize_channel_s8(q, fg_wrapped_i32(bias + (uint32_t)sums[x]), channel);
        }
        return;
    }
    const fg_fast_channel k = *fast;
    if (low == -128 && high == 127) {
        for (int32_t x = 0; x < count; ++x, out += step) {
            *out = fg_fast_output(bias + (uint32_t)sums[x], &k, offset);
        }
        return;
    }
    for (int32_t x = 0; x < count; ++x, out += step) {
        const int32_t v = fg_fast_output(bias + (uint32_t)sums[x], &k, offset);
        *out = (int8_t)(v < low ? low : v > high ? high : v);
    }
}

/* The output stage of a layer whose output zero point is -128 and clamp all of int8 (ReLU's): fg_floor_channel
 * (fg/support/requantize_fast.h) set up per channel, for a bias that no sum of nine int8 products wraps. */
#define FG_DW_SUM_BOUND 147456  /* 9 * 128 * 128: no sum of a window's products is larger */

static int fg_dw_floor_stage_of(const fg_requant_params *q, int32_t entry, int32_t bias, fg_floor_channel *s) {
    const int32_t r = -q->shifts[entry], m = q->multipliers[entry];
    if (q->output_offset != -128 || q->activation_min != -128 || q->activation_max != 127 || r < 1 || r > 23 ||
        m < 0 || bias > INT32_MAX - FG_DW_SUM_BOUND || bias < INT32_MIN + FG_DW_SUM_BOUND) {
        return 0;
    }
    const int64_t start = (int64_t)bias * m + (1LL << 30) + ((int64_t)1 << (30 + r)) - ((int64_t)1 << (38 + r));
    s->start_low = (uint32_t)(uint64_t)start;
    s->start_high = (int32_t)(uint32_t)((uint64_t)start >> 32);
    s->multiplier = m;
    s->shift = r - 1;
    return 1;
}

#if defined(__arm__) && defined(__thumb2__)
/* The pairs of outputs from sums up to the job's end (its first word), the stage after its step. */
static inline __attribute__((always_inline)) void fg_dw_floor_pairs(const int32_t *sums, int8_t *out,
                                                                    const void *job) {
    register const int32_t *rs __asm__("r0") = sums;
    register int8_t *ro __asm__("r1") = out;
    register const void *rj __asm__("r2") = job;
    __asm__ volatile(
        "ldm r2, {r3-r8}\n"
        "1:\n\t"
        "ldrd r9, r12, [r0], #8\n\t"
        "mov r10, r5\n\t"
        "mov r11, r6\n\t"
        "smlal r10, r11, r9, r7\n\t"
        "asr r11, r11, r8\n\t"
        "ssat r11, #8, r11\n\t"
        "strb r11, [r1]\n\t"
        "mov r10, r5\n\t"
        "mov r9, r6\n\t"
        "smlal r10, r9, r12, r7\n\t"
        "asr r9, r9, r8\n\t"
        "ssat r9, #8, r9\n\t"
        "strb r9, [r1, r4]\n\t"
        "add r1, r1, r4, lsl #1\n\t"
        "cmp r0, r3\n\t"
        "bne 1b\n\t"
        : "+r"(rs), "+r"(ro), "+r"(rj)
        :
        : "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "cc", "memory");
}
#endif

/* output x of run i = fg_floor_output(sums[i * count + x]) at out[i * run_step + x * step], x < count, i < runs
 * (the rows of a band whose outputs do not continue each other: one set-up for all of them). */
static void fg_dw_floor_outputs(const int32_t *sums, int32_t count, int32_t runs, int32_t run_step,
                                const fg_floor_channel *s, int8_t *out, int32_t step) {
#if defined(__arm__) && defined(__thumb2__)
    struct {
        const int32_t *end;
        int32_t step;
        fg_floor_channel stage;
    } job = {sums, step, *s};
    for (int32_t i = 0; i < runs; ++i, sums += count, out += run_step) {
        if (count & 1) {
            out[(count - 1) * step] = fg_floor_output(sums[count - 1], s);
        }
        if (count < 2) {
            continue;
        }
        job.end = sums + (count & ~1);
        fg_dw_floor_pairs(sums, out, &job);
    }
#else
    for (int32_t i = 0; i < runs; ++i, sums += count, out += run_step) {
        for (int32_t x = 0; x < count; ++x) {
            out[x * step] = fg_floor_output(sums[x], s);
        }
    }
#endif
}

/* How the channels' images are walked: along their rows, or (taller than wide: fewer, longer plane rows) along their
 * columns, as if transposed. Steps in bytes. */
typedef struct {
    int32_t in_rows, in_cols, pad_top, pad_left, stride_r, stride_c, out_rows, out_cols;
    int32_t in_row_step, in_col_step, out_row_step, out_col_step;
    int32_t columns;  /* 1: along the columns */
} fg_dw_walk;

static fg_dw_walk fg_dw_walk_of(const fg_depthwise_conv2d_params *p) {
    const int32_t c = p->in_c;
    if (p->out_h > p->out_w) {
        const fg_dw_walk columns = {p->in_w, p->in_h, p->pad_left, p->pad_top, p->stride_w, p->stride_h, p->out_w,
                                    p->out_h, c, p->in_w * c, c, p->out_w * c, 1};
        return columns;
    }
    const fg_dw_walk rows = {p->in_h, p->in_w, p->pad_top, p->pad_left, p->stride_h, p->stride_w, p->out_h, p->out_w,
                             p->in_w * c, c, p->out_w * c, c, 0};
    return rows;
}

/* Channel c of walked rows first.. (count of them) into plane rows 0.., columns pad_left..; a row outside the image
 * gets the zero point unless `padded` (it holds it already). Four inputs per word store. */
FG_HOT_LOOP static void fg_dw_planar_fill(const fg_dw_walk *v, const int8_t *image, int8_t zero_point, int32_t first,
                                          int32_t count, int padded, int8_t *plane) {
    const int32_t step = v->in_col_step, n = v->in_cols;
    for (int32_t y = first; y < first + count; ++y, plane += FG_DW_PLANAR_PITCH) {
        int8_t *dst = plane + v->pad_left;
        if (y < 0 || y >= v->in_rows) {
            if (!padded) {
                memset(dst, zero_point, (size_t)n);
            }
            continue;
        }
        const uint8_t *src = (const uint8_t *)image + y * v->in_row_step;
        int32_t x = 0;
        for (; x + 4 <= n; x += 4, src += 4 * step) {
            const uint32_t word = src[0] | (uint32_t)src[step] << 8 | (uint32_t)src[2 * step] << 16 |
                                  (uint32_t)src[3 * step] << 24;
            memcpy(dst + x, &word, sizeof word);
        }
        for (; x < n; ++x, src += step) {
            dst[x] = (int8_t)*src;
        }
    }
}

/* The output stage of a band's rows (n outputs each) of channel c, from out: one run when a row's outputs continue
 * the previous row's. */
static inline __attribute__((always_inline)) void fg_dw_planar_band_outputs(
    const fg_depthwise_conv2d_params *p, const fg_dw_walk *v, int32_t c, const int32_t *sums, int32_t rows,
    const fg_floor_channel *floor_stage, const fg_fast_channel *fast, int8_t *out) {
    const int32_t n = v->out_cols, step = v->out_col_step;
    int32_t runs = rows, count = n;
    if (v->out_row_step == n * step) {
        runs = 1;
        count = rows * n;
    }
    if (floor_stage != NULL) {
        fg_dw_floor_outputs(sums, count, runs, v->out_row_step, floor_stage, out, step);
        return;
    }
    for (int32_t i = 0; i < runs; ++i, sums += n, out += v->out_row_step) {
        fg_dw_planar_outputs(sums, count, (uint32_t)p->folded_bias[c], fast, &p->requant, c, out, step);
    }
}

/* Channel c's nine taps: channel_taps[c], or with 4-bit weights nibbles 9c .. 9c + 8 of packed (the filter as
 * [channel][9 taps] in TFLite's nibble packing), unpacked into `unpacked` once per channel. */
static inline __attribute__((always_inline)) const int8_t *fg_dw_planar_taps(const fg_depthwise_conv2d_params *p,
                                                                             int32_t c, int int4, int8_t *unpacked) {
    if (!int4) {
        return p->channel_taps + 9 * c;
    }
    for (int32_t t = 0; t < 9; ++t) {
        unpacked[t] = (int8_t)fg_nibble_s4((const uint8_t *)p->packed, 9 * c + t);
    }
    return unpacked;
}

/* Every walked row of channel c (taps w) of one image, in bands of `band` rows. */
static void fg_dw_planar_channel(const fg_depthwise_conv2d_params *p, const fg_dw_walk *v, const int8_t *image,
                                 int32_t c, const int8_t *w, int32_t band, int8_t *output, int8_t *plane,
                                 int32_t *sums) {
    const fg_requant_params *q = &p->requant;
    const int32_t entry = q->per_channel ? c : 0;
    fg_floor_channel floor_stage;
    const int floor = fg_dw_floor_stage_of(q, entry, p->folded_bias[c], &floor_stage);
    fg_fast_channel fast;  /* only without the floor stage */
    const fg_fast_channel *k = !floor && fg_fast_channel_of(q->multipliers[entry], q->shifts[entry], &fast) ? &fast
                                                                                                          : NULL;
    int8_t transposed[9];  /* the taps in the order of a walk along the columns */
    if (v->columns) {
        for (int32_t t = 0; t < 9; ++t) {
            transposed[t] = w[3 * (t % 3) + t / 3];
        }
        w = transposed;
    }
    for (int32_t oy = 0; oy < v->out_rows; oy += band) {
        const int32_t rows = v->out_rows - oy < band ? v->out_rows - oy : band;
        /* one band: the rows outside the image are the same plane rows for every channel, set up once */
        fg_dw_planar_fill(v, image + c, (int8_t)-q->input_offset, oy * v->stride_r - v->pad_top,
                          (rows - 1) * v->stride_r + 3, band >= v->out_rows, plane);
        fg_dw_planar_band(plane, w, v->stride_c, v->stride_r, rows, v->out_cols, sums);
        fg_dw_planar_band_outputs(p, v, c, sums, rows, floor ? &floor_stage : NULL, k,
                                  output + oy * v->out_row_step + c);
    }
}

/* Raster order, one channel of one pixel at a time: the order every overlap the planner allows is safe in. */
static void fg_dw_planar_raster(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output, int int4) {
    const int32_t channels = p->in_c;
    int8_t unpacked[9];
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += channels) {
                for (int32_t c = 0; c < channels; ++c) {
                    const int8_t *w = fg_dw_planar_taps(p, c, int4, unpacked);
                    uint32_t acc = (uint32_t)p->folded_bias[c];
                    for (int32_t t = 0; t < 9; ++t) {
                        const int32_t y = oy * p->stride_h - p->pad_top + t / 3;
                        const int32_t x = ox * p->stride_w - p->pad_left + t % 3;
                        const int32_t v = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w
                                              ? image[(y * p->in_w + x) * channels + c] : -p->requant.input_offset;
                        acc += (uint32_t)(w[t] * v);
                    }
                    output[c] = fg_requantize_channel_s8(&p->requant, fg_wrapped_i32(acc), c);
                }
            }
        }
    }
}

static inline __attribute__((always_inline)) void fg_dw_planar(const fg_depthwise_conv2d_params *p,
                                                               const int8_t *input, int8_t *output, int int4) {
    if (!fg_depthwise_channel_major(p, input, output)) {
        fg_dw_planar_raster(p, input, output, int4);
        return;
    }
    int8_t plane[FG_DW_PLANAR_ROWS * FG_DW_PLANAR_PITCH];
    int32_t sums[FG_DW_PLANAR_SUMS + 1];
    int8_t unpacked[9];
    const fg_dw_walk walk = fg_dw_walk_of(p);
    const int32_t by_plane = (FG_DW_PLANAR_ROWS - 3) / walk.stride_r + 1, by_sums = FG_DW_PLANAR_SUMS / walk.out_cols;
    const int32_t band = by_plane < by_sums ? by_plane : by_sums;
    const int32_t rows = (band < walk.out_rows ? band - 1 : walk.out_rows - 1) * walk.stride_r + 3;
    /* the padding's columns keep it; only the plane rows a band fills (a row stage's call: one output row's three) */
    memset(plane, (int)(int8_t)-p->requant.input_offset, (size_t)(rows * FG_DW_PLANAR_PITCH));
    const int32_t image_bytes = p->in_h * p->in_w * p->in_c, out_bytes = p->out_h * p->out_w * p->in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t c = 0; c < p->in_c; ++c) {
            fg_dw_planar_channel(p, &walk, input + b * image_bytes, c, fg_dw_planar_taps(p, c, int4, unpacked), band,
                                 output + b * out_bytes, plane, sums);
        }
    }
}

void fg_depthwise_conv2d_3x3_planar_s8(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    fg_dw_planar(p, input, output, 0);
}

void fg_depthwise_conv2d_3x3_planar_s4(const fg_depthwise_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                       int8_t *output) {
    (void)filter;
    fg_dw_planar(p, input, output, 1);
}
