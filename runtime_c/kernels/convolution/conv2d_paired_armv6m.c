/* CONV_2D on Armv6-M with two outputs per MULS (fg/isa/armv6m.h, runtime_c/kernels/support/pairs_armv6m.c): one
 * output pixel at a time, its window widened to int32 on the stack row by row (the input zero point in the padding),
 * then every pair of output channels; the outputs stored after the window is read (the forward overlap of
 * firmware_gen/ops/overlap.py). */
#include "fg/isa/armv6m.h"
#include "fg/support/hot_loop.h"
#include "fg/variants_armv6m.h"

/* The window of output pixel (oy, ox) into x, row by row; no division (Armv6-M has none). */
static void fg_paired_window(const fg_conv2d_params *p, const int8_t *image, int32_t oy, int32_t ox, int32_t *x) {
    const int32_t in_c = p->in_c, in_w = p->in_w, fw = p->filter_w, run = fw * in_c;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    const int columns_inside = p->dilation_w == 1 && x0 >= 0 && x0 + fw <= in_w;
    const int32_t zero = -p->requant.input_offset;
    for (int32_t fy = 0; fy < p->filter_h; ++fy, x += run) {
        const int32_t y = y0 + fy * p->dilation_h;
        const int row_inside = y >= 0 && y < p->in_h;
        if (row_inside && columns_inside) {
            fg_armv6m_widen(x, image + (y * in_w + x0) * in_c, run, run);
            continue;
        }
        for (int32_t fx = 0, at = x0; fx < fw; ++fx, at += p->dilation_w) {
            if (row_inside && at >= 0 && at < in_w) {
                fg_armv6m_widen(x + fx * in_c, image + (y * in_w + at) * in_c, in_c, in_c);
            } else {
                for (int32_t c = 0; c < in_c; ++c) {
                    x[fx * in_c + c] = zero;
                }
            }
        }
    }
}

FG_HOT_LOOP void fg_conv2d_paired_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                         int8_t *output) {
    (void)filter;
    const int32_t taps = p->filter_h * p->filter_w * p->in_c, padded = (taps + 15) & ~15, out_c = p->out_c;
    const fg_requant_params requant = p->requant;
    int32_t x[padded]; /* its bytes the call's run-time stack (the generator) */
    fg_armv6m_widen(x + taps, 0, 0, padded - taps);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                fg_paired_window(p, image, oy, ox, x);
                fg_armv6m_paired_outputs(x, p->packed, out_c, &requant, output);
            }
        }
    }
}
