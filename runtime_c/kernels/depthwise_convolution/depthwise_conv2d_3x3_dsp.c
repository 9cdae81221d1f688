#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"

/* acc[j] = bias + the 9 taps of channel c + j, j < 4: tap t reads the four channels' bytes at x[t] + c as one word,
 * SXTB16 splits them into (c, c + 2) and (c + 1, c + 3), and SMLABB / SMLATT multiply each half with the matching
 * half of the weight words w[2t] = (w_t[c], w_t[c + 2]), w[2t + 1] = (w_t[c + 1], w_t[c + 3]). */
static inline __attribute__((always_inline)) void fg_dsp_dw_group(const int8_t *const x[9], int32_t c,
                                                                   const uint32_t *w, const fg_dsp_channel *ch,
                                                                   uint32_t acc[4]) {
    int32_t a0 = ch[0].bias, a1 = ch[1].bias, a2 = ch[2].bias, a3 = ch[3].bias;
#pragma GCC unroll 9
    for (int32_t t = 0; t < 9; ++t, w += 2) {
        uint32_t v;
        memcpy(&v, x[t] + c, sizeof v);
        const int32_t even = (int32_t)__sxtb16(v), odd = (int32_t)fg_dsp_odd_s8x2(v);
        a0 = __smlabb(even, (int32_t)w[0], a0);
        a2 = __smlatt(even, (int32_t)w[0], a2);
        a1 = __smlabb(odd, (int32_t)w[1], a1);
        a3 = __smlatt(odd, (int32_t)w[1], a3);
    }
    acc[0] = (uint32_t)a0;
    acc[1] = (uint32_t)a1;
    acc[2] = (uint32_t)a2;
    acc[3] = (uint32_t)a3;
}

/* Channels c..c+3 of one pixel, all narrow: each output SMMULR + 3 + the clamp + STRB, the constants read two
 * channels at a time. */
static inline __attribute__((always_inline)) void fg_dsp_dw_store4(const uint32_t acc[4], const fg_dsp_channel *ch,
                                                                    int8_t *out, int full, int32_t low,
                                                                    int32_t high) {
#pragma GCC unroll 2
    for (int32_t j = 0; j < 4; j += 2) {
        const int32_t m0 = ch[j].multiplier, o0 = ch[j].offset, s0 = ch[j].shift;
        const int32_t m1 = ch[j + 1].multiplier, o1 = ch[j + 1].offset, s1 = ch[j + 1].shift;
        const int32_t v0 = fg_dsp_high_mul_doubled((int32_t)acc[j], m0);
        const int32_t v1 = fg_dsp_high_mul_doubled((int32_t)acc[j + 1], m1);
        const int8_t y0 = fg_dsp_clamp((v0 + o0 + (v0 >> 31)) >> s0, full, low, high);
        const int8_t y1 = fg_dsp_clamp((v1 + o1 + (v1 >> 31)) >> s1, full, low, high);
        out[j] = y0;
        out[j + 1] = y1;
    }
}

/* Every group of four channels of one output pixel whose taps start at x[t]. narrow: no channel is wide. */
static inline __attribute__((always_inline)) void fg_dsp_dw_pixel(const int8_t *const x[9], const uint32_t *w,
                                                                   const fg_dsp_channel *ch, int32_t channels,
                                                                   int8_t *output, const fg_requant_params *q,
                                                                   int narrow, int full) {
    for (int32_t c = 0; c < channels; c += 4, w += 18) {
        uint32_t acc[4];
        fg_dsp_dw_group(x, c, w, ch + c, acc);
        if (narrow) {
            fg_dsp_dw_store4(acc, ch + c, output + c, full, q->activation_min, q->activation_max);
        } else {
            for (int32_t j = 0; j < 4; ++j) {
                output[c + j] = fg_dsp_output_doubled(acc[j], ch + c + j, q);
            }
        }
    }
}

#define FG_DSP_DW_WINDOW_CHANNELS 256  /* at most this many channels: a border pixel's window on the stack */

/* What fg_dsp_dw_pixel_asm needs besides its pointers (bytes between taps). */
typedef struct {
    int32_t col;      /* from one tap to the next in a row: dilation_w * in_c */
    int32_t row_adj;  /* from a row's second tap to the next row's first: dilation_h * in_w * in_c - col */
    int32_t back;     /* from the last row's second tap to the next group's first tap: 2 rows + col - 4 */
    int32_t groups;   /* in_c / 4 */
} fg_dsp_dw_job;

#define FG_DSP_DW_TAP(addr)              \
    "ldr r10, " addr "\n\t"              \
    "ldrd r12, lr, [%[w]], #8\n\t"       \
    "sxtb16 r11, r10, ror #8\n\t"        \
    "sxtb16 r10, r10\n\t"                \
    "smlabb r4, r10, r12, r4\n\t"        \
    "smlatt r6, r10, r12, r6\n\t"        \
    "smlabb r5, r11, lr, r5\n\t"         \
    "smlatt r7, r11, lr, r7\n\t"
#define FG_DSP_DW_ROW                    \
    FG_DSP_DW_TAP("[%[x]]")              \
    FG_DSP_DW_TAP("[%[x], r8]")          \
    "add %[x], %[x], r8\n\t"             \
    FG_DSP_DW_TAP("[%[x], r8]")
#define FG_DSP_DW_OUT(acc, j)                                 \
    "ldrd r10, r11, [%[ch], #" #j "* 16 + 4]\n\t"            \
    "ldr r12, [%[ch], #" #j "* 16 + 12]\n\t"                 \
    "smmulr " acc ", " acc ", r10\n\t"                         \
    "add lr, " acc ", r11\n\t"                                 \
    "add " acc ", lr, " acc ", asr #31\n\t"                    \
    "asr " acc ", " acc ", r12\n\t"                            \
    "ssat " acc ", #8, " acc "\n\t"                            \
    "strb " acc ", [%[out], #" #j "]\n\t"
/* Without the rounding correction of negative values: the clamp's floor at or above the output zero point. */
#define FG_DSP_DW_OUT_RELU(acc, j)                            \
    "ldrd r10, r11, [%[ch], #" #j "* 16 + 4]\n\t"            \
    "ldr r12, [%[ch], #" #j "* 16 + 12]\n\t"                 \
    "smmulr " acc ", " acc ", r10\n\t"                         \
    "add " acc ", " acc ", r11\n\t"                            \
    "asr " acc ", " acc ", r12\n\t"                            \
    "ssat " acc ", #8, " acc "\n\t"                            \
    "strb " acc ", [%[out], #" #j "]\n\t"

#define FG_DSP_DW_PIXEL_ASM(OUT)                                                                       \
    __asm__ volatile(                                                                                  \
        "ldrd r8, r9, [%[job]]\n\t"                                                                  \
        "ldrd r10, r11, [%[job], #8]\n\t"                                                            \
        "push {r10, r11}\n"                                                                           \
        "1:\n\t"                                                                                     \
        "ldr r4, [%[ch], #0]\n\t"                                                                    \
        "ldr r5, [%[ch], #16]\n\t"                                                                   \
        "ldr r6, [%[ch], #32]\n\t"                                                                   \
        "ldr r7, [%[ch], #48]\n\t"                                                                   \
        FG_DSP_DW_ROW "add %[x], %[x], r9\n\t"                                                       \
        FG_DSP_DW_ROW "add %[x], %[x], r9\n\t"                                                       \
        FG_DSP_DW_ROW                                                                                  \
        OUT("r4", 0) OUT("r5", 1) OUT("r6", 2) OUT("r7", 3)                                            \
        "ldrd r10, r11, [sp]\n\t"                                                                    \
        "sub %[x], %[x], r10\n\t"                                                                    \
        "add %[ch], %[ch], #64\n\t"                                                                  \
        "add %[out], %[out], #4\n\t"                                                                 \
        "subs r11, r11, #1\n\t"                                                                      \
        "str r11, [sp, #4]\n\t"                                                                      \
        "bne 1b\n\t"                                                                                 \
        "add sp, sp, #8\n\t"                                                                         \
        : [x] "+r"(rx), [w] "+r"(rw), [ch] "+r"(rc), [out] "+r"(ro), [job] "+r"(rj)                    \
        :                                                                                              \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory")

/* Every group of four channels of one output pixel whose window is inside the image, every channel narrow and the
 * clamp all of int8: per tap LDR + LDRD + 2 SXTB16 + 4 SMLAxy, per output 7 or 6 (relu: no rounding correction of
 * negative values, the output zero point -128) for the output stage. x: the window's top left tap. */
static __attribute__((noinline)) void fg_dsp_dw_pixel_asm(const int8_t *x, const uint32_t *w, const fg_dsp_channel *ch,
                                                          int8_t *out, const fg_dsp_dw_job *job, int relu) {
    register const int8_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    register const fg_dsp_channel *rc __asm__("r2") = ch;
    register int8_t *ro __asm__("r3") = out;
    register const fg_dsp_dw_job *rj __asm__("r12") = job;
    if (relu) {
        FG_DSP_DW_PIXEL_ASM(FG_DSP_DW_OUT_RELU);
    } else {
        FG_DSP_DW_PIXEL_ASM(FG_DSP_DW_OUT);
    }
}
#undef FG_DSP_DW_PIXEL_ASM
#undef FG_DSP_DW_OUT_RELU
#undef FG_DSP_DW_TAP
#undef FG_DSP_DW_ROW
#undef FG_DSP_DW_OUT

/* The taps of a window at the border: into the image, or for a tap in the padding the row of zero points. */
static void fg_dsp_dw_border(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                             const int8_t *zero_points, const int8_t *x[9]) {
    for (int32_t t = 0; t < 9; ++t) {
        const int32_t y = y0 + (t / 3) * p->dilation_h, xx = x0 + (t % 3) * p->dilation_w;
        x[t] = y >= 0 && y < p->in_h && xx >= 0 && xx < p->in_w ? image + (y * p->in_w + xx) * p->in_c : zero_points;
    }
}

/* params->packed: fg_dsp_channel[in_c], then per group of four channels the 18 weight words above; a narrow
 * channel's bias and weights doubled (fg_dsp_dw_output). in_c is a
 * multiple of 4 and at most FG_DSP_DW_MAX_CHANNELS (the generator checks). */
FG_HOT_LOOP void fg_depthwise_conv2d_3x3_dsp(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                             int8_t *output) {
    const int32_t channels = p->in_c;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_channel *ch = (const fg_dsp_channel *)p->packed;
    const uint32_t *weights = (const uint32_t *)(ch + channels);
    int8_t zero_points[FG_DSP_DW_MAX_CHANNELS];  /* a tap in the padding reads these (x + input_offset = 0) */
    memset(zero_points, (int)(int8_t)-q.input_offset, (size_t)channels);
    int32_t offsets[9];  /* of each tap from the window's top left, inside the image */
    for (int32_t t = 0; t < 9; ++t) {
        offsets[t] = ((t / 3) * p->dilation_h * p->in_w + (t % 3) * p->dilation_w) * channels;
    }
    /* 2: every channel narrow and the clamp all of int8; 1: every channel narrow; 0: some channel wide */
    const int mode = fg_dsp_all_narrow(ch, channels) ? 1 + (q.activation_min == -128 && q.activation_max == 127) : 0;
    const int relu = q.output_offset == -128;  /* mode 2: every negative value clamps to -128 either way */
    const int32_t row = p->dilation_h * p->in_w * channels, col = p->dilation_w * channels;
    const fg_dsp_dw_job job = {col, row - col, 2 * row + col - 4, channels / 4};
    const fg_dsp_dw_job gathered = {channels, 2 * channels, 7 * channels - 4, channels / 4};  /* [3][3][in_c] */
    uint32_t words[9 * FG_DSP_DW_WINDOW_CHANNELS / 4];  /* a border pixel's window, the padding's taps zero points */
    int8_t *window = (int8_t *)words;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += channels) {
                const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
                const int8_t *x[9];
                if (y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h && x0 >= 0 && x0 + 2 * p->dilation_w < p->in_w) {
                    const int8_t *corner = image + (y0 * p->in_w + x0) * channels;
                    if (mode == 2) {
                        fg_dsp_dw_pixel_asm(corner, weights, ch, output, &job, relu);
                        continue;
                    }
                    for (int32_t t = 0; t < 9; ++t) {
                        x[t] = corner + offsets[t];
                    }
                } else {
                    fg_dsp_dw_border(p, image, y0, x0, zero_points, x);
                    if (mode == 2 && channels >= 64 && channels <= FG_DSP_DW_WINDOW_CHANNELS) {  /* gathered, then asm */
                        for (int32_t t = 0; t < 9; ++t) {
                            memcpy(window + t * channels, x[t], (size_t)channels);
                        }
                        fg_dsp_dw_pixel_asm(window, weights, ch, output, &gathered, relu);
                        continue;
                    }
                }
                if (mode == 2) {
                    fg_dsp_dw_pixel(x, weights, ch, channels, output, &q, 1, 1);
                } else if (mode == 1) {
                    fg_dsp_dw_pixel(x, weights, ch, channels, output, &q, 1, 0);
                } else {
                    fg_dsp_dw_pixel(x, weights, ch, channels, output, &q, 0, 0);
                }
            }
        }
    }
}
#endif
