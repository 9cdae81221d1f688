#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/isa/dsp.h"
#include "fg/isa/dsp_ring.h"

/* A 3x3 convolution of one or three input channels (an image's first layer; a one-channel depthwise convolution
 * is one): the three input rows of the current output row sign-extended once to int16 in a buffer on the stack (the
 * padding holding the input zero point), so that a window's row is 3 * in_c consecutive halfwords: in_c + (in_c - 1)
 * / 2 words of two inputs, each feeding one SMLAD per output channel, and one more input (the bottom half of the
 * next word) for SMLABB / SMLABT. Four output channels per pass, their weight words read two at a time by LDRD at
 * offsets known to the assembler. */

#define FG_DSP_CONV_RING_ROW(ic) (2 * (ic) * FG_DSP_CONV_RING_COLUMNS)  /* bytes of a buffer row */

/* Pair p of window row i (ic input channels): the inputs' word, then the four channels' weight words. */
#define FG_DSP_CONV_RING_PAIR(ic, i, p)                                                                        \
    "ldr r8, [%[x], #(" #i " * 2 * " #ic " * " FG_DSP_RING_XSTR(FG_DSP_CONV_RING_COLUMNS) " + 4 * " #p ")]\n\t" \
    "ldrd r10, r11, [%[w], #(64 + 16 * (" #i " * (3 * " #ic " / 2) + " #p "))]\n\t"                            \
    "smlad r4, r8, r10, r4\n\t"                                                                                \
    "smlad r5, r8, r11, r5\n\t"                                                                                \
    "ldrd r10, r11, [%[w], #(64 + 16 * (" #i " * (3 * " #ic " / 2) + " #p ") + 8)]\n\t"                        \
    "smlad r6, r8, r10, r6\n\t"                                                                                \
    "smlad r7, r8, r11, r7\n\t"
/* The last input of window row i against the half `half` (b: rows 0 and 2, t: row 1) of the single-tap words. */
#define FG_DSP_CONV_RING_SINGLE(ic, i, half)                                                                   \
    "ldr r8, [%[x], #(" #i " * 2 * " #ic " * " FG_DSP_RING_XSTR(FG_DSP_CONV_RING_COLUMNS) " + 4 * (3 * " #ic   \
    " / 2))]\n\t"                                                                                              \
    "ldrd r10, r11, [%[w], #(64 + 16 * 3 * (3 * " #ic " / 2) + 16 * (" #i " / 2))]\n\t"                        \
    "smlab" #half " r4, r8, r10, r4\n\t"                                                                       \
    "smlab" #half " r5, r8, r11, r5\n\t"                                                                       \
    "ldrd r10, r11, [%[w], #(64 + 16 * 3 * (3 * " #ic " / 2) + 16 * (" #i " / 2) + 8)]\n\t"                    \
    "smlab" #half " r6, r8, r10, r6\n\t"                                                                       \
    "smlab" #half " r7, r8, r11, r7\n\t"
#define FG_DSP_CONV_RING_ROW1(i, half) FG_DSP_CONV_RING_PAIR(1, i, 0) FG_DSP_CONV_RING_SINGLE(1, i, half)
#define FG_DSP_CONV_RING_ROW3(i, half)                                                                  \
    FG_DSP_CONV_RING_PAIR(3, i, 0) FG_DSP_CONV_RING_PAIR(3, i, 1) FG_DSP_CONV_RING_PAIR(3, i, 2)         \
    FG_DSP_CONV_RING_PAIR(3, i, 3) FG_DSP_CONV_RING_SINGLE(3, i, half)
#define FG_DSP_CONV_RING_TAPS(ROW) ROW(0, b) ROW(1, t) ROW(2, b)

#define FG_DSP_CONV_RING_STRIDES(ROW, OUT, ic)                                              \
    if (stride == 1) {                                                                     \
        FG_DSP_RING_ASM(FG_DSP_CONV_RING_TAPS(ROW), OUT, FG_DSP_RING_XSTR(2 * ic));         \
    } else {                                                                               \
        FG_DSP_RING_ASM(FG_DSP_CONV_RING_TAPS(ROW), OUT, FG_DSP_RING_XSTR(4 * ic));         \
    }

/* One output row of one group: per pixel and window row (3 in_c - 1) / 2 x (LDR + 2 LDRD + 4 SMLAD) and LDR + 2
 * LDRD + 4 SMLABx, then the output stage of fg/isa/dsp_ring.h. x: the first window's top left in the buffer;
 * stride: stride_w, 1 or 2; ic: in_c, 1 or 3. */
static __attribute__((noinline)) void fg_dsp_conv_ring_row(const int16_t *x, const uint32_t *w, int8_t *out,
                                                           const fg_dsp_ring_job *job, int relu, int stride, int ic) {
    register const int16_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    register int8_t *ro __asm__("r3") = out;
    register const fg_dsp_ring_job *rj __asm__("r12") = job;
    if (ic == 1 && relu) {
        FG_DSP_CONV_RING_STRIDES(FG_DSP_CONV_RING_ROW1, FG_DSP_RING_OUT_RELU, 1)
    } else if (ic == 1) {
        FG_DSP_CONV_RING_STRIDES(FG_DSP_CONV_RING_ROW1, FG_DSP_RING_OUT, 1)
    } else if (relu) {
        FG_DSP_CONV_RING_STRIDES(FG_DSP_CONV_RING_ROW3, FG_DSP_RING_OUT_RELU, 3)
    } else {
        FG_DSP_CONV_RING_STRIDES(FG_DSP_CONV_RING_ROW3, FG_DSP_RING_OUT, 3)
    }
}
#undef FG_DSP_CONV_RING_STRIDES
#undef FG_DSP_CONV_RING_TAPS
#undef FG_DSP_CONV_RING_ROW3
#undef FG_DSP_CONV_RING_ROW1
#undef FG_DSP_CONV_RING_SINGLE
#undef FG_DSP_CONV_RING_PAIR

/* Input row y (any row: a row in the padding gets the zero point) into the buffer row at dst's image columns. */
static void fg_dsp_conv_ring_extend(const fg_conv2d_params *p, const int8_t *image, int32_t y, int16_t zero_point,
                                    int16_t *dst) {
    const int32_t n = p->in_w * p->in_c;
    dst += p->pad_left * p->in_c;
    if (y < 0 || y >= p->in_h) {
        for (int32_t k = 0; k < n; ++k) {
            dst[k] = zero_point;
        }
        return;
    }
    const int8_t *src = image + y * n;
    int32_t k = 0;
    for (; k + 4 <= n; k += 4) {  /* four inputs a word: SXTB16 twice, the halves put back in order */
        uint32_t v;
        memcpy(&v, src + k, sizeof v);
        const uint32_t even = __sxtb16(v), odd = fg_dsp_odd_s8x2(v);
        const uint32_t halves[2] = {(even & 0xffffu) | odd << 16, (odd & 0xffff0000u) | even >> 16};
        memcpy(dst + k, halves, sizeof halves);
    }
    for (; k < n; ++k) {
        dst[k] = src[k];
    }
}

/* The zero point into the columns of the buffer's three rows that the windows read and no input row is extended
 * into (the padding's), and into the two halves the last window's single-tap word reads past its row. */
static void fg_dsp_conv_ring_padding(const fg_conv2d_params *p, int16_t zero_point, int16_t *rows) {
    const int32_t ic = p->in_c, row_halves = ic * FG_DSP_CONV_RING_COLUMNS, left = p->pad_left * ic;
    const int32_t right = (p->pad_left + p->in_w) * ic, last = ((p->out_w - 1) * p->stride_w + 3) * ic;
    const int32_t end = right > last ? right : last;
    for (int32_t i = 0; i < 3; ++i, rows += row_halves) {
        for (int32_t k = 0; k < left; ++k) {
            rows[k] = zero_point;
        }
        for (int32_t k = right; k < end + 2; ++k) {
            rows[k] = zero_point;
        }
    }
}

/* The work of fg_conv2d_3x3_ring_dsp, the buffer and the groups' constants on its own stack frame. */
static __attribute__((noinline)) void fg_dsp_conv_ring_run(const fg_conv2d_params *p, const int8_t *input,
                                                           int8_t *output) {
    const int32_t ic = p->in_c, groups = p->out_c / 4, group_words = 16 + 4 * (3 * (3 * ic / 2) + 2);
    const int32_t row_halves = ic * FG_DSP_CONV_RING_COLUMNS;
    uint32_t w[FG_DSP_CONV_RING_MAX_OUT / 4 * (16 + 4 * (3 * 4 + 2))];  /* in RAM: every pixel reads them */
    memcpy(w, p->packed, (size_t)(groups * group_words) * sizeof w[0]);
    const int16_t zero_point = (int16_t)-p->requant.input_offset;
    uint32_t words[3 * 3 * FG_DSP_CONV_RING_COLUMNS / 2 + 1];  /* the window's rows and what the last reads past */
    int16_t *rows = (int16_t *)words;
    fg_dsp_conv_ring_padding(p, zero_point, rows);  /* the padding's columns keep it */
    const fg_dsp_ring_job job = {p->out_c, p->out_w, 1, 0};
    const int relu = p->requant.output_offset == -128;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * ic;
        int8_t *out = output + b * p->out_h * p->out_w * p->out_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy, out += p->out_w * p->out_c) {
            const int32_t top = oy * p->stride_h - p->pad_top;
            const int32_t kept = oy == 0 || p->stride_h >= 3 ? 0 : 3 - p->stride_h;  /* rows still in the buffer */
            memmove(rows, rows + (3 - kept) * row_halves, (size_t)(kept * row_halves) * sizeof rows[0]);
            for (int32_t i = kept; i < 3; ++i) {
                fg_dsp_conv_ring_extend(p, image, top + i, zero_point, rows + i * row_halves);
            }
            for (int32_t g = 0; g < groups; ++g) {
                fg_dsp_conv_ring_row(rows, w + g * group_words, out + 4 * g, &job, relu, p->stride_w, ic);
            }
        }
    }
}

/* params->packed: per group of four output channels k .. k + 3 the constants of fg/isa/dsp_ring.h, then, doubled,
 * per window row i and pair p of its 3 in_c taps (in (column, channel) order) the words (w_k[2p], w_k[2p + 1]) of
 * each channel k, then each channel's words (last tap of row 0, of row 1) and (last tap of row 2, 0). The generator checks: a 3x3 filter,
 * dilation 1, stride_w 1 or 2, in_c 1 or 3, out_c a multiple of 4 and at most FG_DSP_CONV_RING_MAX_OUT, every
 * channel narrow, the clamp all of int8, and the padded row within FG_DSP_CONV_RING_COLUMNS. The output rows are
 * written in order, each after the input rows its windows read: what the portable kernel's order allows. */
void fg_conv2d_3x3_ring_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_dsp_conv_ring_run(p, input, output);
}
#endif
