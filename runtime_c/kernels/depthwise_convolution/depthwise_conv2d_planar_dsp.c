#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"

/* One channel at a time: the input rows a window needs are sign-extended into a ring of three int16 rows (the
 * padding holds the input zero point), so that a word of a row is two horizontally adjacent inputs. Two outputs
 * x, x + 1 of a row take, per filter row i with words A_i = (w_i0, w_i1) and C_i = (w_i1, w_i2):
 *   q0 = (in[x], in[x+1]), q2 = (in[x+2], in[x+3]):
 *   out_x += SMLAD(q0, A_i) + SMLABT(q2, C_i), out_x+1 += SMLATB(q0, A_i) + SMLAD(q2, C_i)
 * A narrow channel's weights and bias are doubled at generation time: the accumulator is already 2 acc for SMMULR. */

typedef struct {
    const int16_t *r[3];  /* the window's three input rows, column 0 the first padded column */
} fg_dsp_dw_rows;

/* The three filter rows' weight words (A_i, C_i) of one channel. */
typedef struct {
    uint32_t a0, c0, a1, c1, a2, c2;
} fg_dsp_dw_taps;

static inline __attribute__((always_inline)) uint32_t fg_dsp_dw_word(const int16_t *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* acc0, acc1 += one filter row's taps of outputs x, x + 1 (columns from p, the first one's window). */
#define FG_DSP_DW_ROW_S1(p, a, c)                                                         \
    do {                                                                                  \
        const int32_t q0 = (int32_t)fg_dsp_dw_word(p), q2 = (int32_t)fg_dsp_dw_word((p) + 2); \
        acc0 = __smlad(q0, (int32_t)(a), acc0);                                           \
        acc0 = __smlabt(q2, (int32_t)(c), acc0);                                          \
        acc1 = __smlatb(q0, (int32_t)(a), acc1);                                          \
        acc1 = __smlad(q2, (int32_t)(c), acc1);                                           \
    } while (0)
/* mode: 0 narrow, no rounding correction for negative values (the clamp's floor is at or above the output zero
 * point: every negative value clamps to it either way) and the clamp all of int8; 1 narrow; 2 wide. */
static inline __attribute__((always_inline)) int8_t fg_dsp_dw_out(int32_t acc, const fg_dsp_channel *k, int mode,
                                                                   const fg_requant_params *q) {
    if (mode == 0) {
        const int32_t v = fg_dsp_high_mul_doubled(acc, k->multiplier);
        return (int8_t)__ssat((v + k->offset) >> k->shift, 8);
    }
    if (mode == 1) {
        return fg_dsp_clamp(fg_dsp_narrow_doubled(acc, k), 0, q->activation_min, q->activation_max);
    }
    return fg_dsp_requantize((uint32_t)acc, k, 1, 0, q->activation_min, q->activation_max, q->output_offset);
}

/* One output row of one channel: `count` outputs (rounded up to pairs: the ring holds the columns a pair's second
 * output reads), output x at out[x * step]. */
static inline __attribute__((always_inline)) void fg_dsp_dw_row(const fg_dsp_dw_rows *rows, const fg_dsp_dw_taps *w,
                                                                 const fg_dsp_channel *k, int32_t count, int8_t *out,
                                                                 int32_t step, int mode,
                                                                 const fg_requant_params *q) {
    const int16_t *p0 = rows->r[0], *p1 = rows->r[1], *p2 = rows->r[2];
    const fg_dsp_dw_taps t = *w;
    const int32_t bias = k->bias;
    for (int32_t x = 0; x < count; x += 2, p0 += 2, p1 += 2, p2 += 2) {
        int32_t acc0 = bias, acc1 = bias;
        FG_DSP_DW_ROW_S1(p0, t.a0, t.c0);
        FG_DSP_DW_ROW_S1(p1, t.a1, t.c1);
        FG_DSP_DW_ROW_S1(p2, t.a2, t.c2);
        out[0] = fg_dsp_dw_out(acc0, k, mode, q);
        if (x + 1 < count) {
            out[step] = fg_dsp_dw_out(acc1, k, mode, q);
        }
        out += 2 * step;
    }
}
#undef FG_DSP_DW_ROW_S1

/* What fg_dsp_dw_row_asm reads: the order its LDM / LDRD expect. */
typedef struct {
    fg_dsp_dw_taps w;
    int32_t bias, multiplier, offset, shift;
    int32_t pairs;  /* >= 1 */
    int32_t step;   /* from one output to the next: in_c */
} fg_dsp_dw_job;

#define FG_DSP_DW_ROW_BYTES (2 * FG_DSP_DW_ROW_MAX)
#define FG_DSP_DW_STR(x) #x
#define FG_DSP_DW_XSTR(x) FG_DSP_DW_STR(x)
/* One filter row's taps of a pair (weights A in wa, C in wc; the row `off` bytes past p). */
#define FG_DSP_DW_ASM_S1(off, wa, wc)                  \
    "ldr r10, [%[p], #" off "]\n\t"                  \
    "ldr r11, [%[p], #" off "+4]\n\t"                \
    "smlad r8, r10, " wa ", r8\n\t"                  \
    "smlatb r8, " wc ", r11, r8\n\t"                 \
    "smlatb r9, r10, " wa ", r9\n\t"                 \
    "smlad r9, r11, " wc ", r9\n\t"
#define FG_DSP_DW_ASM_ROW(ROW, advance)                                                        \
    __asm__ volatile(                                                                          \
        "ldm %[job], {r2-r7}\n\t"                                                            \
        "ldrd r8, r9, [%[job], #24]\n\t"                                                     \
        "ldrd r10, r11, [%[job], #32]\n\t"                                                   \
        "push {r8-r11}\n\t"                                                                  \
        "ldr lr, [%[job], #40]\n\t"                                                          \
        "ldr %[job], [%[job], #44]\n"                                                         \
        "1:\n\t"                                                                             \
        "ldr r8, [sp]\n\t"                                                                   \
        "mov r9, r8\n\t"                                                                     \
        ROW("0", "r2", "r3")                                                                   \
        ROW(FG_DSP_DW_XSTR(FG_DSP_DW_ROW_BYTES), "r4", "r5")                                   \
        ROW(FG_DSP_DW_XSTR(2 * FG_DSP_DW_ROW_BYTES), "r6", "r7")                               \
        "add %[p], %[p], #" advance "\n\t"                                                   \
        "ldrd r10, r11, [sp, #4]\n\t"                                                        \
        "smmulr r8, r8, r10\n\t"                                                             \
        "smmulr r9, r9, r10\n\t"                                                             \
        "add r8, r8, r11\n\t"                                                                \
        "add r9, r9, r11\n\t"                                                                \
        "ldr r10, [sp, #12]\n\t"                                                             \
        "asr r8, r8, r10\n\t"                                                                \
        "asr r9, r9, r10\n\t"                                                                \
        "ssat r8, #8, r8\n\t"                                                                \
        "ssat r9, #8, r9\n\t"                                                                \
        "strb r8, [%[out]]\n\t"                                                              \
        "strb r9, [%[out], %[job]]\n\t"                                                      \
        "add %[out], %[out], %[job], lsl #1\n\t"                                             \
        "subs lr, lr, #1\n\t"                                                                \
        "bne 1b\n\t"                                                                         \
        "add sp, sp, #16\n\t"                                                                \
        : [p] "+r"(rp), [out] "+r"(ro), [job] "+r"(rj)                                         \
        :                                                                                      \
        : "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory")

/* Mode 0 (narrow, no correction, all of int8), whole pairs of one output row of one channel: per pair 6 LDR, 12
 * SMLAD / SMLAxy, the output stage of both (SMMULR, ADD, ASR, SSAT, STRB each) and the constants reloaded from the
 * stack. p: the first pair's window in ring row 0 (rows 1, 2 FG_DSP_DW_ROW_BYTES apart). */
static __attribute__((noinline)) void fg_dsp_dw_row_asm(const int16_t *p, int8_t *out, const fg_dsp_dw_job *job) {
    register const int16_t *rp __asm__("r0") = p;
    register int8_t *ro __asm__("r1") = out;
    register const fg_dsp_dw_job *rj __asm__("r12") = job;
    FG_DSP_DW_ASM_ROW(FG_DSP_DW_ASM_S1, "4");
}
#undef FG_DSP_DW_ASM_ROW
#undef FG_DSP_DW_ASM_S1

/* Channel c of input row y (any row: the padding's rows are the zero point), sign-extended into ring row dst's
 * columns pad_left .. pad_left + in_w - 1, and into copy's too unless it is NULL. */
static void fg_dsp_dw_extend_row(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t c, int32_t y,
                                 int16_t zero_point, int16_t *dst, int16_t *copy) {
    const int32_t step = p->in_c, n = p->in_w, inside = y >= 0 && y < p->in_h;
    const int8_t *src = image + y * n * step + c;
    int16_t *second = copy ? copy + p->pad_left : dst + p->pad_left;  /* dst again: the same value twice */
    dst += p->pad_left;
    int32_t x = 0;
    if (inside) {
        for (; x + 2 <= n; x += 2, src += 2 * step) {
            const uint32_t pair = (uint16_t)src[0] | (uint32_t)src[step] << 16;
            memcpy(dst + x, &pair, sizeof pair);
            memcpy(second + x, &pair, sizeof pair);
        }
    }
    for (; x < n; ++x, src += step) {
        const int16_t v = inside ? src[0] : zero_point;
        dst[x] = v;
        second[x] = v;
    }
}

/* Channel c's ring: what fg_dsp_dw_fill needs. */
typedef struct {
    const fg_depthwise_conv2d_params *p;
    const int8_t *image;
    int32_t c;
    int16_t zero_point;
    int16_t *ring;
} fg_dsp_dw_fill_context;

/* Input row y into ring slot `slot` (and slot + 3 for slots 0 and 1). */
static void fg_dsp_dw_fill(void *context, int32_t y, int32_t slot) {
    const fg_dsp_dw_fill_context *k = (const fg_dsp_dw_fill_context *)context;
    fg_dsp_dw_extend_row(k->p, k->image, k->c, y, k->zero_point, k->ring + slot * FG_DSP_DW_ROW_MAX,
                         slot < 2 ? k->ring + (slot + 3) * FG_DSP_DW_ROW_MAX : 0);
}

/* Every output row of channel c of one image, through the ring (fg_dsp_ring_fill; rows FG_DSP_DW_ROW_MAX apart). */
static void fg_dsp_dw_channel(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t c,
                              const fg_dsp_dw_taps *w, const fg_dsp_channel *k, int8_t *output, int16_t *ring,
                              int mode, const fg_requant_params *q) {
    const int16_t zero_point = (int16_t)-q->input_offset;
    const int32_t step = p->in_c, n = p->out_w;
    const fg_dsp_dw_job job = {*w, k->bias, k->multiplier, k->offset, k->shift, n / 2, step};
    fg_dsp_dw_fill_context context = {p, image, c, zero_point, ring};
    fg_dsp_ring cursor = fg_dsp_ring_start(p->pad_top);
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
        fg_dsp_ring_fill(&cursor, oy * p->stride_h - p->pad_top, fg_dsp_dw_fill, &context);
        fg_dsp_dw_rows rows;
        rows.r[0] = ring + cursor.top * FG_DSP_DW_ROW_MAX;
        fg_dsp_ring_advance(&cursor, p->stride_h);
        rows.r[1] = rows.r[0] + FG_DSP_DW_ROW_MAX;
        rows.r[2] = rows.r[1] + FG_DSP_DW_ROW_MAX;
        int8_t *out = output + oy * n * step + c;
        int32_t done = 0;
        if (mode == 0 && n >= 2) {
            fg_dsp_dw_row_asm(rows.r[0], out, &job);
            done = n & ~1;
            for (int32_t i = 0; i < 3; ++i) {
                rows.r[i] += done;
            }
            out += done * step;
        }
        if (done == n) {
            continue;
        }
        if (mode == 0) {
            fg_dsp_dw_row(&rows, w, k, n - done, out, step, 0, q);
        } else if (mode == 1) {
            fg_dsp_dw_row(&rows, w, k, n - done, out, step, 1, q);
        } else {
            fg_dsp_dw_row(&rows, w, k, n - done, out, step, 2, q);
        }
    }
}

/* params->packed: fg_dsp_channel[in_c] (a narrow channel's bias doubled), then per channel the six words A_0, C_0,
 * A_1, C_1, A_2, C_2 (doubled for a narrow channel). The generator checks: depth_multiplier 1, dilation 1, stride_w 1,
 * stride_h 1 or 2, the padded row and what the last pair reads past it within FG_DSP_DW_ROW_MAX columns (planar_row_len). */
FG_HOT_LOOP void fg_depthwise_conv2d_planar_dsp(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                                int8_t *output) {
    if (!fg_depthwise_channel_major(p, input, output)) {
        fg_depthwise_conv2d_3x3_s8(p, input, output);  /* raster order: any overlap the planner allows */
        return;
    }
    const fg_requant_params q = p->requant;
    const fg_dsp_channel *ch = (const fg_dsp_channel *)p->packed;
    const fg_dsp_dw_taps *taps = (const fg_dsp_dw_taps *)(ch + p->in_c);
    /* columns: the padded row plus what a pair's second output reads past it */
    uint32_t words[5 * FG_DSP_DW_ROW_MAX / 2];  /* the ring: 5 rows (fg_dsp_dw_channel), word aligned */
    int16_t *ring = (int16_t *)words;
    const int16_t zero_point = (int16_t)-q.input_offset;
    for (int32_t i = 0; i < 5 * FG_DSP_DW_ROW_MAX; ++i) {  /* the padding's columns keep it */
        ring[i] = zero_point;
    }
    const int no_correction = q.activation_min >= q.output_offset && q.activation_min == -128 &&
                              q.activation_max == 127;  /* the output zero point -128, the clamp all of int8 */
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        int8_t *out = output + b * p->out_h * p->out_w * p->in_c;
        for (int32_t c = 0; c < p->in_c; ++c) {
            const int mode = ch[c].shift == FG_DSP_WIDE ? 2 : no_correction ? 0 : 1;
            fg_dsp_dw_channel(p, image, c, taps + c, ch + c, out, ring, mode, &q);
        }
    }
}
#endif
