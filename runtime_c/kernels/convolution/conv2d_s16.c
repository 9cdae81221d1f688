#include "fg/conv2d.h"
#include "fg/support/dot_s16.h"

/* The window of one output pixel, output channels [oc, oc + 4) whose filters lie channel_taps apart: each in-bounds
 * filter row is one run of taps when the columns are contiguous (dilation_w 1), else one run per column. */
static void fg_conv2d_s16_group(const fg_conv2d_params *p, const fg_window_s16 *win, const int8_t *kernel,
                                int64_t acc[4]) {
    const int32_t in_c = p->in_c;
    const int32_t row_taps = p->filter_w * in_c;
    const int32_t channel_taps = p->filter_h * row_taps;
    const int32_t *span = win->span;
    const int32_t columns = p->dilation_w == 1 ? 1 : span[3] - span[2];
    const int32_t run = p->dilation_w == 1 ? (span[3] - span[2]) * in_c : in_c;
    for (int32_t fy = span[0]; fy < span[1]; ++fy) {
        const int16_t *line = win->image + (win->y_origin + fy * p->dilation_h) * p->in_w * in_c;
        for (int32_t k = 0, fx = span[2]; k < columns; ++k, ++fx) {
            fg_dot4_s16_s8(line + (win->x_origin + fx * p->dilation_w) * in_c, kernel + fy * row_taps + fx * in_c,
                           channel_taps, run, acc);
        }
    }
}

/* The same for FG_S16_GROUP output channels with interleaved weights: the runs (filter rows, or with dilation_w > 1
 * the columns of each row) go to fg_dot8_s16_s8_runs in int32 sums, widened every 256 products. */
static void fg_conv2d_s16_group8(const fg_conv2d_params *p, const fg_window_s16 *win, const int8_t *kernel,
                                 int64_t acc[FG_S16_GROUP]) {
    const int32_t in_c = p->in_c, row_taps = p->filter_w * in_c, line = p->dilation_h * p->in_w * in_c;
    const int32_t *span = win->span;
    const int32_t contiguous = p->dilation_w == 1;
    const int32_t n = contiguous ? (span[3] - span[2]) * in_c : in_c;
    const int32_t x_step = contiguous ? line : p->dilation_w * in_c, w_step = (contiguous ? row_taps : in_c) * 8;
    if (n == 0) {
        return;  /* no column of the window inside the input */
    }
    const int32_t per_call = n >= 256 ? 1 : 256 / n;  /* runs per int32 widening */
    int32_t sums[FG_S16_GROUP] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int32_t fy = span[0]; fy < span[1]; fy += contiguous ? per_call : 1) {
        const int32_t runs = contiguous ? fg_min_i32(per_call, span[1] - fy) : span[3] - span[2];
        const int16_t *x = win->image + (win->y_origin + fy * p->dilation_h) * p->in_w * in_c +
                           (win->x_origin + span[2] * p->dilation_w) * in_c;
        const int8_t *w = kernel + (fy * row_taps + span[2] * in_c) * FG_S16_GROUP;
        for (int32_t first = 0; first < runs; first += per_call) {
            if (n > 256) {
                fg_dot8_s16_s8(x + first * x_step, w + first * w_step, n, acc);
                continue;
            }
            fg_dot8_s16_s8_runs(x + first * x_step, x_step, w + first * w_step, w_step,
                                fg_min_i32(per_call, runs - first), n, sums);
            fg_widen_s16(sums, acc, FG_S16_GROUP);
        }
    }
}

/* The same for one output channel (the last out_c % 4). */
static int64_t fg_conv2d_s16_channel(const fg_conv2d_params *p, const fg_window_s16 *win, const int8_t *kernel) {
    const int32_t in_c = p->in_c;
    const int32_t *span = win->span;
    int64_t acc = 0;
    for (int32_t fy = span[0]; fy < span[1]; ++fy) {
        const int16_t *line = win->image + (win->y_origin + fy * p->dilation_h) * p->in_w * in_c;
        for (int32_t fx = span[2]; fx < span[3]; ++fx) {
            acc += fg_dot_s16_s8(line + (win->x_origin + fx * p->dilation_w) * in_c,
                                 kernel + (fy * p->filter_w + fx) * in_c, in_c);
        }
    }
    return acc;
}

static int16_t *fg_conv2d_s16_pixel(const void *params, const int8_t *filter, const fg_window_s16 *win,
                                    int16_t *output) {
    const fg_conv2d_params *p = (const fg_conv2d_params *)params;
    const fg_requant_params *q = &p->requant;  /* int16 stores cannot alias them: no local copies needed */
    const fg_wide_bias *w = &p->wide;
    const int32_t channel_taps = p->filter_h * p->filter_w * p->in_c;
    const int32_t grouped = p->interleaved ? p->out_c - p->out_c % FG_S16_GROUP : 0;
    const int8_t *rest = p->interleaved ? p->interleaved + grouped * channel_taps : filter;  /* from `grouped` on */
    int32_t oc = 0;
    for (; oc < grouped; oc += FG_S16_GROUP) {
        int64_t acc[FG_S16_GROUP] = {0, 0, 0, 0, 0, 0, 0, 0};
        fg_conv2d_s16_group8(p, win, p->interleaved + oc * channel_taps, acc);
        output = fg_requantize_block_s16(q, w, acc, oc, FG_S16_GROUP, output);
    }
    for (; oc + 4 <= p->out_c; oc += 4) {
        int64_t acc[4] = {0, 0, 0, 0};
        fg_conv2d_s16_group(p, win, rest + (oc - grouped) * channel_taps, acc);
        output = fg_requantize_block_s16(q, w, acc, oc, 4, output);
    }
    for (; oc < p->out_c; ++oc) {
        const int64_t acc = fg_conv2d_s16_channel(p, win, rest + (oc - grouped) * channel_taps);
        *output++ = fg_requantize_channel_s16(q, w, acc, oc);
    }
    return output;
}

void fg_conv2d_s16(const fg_conv2d_params *p, const int16_t *input, const int8_t *filter, int16_t *output) {
    const fg_window_geometry_s16 g = {p->batches, p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->filter_h,
                                      p->filter_w, p->stride_h, p->stride_w, p->dilation_h, p->dilation_w,
                                      p->pad_top, p->pad_left};
    fg_window_walk_s16(&g, p, input, filter, output, fg_conv2d_s16_pixel);
}
