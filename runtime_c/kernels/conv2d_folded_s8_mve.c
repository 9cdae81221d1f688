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

/* Output pixels in pairs, raster order: both windows are copied before either pixel is stored, so an output
 * overlapping the input as ops/overlap.py allows never changes what a window reads. */
void fg_conv2d_folded_s8_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    const int32_t depth = p->filter_h * p->filter_w * p->in_c, out_c = p->out_c;
    const int32_t pixels = p->batches * p->out_h * p->out_w, image_bytes = p->in_h * p->in_w * p->in_c;
    const fg_requant_params requant = p->requant;
    const int32_t *packed = (const int32_t *)p->packed;
    int8_t rows[2][FG_MVE_ROW_MAX];
    int32_t b = 0, oy = 0, ox = 0;  /* of the next window to copy */
    for (int32_t i = 0; i < pixels; i += 2) {
        const int32_t pair = pixels - i < 2 ? 1 : 2;
        for (int32_t k = 0; k < pair; ++k) {
            fg_mve_window_row(p, input + b * image_bytes, oy, ox, rows[k]);
            if (++ox == p->out_w) {
                ox = 0;
                if (++oy == p->out_h) {
                    oy = 0;
                    ++b;
                }
            }
        }
        fg_mve_gemm_s8(rows[0], pair == 2 ? rows[1] : 0, depth, out_c, packed, &requant, output + i * out_c,
                       output + (i + 1) * out_c);
    }
}

#endif /* __ARM_FEATURE_MVE */
