#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include <stddef.h>

#include "fg/isa/mve.h"

/* 4-bit weights make int16 sums enough for a 3x3 depthwise window (|x w| <= 128 x 8, nine taps: |sum| <= 9216), so
 * sixteen channels run in one vector: per tap the inputs of the sixteen channels in one VLDRB, VMULLB / VMULLT (int8
 * lanes, int16 products of the even and the odd channels) and two VADD; the weights of two taps unpacked from one
 * 16-byte vector by three shifts. Then the sums widened to four int32 vectors, of channels j, j + 4, j + 8, j + 12
 * (j = 0, 1, 2, 3), each requantized against its quant block and scattered to its bytes. The layout (mve_4bit.py), per
 * group of sixteen channels (zero past the layer's): taps (0, 1), (2, 3), (4, 5), (6, 7) as 16 bytes each (channel j
 * in byte j, the even tap in the low nibble, the odd one in the high one), tap 8 as 8 bytes (channel 2j in the low
 * nibble of byte j, 2j + 1 in its high one), then the quant blocks of j = 0 .. 3, each bias, left shift, multiplier,
 * right shift (4 words each). */

enum { FG_DW4_GROUP_BYTES = 72 + 4 * 64 };

/* What the assembly reads and updates: the first group and the nine tap pointers of the first pixel (one LDM into
 * r0-r9), the clamp, the scatter offsets, the run. */
typedef struct {
    const int32_t *packed;
    const int8_t *t[9];
    int32x4_t low, high;
    uint32x4_t offsets;  /* 0, 4, 8, 12 */
    int32_t groups;      /* of sixteen channels, all full */
    int32_t advance;     /* from a tap past a pixel's last group to the next pixel */
    int32_t pixels;      /* left to do */
} fg_dw4_run_state;

/* Taps a (r) and b (r) against the pair of taps in the next 16 weight bytes: q0 (even channels), q1 (odd) += their
 * products; FIRST: their first products set q0, q1 instead. */
#define FG_DW4_ASM_PAIR(a, b)                    \
    "vldrb.8 q3, [r0], #16\n"                    \
    "vshl.i8 q4, q3, #4\n"                       \
    "vshr.s8 q4, q4, #4\n"                       \
    "vshr.s8 q3, q3, #4\n"                       \
    "vldrb.8 q2, [" a "], #16\n"                 \
    "vmullb.s8 q5, q2, q4\n"                     \
    "vadd.i16 q0, q0, q5\n"                      \
    "vmullt.s8 q5, q2, q4\n"                     \
    "vadd.i16 q1, q1, q5\n"                      \
    "vldrb.8 q2, [" b "], #16\n"                 \
    "vmullb.s8 q5, q2, q3\n"                     \
    "vadd.i16 q0, q0, q5\n"                      \
    "vmullt.s8 q5, q2, q3\n"                     \
    "vadd.i16 q1, q1, q5\n"
#define FG_DW4_ASM_FIRST_PAIR                    \
    "vldrb.8 q3, [r0], #16\n"                    \
    "vshl.i8 q4, q3, #4\n"                       \
    "vshr.s8 q4, q4, #4\n"                       \
    "vshr.s8 q3, q3, #4\n"                       \
    "vldrb.8 q2, [r1], #16\n"                    \
    "vmullb.s8 q0, q2, q4\n"                     \
    "vmullt.s8 q1, q2, q4\n"                     \
    "vldrb.8 q2, [r2], #16\n"                    \
    "vmullb.s8 q5, q2, q3\n"                     \
    "vadd.i16 q0, q0, q5\n"                      \
    "vmullt.s8 q5, q2, q3\n"                     \
    "vadd.i16 q1, q1, q5\n"
/* The int32 sums in q2 requantized (quant block at r0, which moves past it; BIAS_LEFT: FG_DW4_ASM_BIAS or
 * FG_DW4_ASM_BIAS_LEFT) and stored at out + 0, 4, 8, 12 (q5); out moves on by one channel. */
#define FG_DW4_ASM_BIAS "vldrw.32 q3, [r0], #32\n" "vadd.i32 q2, q2, q3\n"
#define FG_DW4_ASM_BIAS_LEFT                     \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vadd.i32 q2, q2, q3\n"                      \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vshl.s32 q2, q2, q3\n"
#define FG_DW4_ASM_STORE(BIAS_LEFT)              \
    BIAS_LEFT                                    \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vqrdmulh.s32 q2, q2, q3\n"                  \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vand q4, q2, q3\n"                          \
    "vshr.s32 q4, q4, #31\n"                     \
    "vqadd.s32 q2, q2, q4\n"                     \
    "vrshl.s32 q2, q2, q3\n"                     \
    "vadd.i32 q2, q2, %[off]\n"                  \
    "vmax.s32 q2, q2, q6\n"                      \
    "vmin.s32 q2, q2, q7\n"                      \
    "vstrb.32 q2, [%[out], q5]\n"                \
    "adds %[out], %[out], #1\n"

/* st->pixels output pixels (input pixels st->advance + 16 x groups bytes apart), each its st->groups groups of
 * sixteen channels, in assembly: the tap pointers in r1-r9 (post-incremented), the packed pointer in r0 (byte-widening
 * loads take r0-r7 only); q6, q7 the clamp. Versions with the left shift, and without it for layers that never shift
 * left. */
#define FG_DW4_RUN(NAME, BIAS_LEFT) \
__attribute__((noinline)) static void NAME(fg_dw4_run_state *st, int32_t offset, int8_t *out) { \
    int32_t n; \
    __asm__ volatile("vldrw.32 q6, [%[st], %[lo]]\n" \
                     "vldrw.32 q7, [%[st], %[hi]]\n" \
                     "ldm %[st], {r0, r1, r2, r3, r4, r5, r6, r7, r8, r9}\n" \
                     "3:\n" \
                     "ldr %[n], [%[st], %[groups]]\n" \
                     "1:\n" \
                     FG_DW4_ASM_FIRST_PAIR FG_DW4_ASM_PAIR("r3", "r4") FG_DW4_ASM_PAIR("r5", "r6") \
                     FG_DW4_ASM_PAIR("r7", "r8") \
                     "vldrb.s16 q3, [r0], #8\n"  /* tap 8: 16 x the even channels' weights, the odd ones' */ \
                     "vshl.i16 q3, q3, #4\n" \
                     "vldrb.8 q2, [r9], #16\n" \
                     "vmullb.s8 q5, q2, q3\n" \
                     "vshr.s16 q5, q5, #4\n" \
                     "vadd.i16 q0, q0, q5\n" \
                     "vmullt.s8 q5, q2, q3\n" \
                     "vadd.i16 q1, q1, q5\n" \
                     "vldrw.32 q5, [%[st], %[offsets]]\n" \
                     "vmovlb.s16 q2, q0\n" FG_DW4_ASM_STORE(BIAS_LEFT) \
                     "vmovlb.s16 q2, q1\n" FG_DW4_ASM_STORE(BIAS_LEFT) \
                     "vmovlt.s16 q2, q0\n" FG_DW4_ASM_STORE(BIAS_LEFT) \
                     "vmovlt.s16 q2, q1\n" FG_DW4_ASM_STORE(BIAS_LEFT) \
                     "adds %[out], %[out], #12\n" \
                     "subs %[n], %[n], #1\n" \
                     "bne 1b\n" \
                     "ldr %[n], [%[st], %[advance]]\n" \
                     "add r1, r1, %[n]\n" \
                     "add r2, r2, %[n]\n" \
                     "add r3, r3, %[n]\n" \
                     "add r4, r4, %[n]\n" \
                     "add r5, r5, %[n]\n" \
                     "add r6, r6, %[n]\n" \
                     "add r7, r7, %[n]\n" \
                     "add r8, r8, %[n]\n" \
                     "add r9, r9, %[n]\n" \
                     "ldr r0, [%[st]]\n" \
                     "ldr %[n], [%[st], %[pixels]]\n" \
                     "subs %[n], %[n], #1\n" \
                     "str %[n], [%[st], %[pixels]]\n" \
                     "bne 3b\n" \
                     : [out] "+r"(out), [n] "=&r"(n) \
                     : [st] "r"(st), [off] "r"(offset), [lo] "i"(offsetof(fg_dw4_run_state, low)), \
                       [hi] "i"(offsetof(fg_dw4_run_state, high)), \
                       [offsets] "i"(offsetof(fg_dw4_run_state, offsets)), \
                       [groups] "i"(offsetof(fg_dw4_run_state, groups)), \
                       [advance] "i"(offsetof(fg_dw4_run_state, advance)), \
                       [pixels] "i"(offsetof(fg_dw4_run_state, pixels)) \
                     : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "q0", "q1", "q2", "q3", "q4", \
                       "q5", "q6", "q7", "memory", "cc"); \
}
FG_DW4_RUN(fg_dw4_run_shifted, FG_DW4_ASM_BIAS_LEFT)
FG_DW4_RUN(fg_dw4_run, FG_DW4_ASM_BIAS)

/* even, odd += the products of inputs x0, x1 with the two taps whose nibbles `both` holds (x0's low). */
static inline void fg_dw4_tap_pair(int16x8_t *even, int16x8_t *odd, int8x16_t x0, int8x16_t x1, int8x16_t both) {
    const int8x16_t first = vshrq_n_s8(vshlq_n_s8(both, 4), 4), second = vshrq_n_s8(both, 4);
    *even = vaddq_s16(*even, vaddq_s16(vmullbq_int_s8(x0, first), vmullbq_int_s8(x1, second)));
    *odd = vaddq_s16(*odd, vaddq_s16(vmulltq_int_s8(x0, first), vmulltq_int_s8(x1, second)));
}

/* The last n < 16 channels, from c, of one output pixel (group: theirs), as the assembly computes them. */
static void fg_dw4_last_channels(const int8_t *const t[9], int32_t c, int32_t n, const int8_t *group,
                                 const fg_mve_clamp *clamp, int8_t *out) {
    const mve_pred16_t lanes = vctp8q((uint32_t)n);
    int16x8_t even = vdupq_n_s16(0), odd = vdupq_n_s16(0);
    for (int32_t k = 0; k < 8; k += 2, group += 16) {
        fg_dw4_tap_pair(&even, &odd, vldrbq_z_s8(t[k] + c, lanes), vldrbq_z_s8(t[k + 1] + c, lanes),
                        vldrbq_s8(group));
    }
    const int8x16_t last = vreinterpretq_s8_s16(vshlq_n_s16(vldrbq_s16(group), 4)), x8 = vldrbq_z_s8(t[8] + c, lanes);
    even = vaddq_s16(even, vshrq_n_s16(vmullbq_int_s8(x8, last), 4));
    odd = vaddq_s16(odd, vmulltq_int_s8(x8, last));
    const int32x4_t sums[4] = {vmovlbq_s16(even), vmovlbq_s16(odd), vmovltq_s16(even), vmovltq_s16(odd)};
    const int32_t *q = (const int32_t *)(group + 8);
    for (int32_t j = 0; j < 4; ++j, q += 16) {
        fg_mve_quant4 quant = {vldrwq_s32(q), vldrwq_s32(q + 8), vldrwq_s32(q + 4), vldrwq_s32(q + 12)};
        const int32x4_t result = fg_mve_requantize(vaddq_s32(sums[j], quant.bias), &quant, clamp);
        vstrbq_scatter_offset_p_s32(out + c + j, vidupq_n_u32(0, 4), result, vctp32q((uint32_t)(n - j + 3) >> 2));
    }
}

/* The taps of the window whose top left tap is (y0, x0) of an image without pixel rows outside it (lines[ky]: the
 * address of row y0 + ky x dilation_h, or 0 in the padding): into the image, or the row of zero points. */
static void fg_dw4_taps(const fg_depthwise_conv2d_params *p, const int8_t *const lines[3], int32_t x0,
                        const int8_t *zero_points, const int8_t *t[9]) {
    for (int32_t kx = 0; kx < 3; ++kx, x0 += p->dilation_w) {
        const int inside = x0 >= 0 && x0 < p->in_w;
        const int32_t at = x0 * p->in_c;
        for (int32_t ky = 0; ky < 3; ++ky) {
            t[3 * ky + kx] = inside && lines[ky] ? lines[ky] + at : zero_points;
        }
    }
}

/* One pixel at a time, all its channels before the next (the order ops/overlap.py's allowance assumes): the interior
 * pixels of a row in one run when the channels are whole groups, the others one by one. */
void fg_depthwise_conv2d_3x3_s4_mve(const fg_depthwise_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                    int8_t *output) {
    (void)filter;
    const int32_t channels = p->in_c, row_bytes = p->in_w * channels;
    const int32_t row_step = p->dilation_h * row_bytes, col_step = p->dilation_w * channels;
    const fg_mve_clamp clamp = fg_mve_make_clamp(&p->requant);
    const int shifts_left = fg_mve_any_left_shift(&p->requant, channels);
    const int runs = (channels & 15) == 0;
    /* Output columns [first, end) have their windows' columns inside the image. */
    const int32_t first = (p->pad_left + p->stride_w - 1) / p->stride_w;
    const int32_t last_x = p->in_w - 1 - 2 * p->dilation_w + p->pad_left;
    const int32_t end = last_x < 0 ? 0 : last_x / p->stride_w + 1;
    const int8_t *last = (const int8_t *)p->packed + FG_DW4_GROUP_BYTES * (channels >> 4);
    fg_dw4_run_state st;
    st.packed = (const int32_t *)p->packed;
    st.low = clamp.low;
    st.high = clamp.high;
    st.offsets = vidupq_n_u32(0, 4);
    st.groups = channels >> 4;
    st.advance = p->stride_w * channels - 16 * st.groups;
    int8_t zero_points[FG_MVE_DEPTHWISE_MAX];
    fg_mve_fill_s8(zero_points, (int8_t)-p->requant.input_offset, channels);
    const int8_t **t = st.t;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * row_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h;
            const int8_t *lines[3];
            for (int32_t ky = 0, y = y0; ky < 3; ++ky, y += p->dilation_h) {
                lines[ky] = y >= 0 && y < p->in_h ? image + y * row_bytes : 0;
            }
            for (int32_t ox = 0; ox < p->out_w; output += st.pixels * channels, ox += st.pixels) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                st.pixels = 1;
                if (rows_inside && ox >= first && ox < end) {
                    t[0] = image + y0 * row_bytes + x0 * channels;
                    for (int32_t k = 0; k < 9; k += 3) {
                        t[k] = k ? t[k - 3] + row_step : t[0];
                        t[k + 1] = t[k] + col_step;
                        t[k + 2] = t[k + 1] + col_step;
                    }
                    st.pixels = runs ? end - ox : 1;
                } else {
                    fg_dw4_taps(p, lines, x0, zero_points, t);
                }
                const int32_t pixels = st.pixels;
                if (st.groups) {
                    (shifts_left ? fg_dw4_run_shifted : fg_dw4_run)(&st, clamp.offset, output);
                }
                st.pixels = pixels;
                if (!runs) {
                    fg_dw4_last_channels(t, channels & ~15, channels & 15, last, &clamp, output);
                }
            }
        }
    }
}

#endif /* __ARM_FEATURE_MVE */
