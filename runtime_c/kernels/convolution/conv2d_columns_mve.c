#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

#include "fg/isa/mve_columns.h"

/* A convolution without dilation across (its weights in the GEMM layout with each window's taps column by column:
 * ops/variants/mve.py), row by row: the output row's column band (on the stack, no window copied: consecutive windows
 * start stride_w columns apart), then its pixels in pairs through the GEMM's assembly loop, a last lone one paired
 * with itself (its second outputs to a spare row) or alone. The band is built before the row's outputs are stored, so
 * an output overlapping the input as ops/overlap.py allows changes nothing it reads. */
__attribute__((noinline)) FG_HOT_LOOP static void fg_columns(const fg_conv2d_params *p, const int8_t *input,
                                                             int8_t *output, fg_mve_pairs_loop *pairs) {
    int8_t band[FG_MVE_COLUMN_BAND_MAX + 16];  /* the GEMM reads up to 15 bytes past a window */
    int8_t spare[FG_MVE_COLUMN_SPARE];
    const int32_t in_c = p->in_c, out_c = p->out_c, column = p->filter_h * in_c, depth = p->filter_w * column;
    const int32_t width = (p->out_w - 1) * p->stride_w + p->filter_w, pixel_step = p->stride_w * column;
    const fg_requant_params requant = p->requant;
    const int shifts_left = fg_mve_any_left_shift(&requant, out_c);
    const int32_t *packed = (const int32_t *)p->packed;
    const fg_mve_clamp clamp = fg_mve_make_clamp(&requant);
    fg_mve_gemm_state st;
    const int32_t full = fg_mve_gemm_begin(&st, depth, out_c, packed, (uint32_t)out_c);
    const int32_t *rest = packed + fg_mve_block_words(depth, 16) * (full >> 2);
    const int32_t pixels = fg_columns_scatter_pixels(in_c, column);  /* few channels: the band's rows scattered */
    uint8_t offsets[16] = {0};
    fg_columns_scatter_offsets(offsets, in_c, column, pixels);
    fg_mve_fill_s8(band, (int8_t)-requant.input_offset, width * column);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy, output += p->out_w * out_c) {
            fg_columns_band(p, image, oy * p->stride_h - p->pad_top, width, band, offsets, pixels);
            int32_t ox = 0;
            if (full == out_c && p->out_w >= 2) {  /* every pair of the row in one call */
                st.x0 = band;
                st.x1 = band + pixel_step;
                st.second = (uint32_t)out_c;
                st.pairs_after = (p->out_w >> 1) - 1;
                st.pair_advance = 2 * pixel_step;
                fg_mve_gemm_set_out(&st, output);
                pairs(&st, packed, &clamp, shifts_left);
                ox = p->out_w & ~1;
            }
            for (; ox < p->out_w; ox += 2) {
                const int8_t *x0 = band + ox * pixel_step;
                int8_t *out = output + ox * out_c;
                const int lone = ox + 1 == p->out_w;
                if (lone && out_c > FG_MVE_COLUMN_SPARE) {
                    fg_mve_gemm_s8(x0, 0, depth, out_c, packed, &requant, shifts_left, out, 0);
                    continue;
                }
                int8_t *second = lone ? spare : out + out_c;
                st.x0 = x0;
                st.x1 = lone ? x0 : x0 + pixel_step;
                st.second = (uint32_t)((uintptr_t)second - (uintptr_t)out);
                if (full) {
                    fg_mve_gemm_set_out(&st, out);
                    fg_mve_gemm_blocks2(&st, packed, &clamp, shifts_left);
                }
                if (full < out_c) {
                    fg_mve_gemm_s8(st.x0, st.x1, depth, out_c - full, rest, &requant, shifts_left, out + full,
                                   second + full);
                }
            }
        }
    }
}

void fg_conv2d_columns_s8_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_columns(p, input, output, fg_mve_gemm_blocks2_pairs);
}

/* The entry point running the pairs through LOOP (fg/variants_mve.h). */
#define FG_COLUMNS_ENTRY(NAME, LOOP)                                                                               \
    void NAME(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {              \
        (void)filter;                                                                                              \
        fg_columns(p, input, output, LOOP);                                                                        \
    }
FG_COLUMNS_ENTRY(fg_conv2d_columns_by_one_s8_mve, fg_mve_pairs_by_one)
FG_COLUMNS_ENTRY(fg_conv2d_columns_unpipelined_s8_mve, fg_mve_pairs_unpipelined)
FG_COLUMNS_ENTRY(fg_conv2d_columns_one_s8_mve, fg_mve_pairs_one)
FG_COLUMNS_ENTRY(fg_conv2d_columns_two_s8_mve, fg_mve_pairs_two)
FG_COLUMNS_ENTRY(fg_conv2d_columns_three_s8_mve, fg_mve_pairs_three)
FG_COLUMNS_ENTRY(fg_conv2d_columns_unrolled_s8_mve, fg_mve_pairs_unrolled)
FG_COLUMNS_ENTRY(fg_conv2d_columns_nine_s8_mve, fg_mve_pairs_nine)
FG_COLUMNS_ENTRY(fg_conv2d_columns_spread_s8_mve, fg_mve_pairs_spread)
FG_COLUMNS_ENTRY(fg_conv2d_columns_eighteen_s8_mve, fg_mve_pairs_eighteen)
FG_COLUMNS_ENTRY(fg_conv2d_columns_thirty_six_s8_mve, fg_mve_pairs_thirty_six)

#endif /* __ARM_FEATURE_MVE */
