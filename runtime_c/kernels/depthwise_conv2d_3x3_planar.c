#include <string.h>

#include "fg/depthwise_conv2d.h"
#include "fg/dot_s8.h"
#include "fg/requantize_fast.h"

/* Channel by channel, in bands of output rows: the input rows a band's windows need are copied into a plane of int8
 * rows FG_DW_PLANAR_PITCH apart on the stack (the padding holds the input zero point, which the folded bias
 * expects), so that every tap of a window is at a constant offset from its top left and the channel's nine weights
 * stay in registers over the band. The band's sums go to int32s first, then through the output stage with the
 * channel's constants in registers (a channel's outputs are in_c bytes apart across rows too). */

#define FG_DW_PLANAR_ROWS 12   /* input rows of a band's plane */
#define FG_DW_PLANAR_SUMS 192  /* outputs of a band */

/* sums[i * n + x] = the nine taps of window x < n of output row i < rows, windows `stride` columns and rows apart,
 * the first's top left at r. */
static inline __attribute__((always_inline)) void fg_dw_planar_sums(const int8_t *r, const int8_t *w, int32_t stride,
                                                                     int32_t rows, int32_t n, int32_t *sums) {
    enum { P = FG_DW_PLANAR_PITCH };
    const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7], w8 = w[8];
    for (int32_t i = 0; i < rows; ++i, r += stride * P - stride * n) {
        for (int32_t x = 0; x < n; ++x, r += stride) {
            *sums++ = w0 * r[0] + w1 * r[1] + w2 * r[2] + w3 * r[P] + w4 * r[P + 1] + w5 * r[P + 2] + w6 * r[2 * P] +
                      w7 * r[2 * P + 1] + w8 * r[2 * P + 2];
        }
    }
}

FG_HOT_LOOP static void fg_dw_planar_sums_s1(const int8_t *r, const int8_t *w, int32_t rows, int32_t n,
                                             int32_t *sums) {
    fg_dw_planar_sums(r, w, 1, rows, n, sums);
}

FG_HOT_LOOP static void fg_dw_planar_sums_s2(const int8_t *r, const int8_t *w, int32_t rows, int32_t n,
                                             int32_t *sums) {
    fg_dw_planar_sums(r, w, 2, rows, n, sums);
}

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

/* Channel c of input rows first.. (count of them; the zero point outside the image) into plane rows 0.., columns
 * pad_left... */
FG_HOT_LOOP static void fg_dw_planar_fill(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t c,
                                          int32_t first, int32_t count, int8_t *plane) {
    const int32_t step = p->in_c, n = p->in_w;
    for (int32_t y = first; y < first + count; ++y, plane += FG_DW_PLANAR_PITCH) {
        int8_t *dst = plane + p->pad_left;
        if (y < 0 || y >= p->in_h) {
            memset(dst, (int)(int8_t)-p->requant.input_offset, (size_t)n);
            continue;
        }
        const int8_t *src = image + y * n * step + c;
        int32_t x = 0;
        for (; x + 2 <= n; x += 2, src += 2 * step) {
            const int8_t a = src[0], b = src[step];
            dst[x] = a;
            dst[x + 1] = b;
        }
        if (x < n) {
            dst[x] = *src;
        }
    }
}

/* Every output row of channel c of one image, in bands of `band` rows. */
static void fg_dw_planar_channel(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t c, int32_t band,
                                 int8_t *output, int8_t *plane, int32_t *sums) {
    const fg_requant_params *q = &p->requant;
    const int32_t entry = q->per_channel ? c : 0, step = p->in_c, n = p->out_w, stride = p->stride_h;
    fg_fast_channel fast;
    const fg_fast_channel *k = fg_fast_channel_of(q->multipliers[entry], q->shifts[entry], &fast) ? &fast : NULL;
    const uint32_t bias = (uint32_t)p->folded_bias[c];
    const int8_t *w = p->channel_taps + 9 * c;
    for (int32_t oy = 0; oy < p->out_h; oy += band) {
        const int32_t rows = p->out_h - oy < band ? p->out_h - oy : band;
        fg_dw_planar_fill(p, image, c, oy * stride - p->pad_top, (rows - 1) * stride + 3, plane);
        if (stride == 1) {
            fg_dw_planar_sums_s1(plane, w, rows, n, sums);
        } else {
            fg_dw_planar_sums_s2(plane, w, rows, n, sums);
        }
        fg_dw_planar_outputs(sums, rows * n, bias, k, q, c, output + oy * n * step + c, step);
    }
}

/* Raster order, one channel of one pixel at a time: the order every overlap the planner allows is safe in. */
static void fg_dw_planar_raster(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += channels) {
                for (int32_t c = 0; c < channels; ++c) {
                    uint32_t acc = (uint32_t)p->folded_bias[c];
                    for (int32_t t = 0; t < 9; ++t) {
                        const int32_t y = oy * p->stride_h - p->pad_top + t / 3;
                        const int32_t x = ox * p->stride_w - p->pad_left + t % 3;
                        const int32_t v = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w
                                              ? image[(y * p->in_w + x) * channels + c] : -p->requant.input_offset;
                        acc += (uint32_t)(p->channel_taps[9 * c + t] * v);
                    }
                    output[c] = fg_requantize_channel_s8(&p->requant, fg_wrapped_i32(acc), c);
                }
            }
        }
    }
}

void fg_depthwise_conv2d_3x3_planar_s8(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    if (!fg_depthwise_channel_major(p, input, output)) {
        fg_dw_planar_raster(p, input, output);
        return;
    }
    int8_t plane[FG_DW_PLANAR_ROWS * FG_DW_PLANAR_PITCH];
    int32_t sums[FG_DW_PLANAR_SUMS];
    memset(plane, (int)(int8_t)-p->requant.input_offset, sizeof plane);  /* the padding's columns keep it */
    const int32_t by_plane = (FG_DW_PLANAR_ROWS - 3) / p->stride_h + 1, by_sums = FG_DW_PLANAR_SUMS / p->out_w;
    const int32_t band = by_plane < by_sums ? by_plane : by_sums;
    const int32_t image_bytes = p->in_h * p->in_w * p->in_c, out_bytes = p->out_h * p->out_w * p->in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t c = 0; c < p->in_c; ++c) {
            fg_dw_planar_channel(p, input + b * image_bytes, c, band, output + b * out_bytes, plane, sums);
        }
    }
}
