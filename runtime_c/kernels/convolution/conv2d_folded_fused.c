#include "fg/support/fused_group.h"
#include "fg/support/row_copy.h"

/* The window of a pixel across the image's border (dilation_w 1), its rows side by side in `buffer`: the input zero
 * point (the padding) throughout, then each inside row's inside columns copied over it as one run. */
static void fg_window_gather(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0, int8_t *buffer) {
    const int32_t in_c = p->in_c, run = p->blocked.run;
    const int32_t left = x0 < 0 ? -x0 : 0, end = x0 + p->filter_w > p->in_w ? p->in_w - x0 : p->filter_w;
    const int32_t inside = end > left ? (end - left) * in_c : 0;
    fg_fill_row(buffer, (int8_t)-p->requant.input_offset, p->filter_h * run);
    if (inside == 0) {
        return;
    }
    const int8_t *const columns = image + (x0 + left) * in_c;
    buffer += left * in_c;
    for (int32_t fy = 0; fy < p->filter_h; ++fy, buffer += run) {
        const int32_t y = y0 + fy * p->dilation_h;
        if (y >= 0 && y < p->in_h) {
            fg_copy_short_row(buffer, columns + y * p->in_w * in_c, inside);
        }
    }
}

/* The kernel; side_by_side_runs (a constant): each pixel's window read as one run of taps, its rows copied side by side
 * (border pixels gathered so), where the whole window takes one call of the loop. floor (a constant): the constants
 * are fg_floor_channel's. short_rows (a constant, fg_conv2d_folded_rows_s8): windows of rows of at most FG_ROW_TAPS
 * taps that take one call, whole groups of eight outputs, not dilated along x: the inside windows' groups straight
 * from their rows in the image, a row's run of them at once, a border window's from its rows gathered side by side
 * (fg_fused_row_span), and no other walk linked. */
static inline __attribute__((always_inline)) void fg_folded_fused(const fg_conv2d_params *p, const int8_t *input,
                                                                  int8_t *output, int side_by_side_runs, int floor,
                                                                  int short_rows) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, out_c = p->out_c, offset = p->requant.output_offset;
    const int32_t row_bytes = p->in_w * p->in_c, row_step = p->dilation_h * row_bytes;
    const int32_t last_row = (p->filter_h - 1) * p->dilation_h;
    const fg_blocked_filter *const f = &p->blocked;
    const fg_fused_channel *const constants = (const fg_fused_channel *)p->packed;
    const int contiguous = side_by_side_runs && f->rows > 1 && f->call_taps == f->run && f->call_rows >= f->rows;
    const int32_t run = contiguous ? f->rows * f->run : f->run, rows = contiguous ? 1 : f->rows;
    const int32_t call_rows = contiguous ? 1 : f->call_rows, call_taps = contiguous ? run : f->call_taps;
    /* short_rows: the first pixel of a row past its inside windows */
    const int32_t inside_end = (p->in_w - p->filter_w + p->pad_left) / p->stride_w + 1;
    int8_t gathered[FG_CONV_GATHER_TAPS];
    const int8_t *window[FG_CONV_MAX_ROWS];
    const int8_t *const whole[1] = {gathered};
    const int8_t *image = input;
    int32_t ox = 0, oy = 0;
    /* One pixel at a time, stored group by group after its window is read or gathered: output pixel i may overlap
     * only the inputs below the lowest one its window reads (ops/overlap.py). */
    for (int32_t i = 0; i < pixels;) {
        const int32_t pixel = i;
        const int8_t *const here = image;  /* the pixel's image */
        const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
        const int inside = p->dilation_w == 1 && y0 >= 0 && y0 + last_row < p->in_h && x0 >= 0 &&
                           x0 + p->filter_w <= p->in_w;
        const int32_t span = short_rows && inside ? (inside_end < p->out_w ? inside_end : p->out_w) - ox : 1;
        i += span;
        ox += span;
        if (ox == p->out_w) {
            ox = 0;
            if (++oy == p->out_h) {
                oy = 0;
                image += p->in_h * row_bytes;
            }
        }
        const int8_t *row = here + y0 * row_bytes + x0 * p->in_c;  /* inside: no division of the index */
        if (short_rows) {
            int32_t pixel_bytes = p->stride_w * p->in_c, rows_apart = row_step;
            if (!inside) {  /* a border window, its rows gathered side by side */
                fg_conv_window_rows(p, input, pixel, gathered, window);
                for (int32_t fy = 0; fy < f->rows; ++fy) {
                    if (window[fy] != gathered + fy * f->run) {
                        fg_copy_short_row(gathered + fy * f->run, window[fy], f->run);
                    }
                }
                row = gathered;
                pixel_bytes = 1;
                rows_apart = f->run;
            }
            fg_fused_row_span(row, span, pixel_bytes, f, rows_apart, out_c / FG_PAIRED_CHANNELS, constants, offset,
                              &output, floor);
            continue;
        }
        int side_by_side = 0;
        if (inside) {
            for (int32_t fy = 0; fy < f->rows; ++fy, row += row_step) {
                window[fy] = row;
            }
        } else if (contiguous && p->dilation_w == 1) {
            fg_window_gather(p, here, y0, x0, gathered);
            side_by_side = 1;
        } else {
            fg_conv_window_rows(p, input, pixel, gathered, window);
        }
        if (contiguous && !side_by_side) {
            for (int32_t fy = 0; fy < f->rows; ++fy) {
                if (window[fy] != gathered + fy * f->run) {
                    fg_copy_short_row(gathered + fy * f->run, window[fy], f->run);
                }
            }
        }
        const int8_t *const *const x = contiguous ? whole : window;
        const int32_t *w = f->paired;
        const fg_fused_channel *c = constants;
        int32_t oc = 0;
        if (contiguous) {  /* its whole groups straight from registers */
            fg_fused_groups(gathered, gathered + run, out_c / FG_PAIRED_CHANNELS, &w, &c, offset, &output, 0, floor);
            oc = out_c - out_c % FG_PAIRED_CHANNELS;
        }
        for (; oc < out_c; oc += FG_PAIRED_CHANNELS, c += FG_PAIRED_CHANNELS) {
            const int32_t count = out_c - oc < FG_PAIRED_CHANNELS ? out_c - oc : FG_PAIRED_CHANNELS;
            fg_fused_window_group(x, rows, run, call_rows, call_taps, &w, c, offset, count, output, floor);
            output += count;
        }
    }
}

FG_HOT_LOOP void fg_conv2d_folded_fused_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                           int8_t *output) {
    (void)filter;
    fg_folded_fused(p, input, output, 0, 0, 0);
}

FG_HOT_LOOP void fg_conv2d_folded_gathered_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                              int8_t *output) {
    (void)filter;
    fg_folded_fused(p, input, output, 1, 0, 0);
}

FG_HOT_LOOP void fg_conv2d_folded_rows_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                          int8_t *output) {
    (void)filter;
    fg_folded_fused(p, input, output, 0, 0, 1);
}

FG_HOT_LOOP void fg_conv2d_folded_fused_floor_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                                 int8_t *output) {
    (void)filter;
    fg_folded_fused(p, input, output, 0, 1, 0);
}

FG_HOT_LOOP void fg_conv2d_folded_gathered_floor_s8(const fg_conv2d_params *p, const int8_t *input,
                                                    const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_folded_fused(p, input, output, 1, 1, 0);
}

FG_HOT_LOOP void fg_conv2d_folded_rows_floor_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                                int8_t *output) {
    (void)filter;
    fg_folded_fused(p, input, output, 0, 1, 1);
}
