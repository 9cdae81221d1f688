#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/mve_support.h"

/* The window of output pixel (oy, ox) as one row of filter_h * filter_w * in_c bytes, in the filter's order; taps in
 * the padding read the input zero point (the folded bias expects x + input_offset = 0 there). */
static void fg_mve_window_row(const fg_conv2d_params *p, const int8_t *image, int32_t oy, int32_t ox, int8_t *row) {
    const int32_t in_c = p->in_c, span = p->filter_w * in_c, line_bytes = p->in_w * in_c;
    const int8_t zero_point = (int8_t)-p->requant.input_offset;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    const int columns_inside = p->dilation_w == 1 && x0 >= 0 && x0 + p->filter_w <= p->in_w;
    if (columns_inside && y0 >= 0 && y0 + (p->filter_h - 1) * p->dilation_h < p->in_h) {
        const int8_t *line = image + y0 * line_bytes + x0 * in_c;
        const int32_t step = p->dilation_h * line_bytes;
        for (int32_t fy = 0; fy < p->filter_h; ++fy, row += span, line += step) {
            fg_mve_copy_s8(row, line, span);
        }
        return;
    }
    for (int32_t fy = 0; fy < p->filter_h; ++fy, row += span) {
        const int32_t y = y0 + fy * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            fg_mve_fill_s8(row, zero_point, span);
            continue;
        }
        const int8_t *line = image + y * line_bytes;
        if (columns_inside) {
            fg_mve_copy_s8(row, line + x0 * in_c, span);
            continue;
        }
        if (p->dilation_w == 1) {  /* zero points left of the image, the columns inside, zero points right of it */
            const int32_t lo = x0 < 0 ? -x0 : 0, right = x0 + p->filter_w > p->in_w ? p->in_w - x0 : p->filter_w;
            const int32_t hi = right > lo ? right : lo;
            fg_mve_fill_s8(row, zero_point, lo * in_c);
            fg_mve_copy_s8(row + lo * in_c, line + (x0 + lo) * in_c, (hi - lo) * in_c);
            fg_mve_fill_s8(row + hi * in_c, zero_point, (p->filter_w - hi) * in_c);
            continue;
        }
        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
            const int32_t x = x0 + fx * p->dilation_w;
            if (x < 0 || x >= p->in_w) {
                fg_mve_fill_s8(row + fx * in_c, zero_point, in_c);
            } else {
                fg_mve_copy_s8(row + fx * in_c, line + x * in_c, in_c);
            }
        }
    }
}

/* `runs` runs of `span` bytes, `step` apart in the input, one after the other in row. Whole vectors are stored
 * (the next run, or the row's 16 bytes of slack, takes what lands past a run); loads past a run are predicated off,
 * so nothing past the input is read. */
static inline void fg_mve_copy_runs(int8_t *row, const int8_t *line, int32_t runs, int32_t span, int32_t step) {
    const mve_pred16_t last = vctp8q((uint32_t)(((span - 1) & 15) + 1));
    const int32_t whole = (span - 1) >> 4;  /* vectors before the last one of a run */
    for (int32_t fy = 0; fy < runs; ++fy, row += span, line += step) {
        int32_t k = 0;
        for (; k < whole; ++k) {
            vstrbq_s8(row + 16 * k, vldrbq_s8(line + 16 * k));
        }
        vstrbq_s8(row + 16 * k, vldrbq_z_s8(line + 16 * k, last));
    }
}

/* Output pixels in pairs, raster order: both windows are copied before either pixel is stored, so an output
 * overlapping the input as ops/overlap.py allows never changes what a window reads. A window inside the image (no
 * dilation across) is copied run by run; one at the border through fg_mve_window_row. */
FG_HOT_LOOP void fg_conv2d_folded_s8_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                         int8_t *output) {
    (void)filter;
    const int32_t in_c = p->in_c, depth = p->filter_h * p->filter_w * in_c, out_c = p->out_c;
    const int32_t line_bytes = p->in_w * in_c, image_bytes = p->in_h * line_bytes;
    const int32_t span = p->filter_w * in_c, step = p->dilation_h * line_bytes, runs = p->filter_h;
    const int32_t reach_y = (p->filter_h - 1) * p->dilation_h;
    const fg_requant_params requant = p->requant;
    const int32_t *packed = (const int32_t *)p->packed;
    int8_t rows[2][FG_MVE_ROW_MAX + 16];
    int32_t pending = 0;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * image_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = y0 >= 0 && y0 + reach_y < p->in_h && p->dilation_w == 1;
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                if (rows_inside && x0 >= 0 && x0 + p->filter_w <= p->in_w) {
                    fg_mve_copy_runs(rows[pending], image + y0 * line_bytes + x0 * in_c, runs, span, step);
                } else {
                    fg_mve_window_row(p, image, oy, ox, rows[pending]);
                }
                if (++pending == 2) {
                    fg_mve_gemm_s8(rows[0], rows[1], depth, out_c, packed, &requant, output, output + out_c);
                    output += 2 * out_c;
                    pending = 0;
                }
            }
        }
    }
    if (pending) {
        fg_mve_gemm_s8(rows[0], 0, depth, out_c, packed, &requant, output, 0);
    }
}

#endif /* __ARM_FEATURE_MVE */
