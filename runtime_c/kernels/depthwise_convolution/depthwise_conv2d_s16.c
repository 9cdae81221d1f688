#include "fg/depthwise_conv2d.h"
#include "fg/support/dot_s16.h"

/* Output channels per pass of one pixel: their partial sums stay on the stack while the taps go by. */
#define FG_DW_S16_CHUNK 32

/* sums[k] = the products of output channel first + k, k < count, over filter rows [rows[0], rows[1]) and columns
 * [span[2], span[3]) (taps outer, channels inner: consecutive channels read consecutive filter bytes and, with depth
 * multiplier 1, consecutive input values; with the filter repacked as channel_taps, bytes 9 apart). At most 512
 * taps: int32 holds their sum. */
static void fg_depthwise_s16_chunk(const fg_depthwise_conv2d_params *p, const fg_window_s16 *win, const int8_t *filter,
                                   const int32_t rows[2], int32_t first, int32_t count, int32_t *sums) {
    const int32_t in_c = p->in_c, multiplier = p->depth_multiplier;
    const int32_t out_c = in_c * multiplier;
    for (int32_t k = 0; k < count; ++k) {
        sums[k] = 0;
    }
    for (int32_t fy = rows[0]; fy < rows[1]; ++fy) {
        const int32_t y = win->y_origin + fy * p->dilation_h;
        for (int32_t fx = win->span[2]; fx < win->span[3]; ++fx) {
            const int16_t *pixel = win->image + (y * p->in_w + win->x_origin + fx * p->dilation_w) * in_c;
            if (p->channel_taps) {  /* 3x3, depth multiplier 1 */
                const int8_t *taps = p->channel_taps + first * 9 + fy * 3 + fx;
                pixel += first;
                for (int32_t k = 0; k < count; ++k) {
                    sums[k] += (int32_t)taps[k * 9] * pixel[k];
                }
                continue;
            }
            const int8_t *taps = filter + (fy * p->filter_w + fx) * out_c + first;
            if (multiplier == 1) {
                pixel += first;
                for (int32_t k = 0; k < count; ++k) {
                    sums[k] += (int32_t)taps[k] * pixel[k];
                }
            } else {
                for (int32_t k = 0; k < count; ++k) {
                    sums[k] += (int32_t)taps[k] * pixel[(first + k) / multiplier];
                }
            }
        }
    }
}

/* acc[k] = the whole window of output channel first + k: runs of filter rows of at most 512 taps, widened. */
static void fg_depthwise_s16_window(const fg_depthwise_conv2d_params *p, const fg_window_s16 *win,
                                    const int8_t *filter, int32_t first, int32_t count, int64_t *acc) {
    const int32_t group = p->filter_w >= 256 ? 1 : 256 / p->filter_w;
    int32_t sums[FG_DW_S16_CHUNK];
    for (int32_t k = 0; k < count; ++k) {
        acc[k] = 0;
    }
    for (int32_t fy = win->span[0]; fy < win->span[1]; fy += group) {
        const int32_t rows[2] = {fy, fy + group < win->span[1] ? fy + group : win->span[1]};
        fg_depthwise_s16_chunk(p, win, filter, rows, first, count, sums);
        for (int32_t k = 0; k < count; ++k) {
            acc[k] += sums[k];
        }
    }
}

/* A 3x3 window wholly inside the input, depth multiplier 1, the filter repacked as [channel][9 taps]
 * (channel_taps): each channel's nine products summed in a register (they fit int32). */
static int16_t *fg_depthwise_s16_3x3(const fg_depthwise_conv2d_params *p, const fg_window_s16 *win,
                                     int16_t *output) {
    const fg_requant_params *q = &p->requant;  /* int16 stores cannot alias them: no local copies needed */
    const fg_wide_bias *w = &p->wide;
    const int32_t in_c = p->in_c;
    const int32_t col = p->dilation_w * in_c, row = p->dilation_h * p->in_w * in_c;
    const int16_t *top = win->image + (win->y_origin * p->in_w + win->x_origin) * in_c;
    const int8_t *taps = p->channel_taps;
    for (int32_t c = 0; c < in_c; ++c, taps += 9) {
        const int16_t *r0 = top + c, *r1 = r0 + row, *r2 = r1 + row;
        const int32_t acc = r0[0] * taps[0] + r0[col] * taps[1] + r0[2 * col] * taps[2]
                          + r1[0] * taps[3] + r1[col] * taps[4] + r1[2 * col] * taps[5]
                          + r2[0] * taps[6] + r2[col] * taps[7] + r2[2 * col] * taps[8];
        *output++ = fg_requantize_channel_s16(q, w, acc, c);
    }
    return output;
}

static int16_t *fg_depthwise_s16_pixel(const void *params, const int8_t *filter, const fg_window_s16 *win,
                                       int16_t *output) {
    const fg_depthwise_conv2d_params *p = (const fg_depthwise_conv2d_params *)params;
    const int32_t *span = win->span;
    if (p->channel_taps && span[0] == 0 && span[1] == 3 && span[2] == 0 && span[3] == 3) {
        return fg_depthwise_s16_3x3(p, win, output);
    }
    const fg_requant_params *q = &p->requant;  /* int16 stores cannot alias them: no local copies needed */
    const fg_wide_bias *w = &p->wide;
    const int32_t out_c = p->in_c * p->depth_multiplier;
    for (int32_t first = 0; first < out_c; first += FG_DW_S16_CHUNK) {
        const int32_t count = out_c - first < FG_DW_S16_CHUNK ? out_c - first : FG_DW_S16_CHUNK;
        int64_t acc[FG_DW_S16_CHUNK];
        fg_depthwise_s16_window(p, win, filter, first, count, acc);
        for (int32_t k = 0; k < count; ++k) {
            *output++ = fg_requantize_channel_s16(q, w, acc[k], first + k);
        }
    }
    return output;
}

void fg_depthwise_conv2d_s16(const fg_depthwise_conv2d_params *p, const int16_t *input, const int8_t *filter,
                             int16_t *output) {
    const fg_window_geometry_s16 g = {p->batches, p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->filter_h,
                                      p->filter_w, p->stride_h, p->stride_w, p->dilation_h, p->dilation_w,
                                      p->pad_top, p->pad_left};
    fg_window_walk_s16(&g, p, input, filter, output, fg_depthwise_s16_pixel);
}
