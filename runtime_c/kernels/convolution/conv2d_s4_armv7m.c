/* CONV_2D with 4-bit weights on Armv7-M: one output pixel at a time through fg_s4_rows_armv7m, its window as filter
 * rows: a row inside the image read in place, a row above or below it a row of the zero point, a row across the left
 * or right edge copied with the zero point in its padding; a window dilated along its rows, or of a filter taller
 * than FG_S4_MAX_ROWS, gathered whole (fg_conv_window_run). params->packed: the weights as fg_s4_rows_armv7m reads
 * them. */
#include "fg/conv2d.h"
#include "fg/support/row_copy.h"
#include "fg/support/weights_s4.h"
#include "fg/support/window_run.h"

#define FG_S4_MAX_ROWS 16

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

void fg_conv2d_s4_armv7m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t out_c = p->out_c, run = p->filter_w * p->in_c, taps = p->filter_h * run;
    const fg_requant_params requant = p->requant;
    const int by_rows = p->dilation_w == 1 && p->filter_h <= FG_S4_MAX_ROWS;
    int8_t gathered[FG_CONV_GATHER_TAPS] __attribute__((aligned(4)));
    int8_t padding[FG_CONV_GATHER_TAPS];
    (void)filter;
    if (by_rows) {
        fg_fill_row(padding, (int8_t)-p->requant.input_offset, run);
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                const int8_t *rows[FG_S4_MAX_ROWS];
                if (by_rows) {
                    fg_s4_window_rows(p, image, oy * p->stride_h - p->pad_top, ox * p->stride_w - p->pad_left,
                                      padding, gathered, rows);
                    fg_s4_rows_armv7m(rows, p->filter_h, run, p->packed, out_c, p->folded_bias, &requant, output);
                    continue;
                }
                rows[0] = fg_conv_window_run(p, image, oy, ox, gathered);
                fg_s4_rows_armv7m(rows, 1, taps, p->packed, out_c, p->folded_bias, &requant, output);
            }
        }
    }
}
