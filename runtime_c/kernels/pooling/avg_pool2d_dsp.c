#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#include <string.h>

#include "fg/support/dot_s8.h"

/* sum + the bytes 1 and 3 of v sign-extended, per halfword (GCC 12's arm_acle.h has no rotated SXTAB16). */
static inline uint32_t fg_dsp_add_odd_s8x2(uint32_t sum, uint32_t v) {
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(sum), "r"(v));
    return r;
}

/* even, odd += the words of four channels every `channels` bytes over the first `bytes` of line, sign-extended to
 * halfwords: (c, c + 2) into even, (c + 1, c + 3) into odd; four pixels per pass. */
static inline __attribute__((always_inline)) void fg_dsp_pool_sum(const int8_t *line, int32_t bytes,
                                                                   int32_t channels, uint32_t *even, uint32_t *odd) {
    uint32_t e = *even, o = *odd;
    int32_t x = 0;
    const int8_t *at = line, *end = line + bytes - 3 * channels;
    for (; at < end; at += 4 * channels) {
        uint32_t v0, v1, v2, v3;
        memcpy(&v0, at, sizeof v0);
        memcpy(&v1, at + channels, sizeof v1);
        memcpy(&v2, at + 2 * channels, sizeof v2);
        memcpy(&v3, at + 3 * channels, sizeof v3);
        e = __sxtab16(__sxtab16(__sxtab16(__sxtab16(e, v0), v1), v2), v3);
        o = fg_dsp_add_odd_s8x2(fg_dsp_add_odd_s8x2(fg_dsp_add_odd_s8x2(fg_dsp_add_odd_s8x2(o, v0), v1), v2), v3);
    }
    x = (int32_t)(at - line);
    for (; x < bytes; x += channels) {
        uint32_t v;
        memcpy(&v, line + x, sizeof v);
        e = __sxtab16(e, v);
        o = fg_dsp_add_odd_s8x2(o, v);
    }
    *even = e;
    *odd = o;
}

/* The rounded average (half away from zero) of a window's sum over count elements, clamped. */
static inline int8_t fg_dsp_pool_average(int32_t sum, int32_t count, int32_t low, int32_t high) {
    const int32_t average = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
    return (int8_t)(average < low ? low : average > high ? high : average);
}

/* channels a multiple of 4, windows of at most 255 elements (the generator checks): each window summed four
 * channels per word, SXTAB16 into two halfword pairs (|sum| <= 255 * 128 fits int16). */
FG_HOT_LOOP void fg_avg_pool2d_dsp(const fg_pool2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->channels, row = p->in_w * channels;
    for (int32_t b = 0; b < p->batches; ++b, input += p->in_h * row) {
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            int32_t y0, y1;
            fg_pool_window_1d(oy, p->stride_h, p->pad_top, p->filter_h, p->in_h, &y0, &y1);
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += channels) {
                int32_t x0, x1;
                fg_pool_window_1d(ox, p->stride_w, p->pad_left, p->filter_w, p->in_w, &x0, &x1);
                const int32_t count = (y1 - y0) * (x1 - x0), cols = (x1 - x0) * channels;
                /* a window as wide as the image is one run of bytes: all its rows summed in one pass */
                const int32_t run_rows = x1 - x0 == p->in_w ? y1 - y0 : 1, run = run_rows * cols;
                for (int32_t c = 0; c < channels; c += 4) {
                    uint32_t even = 0, odd = 0;  /* channels (c, c + 2) and (c + 1, c + 3) */
                    const int8_t *line = input + y0 * row + x0 * channels + c;
                    for (int32_t y = y0; y < y1; y += run_rows, line += run_rows * row) {
                        fg_dsp_pool_sum(line, run, channels, &even, &odd);
                    }
                    output[c] = fg_dsp_pool_average((int16_t)even, count, p->activation_min, p->activation_max);
                    output[c + 1] = fg_dsp_pool_average((int16_t)odd, count, p->activation_min, p->activation_max);
                    output[c + 2] = fg_dsp_pool_average((int16_t)(even >> 16), count, p->activation_min,
                                                        p->activation_max);
                    output[c + 3] = fg_dsp_pool_average((int16_t)(odd >> 16), count, p->activation_min,
                                                        p->activation_max);
                }
            }
        }
    }
}
#endif
