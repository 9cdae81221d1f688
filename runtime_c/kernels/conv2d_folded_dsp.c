#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/dot_s8.h"
#include "fg/dsp_support.h"

/* n bytes, a word at a time (a library call costs more than the few bytes of a window's row). */
static inline void fg_dsp_copy(int8_t *to, const int8_t *from, int32_t n) {
    int32_t k = 0;
    for (; k + 4 <= n; k += 4) {
        uint32_t v;
        __builtin_memcpy(&v, from + k, sizeof v);
        __builtin_memcpy(to + k, &v, sizeof v);
    }
    for (; k < n; ++k) {
        to[k] = from[k];
    }
}

/* The pairs of a patch of 2 * pairs bytes (a multiple of 8), pair g at out[3 * g]. */
static inline void fg_dsp_extend_patch(const int8_t *patch, int32_t pairs, uint32_t *out) {
    for (int32_t k = 0; k < 2 * pairs; k += 4, out += 6) {
        uint32_t v;
        __builtin_memcpy(&v, patch + k, sizeof v);
        out[0] = __sxtb16(v);
        out[3] = fg_dsp_odd_s8x2(v);
    }
}

/* The pairs of `rows` rows of `row` bytes (a multiple of 4) `line` bytes apart, pair g at out[3 * g]. */
static inline void fg_dsp_extend_rows(const int8_t *from, int32_t rows, int32_t row, int32_t line, uint32_t *out) {
    for (int32_t fy = 0; fy < rows; ++fy, from += line) {
        for (int32_t k = 0; k < row; k += 4, out += 6) {
            uint32_t v;
            __builtin_memcpy(&v, from + k, sizeof v);
            out[0] = __sxtb16(v);
            out[3] = fg_dsp_odd_s8x2(v);
        }
    }
}

/* The window of the output pixel whose top left tap is (y0, x0), as the filter orders its taps
 * ([filter_h][filter_w][in_c]); a tap in the padding reads the zero point (x + input_offset = 0, which the folded
 * bias expects). */
static void fg_dsp_window(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0, int8_t *patch,
                          int32_t padded_row) {
    const int32_t in_c = p->in_c, row = p->filter_w * in_c;
    const int zero_point = (int)(int8_t)-p->requant.input_offset;
    if (p->dilation_h == 1 && p->dilation_w == 1 && y0 >= 0 && y0 + p->filter_h <= p->in_h && x0 >= 0 &&
        x0 + p->filter_w <= p->in_w) {  /* inside the image: each row of the window is contiguous */
        const int8_t *line = image + (y0 * p->in_w + x0) * in_c;
        for (int32_t fy = 0; fy < p->filter_h; ++fy, patch += padded_row, line += p->in_w * in_c) {
            fg_dsp_copy(patch, line, row);
        }
        return;
    }
    for (int32_t fy = 0; fy < p->filter_h; ++fy, patch += padded_row) {
        const int32_t y = y0 + fy * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            memset(patch, zero_point, (size_t)row);
            continue;
        }
        const int8_t *line = image + y * p->in_w * in_c;
        for (int32_t fx = 0; fx < p->filter_w;) {
            const int32_t x = x0 + fx * p->dilation_w;
            int32_t run = 1;  /* taps read together: without dilation the in-bounds taps are contiguous */
            if (x < 0 || x >= p->in_w) {
                memset(patch + fx * in_c, zero_point, (size_t)in_c);
            } else {
                if (p->dilation_w == 1) {
                    run = p->filter_w - fx < p->in_w - x ? p->filter_w - fx : p->in_w - x;
                }
                fg_dsp_copy(patch + fx * in_c, line + x * in_c, run * in_c);
            }
            fx += run;
        }
    }
}

/* params->packed: fg_dsp_channel[out_c], then per channel pair the int16 weight words of filter_h * filter_w * in_c
 * rounded up to 8. */
FG_HOT_LOOP void fg_conv2d_folded_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                      int8_t *output) {
    (void)filter;
    /* each filter row's taps padded to whole words unless that adds more than 8 blocks x outputs (dsp.py's
     * padded_row pads the weights alike) */
    const int32_t row = p->filter_w * p->in_c, words = (row + 3) & ~3, line = p->in_w * p->in_c;
    const int32_t extra = ((p->filter_h * words + 7) >> 3) - ((p->filter_h * row + 7) >> 3);
    const int32_t padded_row = extra * p->out_c <= 8 ? words : row;
    const int32_t depth = p->filter_h * padded_row, pairs = ((depth + 7) >> 3) << 2;
    const int32_t out_c = p->out_c, per_image = p->out_h * p->out_w;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_channel *ch = (const fg_dsp_channel *)p->packed;
    const uint32_t *weights = (const uint32_t *)(ch + out_c);
    const int narrow = fg_dsp_all_narrow(ch, out_c);
    uint32_t x[3 * pairs];
    int8_t patch[2 * pairs];  /* zeros past depth: their weights are zero too */
    memset(patch, 0, sizeof patch);
    memset(x, 0, sizeof x);  /* the pairs past depth stay zero */
    /* a window inside the image read straight from its rows (the padding's bytes from the same image row: their
     * weights are zero) */
    const int direct = p->dilation_h == 1 && p->dilation_w == 1 && padded_row % 4 == 0;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t i = 0; i < per_image; i += 3) {
            const int32_t n = per_image - i < 3 ? per_image - i : 3;
            for (int32_t px = 0; px < 3; ++px) {  /* a short block repeats its first pixel */
                const int32_t pixel = i + (px < n ? px : 0), oy = pixel / p->out_w, ox = pixel % p->out_w;
                const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
                if (direct && y0 >= 0 && y0 + p->filter_h <= p->in_h && x0 >= 0 &&
                    x0 * p->in_c + padded_row <= line) {
                    fg_dsp_extend_rows(image + (y0 * p->in_w + x0) * p->in_c, p->filter_h, padded_row, line,
                                       x + px);
                } else {
                    fg_dsp_window(p, image, y0, x0, patch, padded_row);
                    fg_dsp_extend_patch(patch, pairs, x + px);
                }
            }
            fg_dsp_gemm_3(x, weights, pairs, ch, out_c, n, output + i * out_c, &q, narrow);
        }
        output += per_image * out_c;
    }
}
#endif
