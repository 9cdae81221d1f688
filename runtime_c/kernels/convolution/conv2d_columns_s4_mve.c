#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"
#include "fg/isa/mve_columns.h"

enum { FG_COLUMNS_SUMS_MAX = FG_MVE_COLUMN_BAND_MAX / 16 };  /* columns of 16 bytes or more in a band */

/* The offset layout's window sums of one output row: each column's once (columns of 16 bytes or more), summed up to
 * each column (sums[c]: columns before c), a window's the difference of two; or window by window. */
typedef struct {
    int32_t sums[FG_COLUMNS_SUMS_MAX + 1];
    int32_t by_column;
} fg_columns_sums;

static void fg_columns_sums_of_row(fg_columns_sums *s, const int8_t *band, int32_t width, int32_t column) {
    s->by_column = column >= 16;
    s->sums[0] = 0;
    for (int32_t c = 0; s->by_column && c < width; ++c) {
        s->sums[c + 1] = s->sums[c] + fg_mve_row_sum(band + c * column, column);
    }
}

__attribute__((always_inline)) static inline int32_t fg_columns_window_sum(const fg_columns_sums *s, const int8_t *band,
                                                                        int32_t first, int32_t filter_w,
                                                                        int32_t column) {
    return s->by_column ? s->sums[first + filter_w] - s->sums[first]
                        : fg_mve_row_sum(band + first * column, filter_w * column);
}

/* fg_conv2d_columns_s8_mve's column band (fg/isa/mve_columns.h) against a 4-bit GEMM layout, out_c a multiple of four
 * (ops/variants/mve_4bit.py): row by row the band, then its windows read in place in pairs through the layout's
 * assembly loop over every block (the offset layout's window sums taken first), a last lone one through the GEMM. The
 * band is built before the row's outputs are stored, so an output overlapping the input as ops/overlap.py allows
 * changes nothing it reads. */
static void fg_columns_s4(const fg_conv2d_params *p, const int8_t *input, int8_t *output, fg_mve_gemm_layout layout) {
    int8_t band[FG_MVE_COLUMN_BAND_MAX + 16];  /* the GEMM reads up to 15 bytes past a window */
    const int32_t in_c = p->in_c, out_c = p->out_c, column = p->filter_h * in_c, depth = p->filter_w * column;
    const int32_t width = (p->out_w - 1) * p->stride_w + p->filter_w, pixel_step = p->stride_w * column;
    const int shifts_left = fg_mve_any_left_shift(&p->requant, out_c);
    const int32_t *packed = (const int32_t *)p->packed;
    const fg_mve_clamp clamp = fg_mve_make_clamp(&p->requant);
    fg_columns_sums sums;
    sums.by_column = 0;
    fg_mve_gemm_state_s4 with_sums;  /* the offset layout's loop reads the windows' sums before the state */
    fg_mve_gemm_state *st = &with_sums.gemm;
    fg_mve_begin_row_terms(&with_sums);
    fg_mve_gemm_begin_layout(st, depth, out_c, packed, (uint32_t)out_c, layout.step_words);
    const int32_t pixels = fg_columns_scatter_pixels(in_c, column);  /* few channels: the band's rows scattered */
    uint8_t offsets[16] = {0};
    fg_columns_scatter_offsets(offsets, in_c, column, pixels);
    fg_mve_fill_s8(band, (int8_t)-p->requant.input_offset, width * column);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy, output += p->out_w * out_c) {
            fg_columns_band(p, image, oy * p->stride_h - p->pad_top, width, band, offsets, pixels);
            if (layout.sums) {
                fg_columns_sums_of_row(&sums, band, width, column);
            }
            const int8_t *x = band;
            int8_t *out = output;
            int32_t ox = 0;
            if (!layout.sums && p->out_w >= 2) {  /* every pair of the row in one call */
                st->x0 = band;
                st->x1 = band + pixel_step;
                st->pairs_after = (p->out_w >> 1) - 1;
                st->pair_advance = 2 * pixel_step;
                fg_mve_gemm_set_out(st, output);
                fg_mve_pairs_s4(st, packed, &clamp, shifts_left);
                ox = p->out_w & ~1;
                x += ox * pixel_step;
                out += ox * out_c;
            }
            for (; ox + 1 < p->out_w; ox += 2, x += 2 * pixel_step, out += 2 * out_c) {
                st->x0 = x;
                st->x1 = x + pixel_step;
                if (layout.sums) {
                    const int32_t first = ox * p->stride_w;
                    fg_mve_set_row_sum(&with_sums, 0, fg_columns_window_sum(&sums, band, first, p->filter_w, column));
                    fg_mve_set_row_sum(&with_sums, 1, fg_columns_window_sum(&sums, band, first + p->stride_w,
                                                                            p->filter_w, column));
                }
                fg_mve_gemm_set_out(st, out);
                layout.blocks2(st, packed, &clamp, shifts_left);
            }
            if (p->out_w & 1) {
                layout.gemm(x, 0, depth, out_c, packed, &p->requant, shifts_left, out, 0);
            }
        }
    }
}

void fg_conv2d_columns_s4_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_columns_s4(p, input, output, FG_MVE_GEMM_S4);
}

void fg_conv2d_columns_s4_offset_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                     int8_t *output) {
    (void)filter;
    fg_columns_s4(p, input, output, FG_MVE_GEMM_S4_OFFSET);
}

#endif /* __ARM_FEATURE_MVE */
