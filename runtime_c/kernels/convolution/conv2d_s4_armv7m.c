/* CONV_2D with 4-bit weights on Armv7-M: one output pixel at a time through fg_s4_rows_armv7m, its window as filter
 * rows: a row inside the image read in place, a row above or below it a row of the zero point, a row across the left
 * or right edge copied with the zero point in its padding; a window dilated along its rows, or of a filter taller
 * than FG_S4_MAX_ROWS, gathered whole (fg_conv_window_run). The window's sum of inputs (the kernel takes 8 of it off)
 * slides along an output row with stride 1: each image column's share summed once per output row.
 * params->packed: the weights as fg_s4_rows_armv7m reads them. */
#include "fg/conv2d.h"
#include "fg/support/row_copy.h"
#include "fg/support/weights_s4.h"
#include "fg/support/window_run.h"

#define FG_S4_MAX_ROWS 16
#define FG_S4_MAX_WIDTH 256  /* image columns an output row's windows read, whose sums are kept */

/* rows[r], r < filter_h: the window's filter rows whose top left tap is (y0, x0); `crossing` holds the rows across an
 * edge (filter_h * filter_w * in_c bytes), `padding` a whole row of the zero point. */
static void fg_s4_window_rows(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                              const int8_t *padding, int8_t *crossing, const int8_t *rows[FG_S4_MAX_ROWS]) {
    const int32_t in_c = p->in_c, fw = p->filter_w, run = fw * in_c;
    const int8_t zero_point = (int8_t)-p->requant.input_offset;
    const int inside = x0 >= 0 && x0 + fw <= p->in_w;
    for (int32_t r = 0; r < p->filter_h; ++r, crossing += run) {
        const int32_t y = y0 + r * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            rows[r] = padding;
            continue;
        }
        const int8_t *line = image + y * p->in_w * in_c;
        if (inside) {
            rows[r] = line + x0 * in_c;
            continue;
        }
        for (int32_t fx = 0; fx < fw; ++fx) {
            const int32_t x = x0 + fx;
            if (x >= 0 && x < p->in_w) {
                fg_copy_row(crossing + fx * in_c, line + x * in_c, in_c);
            } else {
                fg_fill_row(crossing + fx * in_c, zero_point, in_c);
            }
        }
        rows[r] = crossing;
    }
}

/* sums[x] += the sum of the in_c inputs of pixel x of an image row, x < width (in_c a multiple of 4, at most 512:
 * the 16-bit lanes of x + 128 cannot carry). */
FG_HOT_LOOP static void fg_s4_add_pixel_sums(const int8_t *row, int32_t width, int32_t in_c, int32_t *sums) {
    for (int32_t x = 0; x < width; ++x) {
        uint32_t lanes = 0;
        for (const int8_t *const end = row + in_c; row != end; row += 4) {
            uint32_t v;
            __builtin_memcpy(&v, row, sizeof v);
            v ^= 0x80808080u;
            lanes += (v & 0x00FF00FFu) + ((v >> 8) & 0x00FF00FFu);
        }
        sums[x] += (int32_t)((lanes & 0xFFFFu) + (lanes >> 16)) - 128 * in_c;
    }
}

/* columns[x + pad_left] = the sum of the inputs of the output row's windows in image column x (the zero point in the
 * padding), for the columns its windows read: [-pad_left, (out_w - 1) * stride_w - pad_left + filter_w). */
static void fg_s4_column_sums(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t *columns) {
    const int32_t in_c = p->in_c, padded = -p->requant.input_offset * in_c, left = p->pad_left;
    const int32_t count = (p->out_w - 1) * p->stride_w + p->filter_w, right = count - left - p->in_w;
    int32_t rows_inside = 0;
    for (int32_t x = 0; x < count; ++x) {
        columns[x] = 0;
    }
    for (int32_t r = 0; r < p->filter_h; ++r) {
        const int32_t y = y0 + r * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            continue;
        }
        ++rows_inside;
        fg_s4_add_pixel_sums(image + y * p->in_w * in_c, p->in_w - (right < 0 ? -right : 0), in_c, columns + left);
    }
    for (int32_t x = 0; x < count; ++x) {
        const int inside = x >= left && x - left < p->in_w;
        columns[x] += padded * (inside ? p->filter_h - rows_inside : p->filter_h);
    }
}

/* One output row of a layer read by rows (dilation_w 1); its windows' sums from the column sums when they serve
 * (stride_w 1, the row's columns at most FG_S4_MAX_WIDTH, in_c a multiple of 4 up to 512). */
static void fg_s4_output_row(const fg_conv2d_params *p, const int8_t *image, int32_t oy, const int8_t *padding,
                             int8_t *crossing, int8_t *output) {
    const int32_t out_c = p->out_c, fw = p->filter_w, run = fw * p->in_c, y0 = oy * p->stride_h - p->pad_top;
    const int by_columns = p->stride_w == 1 && p->out_w - 1 + fw <= FG_S4_MAX_WIDTH && p->in_c % 4 == 0 &&
                           p->in_c <= 512;
    int32_t columns[FG_S4_MAX_WIDTH], sum_x = 0;
    if (by_columns) {
        fg_s4_column_sums(p, image, y0, columns);
        for (int32_t fx = 0; fx + 1 < fw; ++fx) {
            sum_x += columns[fx];
        }
    }
    for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
        const int8_t *rows[FG_S4_MAX_ROWS];
        fg_s4_window_rows(p, image, y0, ox * p->stride_w - p->pad_left, padding, crossing, rows);
        if (by_columns) {  /* the column entering the window in, the one leaving it out */
            sum_x += columns[ox + fw - 1];
        } else {
            sum_x = 0;
            for (int32_t r = 0; r < p->filter_h; ++r) {
                sum_x += fg_s4_sum_armv7m(rows[r], run);
            }
        }
        fg_s4_rows_armv7m(rows, p->filter_h, run, sum_x, p->packed, out_c, p->folded_bias, &p->requant, output);
        if (by_columns) {
            sum_x -= columns[ox];
        }
    }
}

void fg_conv2d_s4_armv7m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t out_c = p->out_c, run = p->filter_w * p->in_c, taps = p->filter_h * run;
    const int32_t per_image = p->out_h * p->out_w * out_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[FG_CONV_GATHER_TAPS] __attribute__((aligned(4)));
    int8_t padding[FG_CONV_GATHER_TAPS];
    (void)filter;
    if (p->dilation_w == 1 && p->filter_h <= FG_S4_MAX_ROWS) {
        fg_fill_row(padding, (int8_t)-p->requant.input_offset, run);
        for (int32_t b = 0; b < p->batches; ++b) {
            const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
            for (int32_t oy = 0; oy < p->out_h; ++oy) {
                fg_s4_output_row(p, image, oy, padding, gathered, output + b * per_image + oy * p->out_w * out_c);
            }
        }
        return;
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                const int8_t *x = fg_conv_window_run(p, image, oy, ox, gathered);
                fg_s4_rows_armv7m(&x, 1, taps, fg_s4_sum_armv7m(x, taps), p->packed, out_c, p->folded_bias,
                                  &requant, output);
            }
        }
    }
}
