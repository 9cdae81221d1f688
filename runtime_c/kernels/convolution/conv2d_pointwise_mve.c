#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* Pixels in pairs. With the output overlapping the input as the planner allows (ops/overlap.py: output pixel p may
 * clobber input bytes below pixel p), the stores of output pixel p + 1 may land on input pixel p, which later blocks
 * of channels still read: that pixel is copied to the stack first; so is pixel p + 1 when the GEMM would read past
 * its end (in_c not a multiple of 16). */
__attribute__((always_inline)) static inline void fg_mve_pointwise(const fg_conv2d_params *p, const int8_t *input,
                                                                   int8_t *output, fg_mve_gemm_layout layout) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const fg_requant_params requant = p->requant;
    const int shifts_left = fg_mve_any_left_shift(&requant, out_c);
    const int32_t *packed = (const int32_t *)p->packed;
    int8_t rows[2][FG_MVE_ROW_MAX];
    const int copy_second = (in_c & 15) != 0;
    const fg_mve_clamp clamp = fg_mve_make_clamp(&requant);
    fg_mve_gemm_state plain;  /* the pairs' full blocks straight to the assembly loop, set up once */
    fg_mve_gemm_state_s4 with_sums;  /* the same, and the pixels' sums, for a layout that wants them */
    fg_mve_gemm_state *st = layout.sums ? &with_sums.gemm : &plain;
    if (layout.sums) {
        fg_mve_begin_row_terms(&with_sums);
    }
    const int32_t full = fg_mve_gemm_begin_layout(st, in_c, out_c, packed, (uint32_t)out_c, layout.step_words);
    const int32_t *rest = packed + fg_mve_block_words(in_c, layout.step_words) * (out_c >> 2);
    int32_t i = 0;
    if (layout.gemm == fg_mve_gemm_s8 && in_c <= 64 && (out_c & 3) == 0 && pixels >= 2) {  /* rows in registers */
        i = pixels & ~1;
        fg_mve_resident_pairs(input, pixels >> 1, in_c, out_c, packed, &clamp, shifts_left, output);
    }
    for (; i + 1 < pixels; i += 2) {
        const int8_t *second = input + (i + 1) * in_c;
        if (layout.sums) {  /* the layout wants the pixels' sums: taken as they are copied */
            int32_t sums[2];
            if (copy_second) {
                sums[0] = fg_mve_copy_sum_s8(rows[0], input + i * in_c, in_c);
                sums[1] = fg_mve_copy_sum_s8(rows[1], second, in_c);
            } else {
                fg_mve_copy_sum2_s8(rows[0], input + i * in_c, second, in_c, sums);
            }
            fg_mve_set_row_sum(&with_sums, 0, sums[0]);
            fg_mve_set_row_sum(&with_sums, 1, sums[1]);
        } else {
            fg_mve_copy_s8(rows[0], input + i * in_c, in_c);
            if (copy_second) {
                fg_mve_copy_s8(rows[1], second, in_c);
            }
        }
        second = copy_second ? rows[1] : second;
        int8_t *out = output + i * out_c;
        if (full) {
            st->x0 = rows[0];
            st->x1 = second;
            fg_mve_gemm_set_out(st, out);
            layout.blocks2(st, packed, &clamp, shifts_left);
        }
        if (full < out_c) {
            layout.gemm(rows[0], second, in_c, out_c - full, rest, &requant, shifts_left, out + full,
                        out + out_c + full);
        }
    }
    if (i < pixels) {
        layout.gemm(input + i * in_c, 0, in_c, out_c, packed, &requant, shifts_left, output + i * out_c, 0);
    }
}

void fg_conv2d_pointwise_s8_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                int8_t *output) {
    (void)filter;
    fg_mve_pointwise(p, input, output, FG_MVE_GEMM_S8);
}

void fg_conv2d_pointwise_s4_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                int8_t *output) {
    (void)filter;
    fg_mve_pointwise(p, input, output, FG_MVE_GEMM_S4);
}

/* Rows that fit in registers (in_c <= 64: mve_4bit.py's RESIDENT_MAX, out_c a multiple of four, two pixels or more)
 * as the int8 layout's: the pairs through fg_mve_resident_pairs_s4, a last lone pixel through the GEMM. Its own
 * function, so that fg_mve_pointwise's registers stay as they were for the other layers. */
__attribute__((noinline)) static void fg_pointwise_resident_s4(const fg_conv2d_params *p, const int8_t *input,
                                                               int8_t *output, int32_t pixels) {
    const int32_t in_c = p->in_c, out_c = p->out_c;
    const int shifts_left = fg_mve_any_left_shift(&p->requant, out_c);
    const fg_mve_clamp clamp = fg_mve_make_clamp(&p->requant);
    const int32_t *packed = (const int32_t *)p->packed;
    fg_mve_resident_pairs_s4(input, pixels >> 1, in_c, out_c, packed, &clamp, shifts_left, output);
    if (pixels & 1) {
        const int32_t last = pixels - 1;
        fg_mve_gemm_s4(input + last * in_c, 0, in_c, out_c, packed, &p->requant, shifts_left, output + last * out_c, 0);
    }
}

void fg_conv2d_pointwise_s4_offset_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                       int8_t *output) {
    (void)filter;
    const int32_t pixels = p->batches * p->out_h * p->out_w;
    if (p->in_c <= 64 && (p->out_c & 3) == 0 && pixels >= 2) {
        fg_pointwise_resident_s4(p, input, output, pixels);
    } else {
        fg_mve_pointwise(p, input, output, FG_MVE_GEMM_S4_OFFSET);
    }
}

#endif /* __ARM_FEATURE_MVE */
