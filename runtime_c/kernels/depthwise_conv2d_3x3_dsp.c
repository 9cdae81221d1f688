#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/dot_s8.h"
#include "fg/dsp_support.h"

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

/* Channels c..c+3 of one pixel, all narrow: each output LSL + SMMULR + 3 + the clamp + STRB, the constants read
 * two channels at a time. */
static inline __attribute__((always_inline)) void fg_dsp_dw_store4(const uint32_t acc[4], const fg_dsp_channel *ch,
                                                                    int8_t *out, int full, int32_t low,
                                                                    int32_t high) {
#pragma GCC unroll 2
    for (int32_t j = 0; j < 4; j += 2) {
        const int32_t m0 = ch[j].multiplier, o0 = ch[j].offset, s0 = ch[j].shift;
        const int32_t m1 = ch[j + 1].multiplier, o1 = ch[j + 1].offset, s1 = ch[j + 1].shift;
        const int8_t y0 = fg_dsp_clamp(fg_dsp_narrow(acc[j], m0, o0, s0), full, low, high);
        const int8_t y1 = fg_dsp_clamp(fg_dsp_narrow(acc[j + 1], m1, o1, s1), full, low, high);
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
                fg_dsp_store_channel(acc + j, ch + c + j, 1, output + c + j, 1, q);
            }
        }
    }
}

/* The taps of a window at the border: into the image, or for a tap in the padding the row of zero points. */
static void fg_dsp_dw_border(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                             const int8_t *zero_points, const int8_t *x[9]) {
    for (int32_t t = 0; t < 9; ++t) {
        const int32_t y = y0 + (t / 3) * p->dilation_h, xx = x0 + (t % 3) * p->dilation_w;
        x[t] = y >= 0 && y < p->in_h && xx >= 0 && xx < p->in_w ? image + (y * p->in_w + xx) * p->in_c : zero_points;
    }
}

/* params->packed: fg_dsp_channel[in_c], then per group of four channels the 18 weight words above. in_c is a
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
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += channels) {
                const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
                const int8_t *x[9];
                if (y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h && x0 >= 0 && x0 + 2 * p->dilation_w < p->in_w) {
                    const int8_t *corner = image + (y0 * p->in_w + x0) * channels;
                    for (int32_t t = 0; t < 9; ++t) {
                        x[t] = corner + offsets[t];
                    }
                } else {
                    fg_dsp_dw_border(p, image, y0, x0, zero_points, x);
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
