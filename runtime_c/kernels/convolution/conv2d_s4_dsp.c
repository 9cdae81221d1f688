/* CONV_2D with 4-bit weights on the DSP extension: output pixels three at a time, raster order, their windows as runs
 * of taps (gathered at the border) sign-extended into input pairs (fg_dsp_extend) for fg_s4_gemm3_dsp; a short last
 * block repeats its first pixel (computed, not stored). params->packed: the weights as fg_s4_gemm3_dsp reads them. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>

#include "fg/isa/dsp.h"
#include "fg/support/window_run.h"

/* sum_{i < n} x[i]: a word at a time by USADA8 on x + 128. */
static int32_t fg_s4_sum_dsp(const int8_t *x, int32_t n) {
    uint32_t total = 0;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t v;
        __builtin_memcpy(&v, x + i, sizeof v);
        total = __usada8(v ^ 0x80808080u, 0, total);
    }
    int32_t sum = (int32_t)total - 128 * i;
    for (; i < n; ++i) {
        sum += x[i];
    }
    return sum;
}

FG_HOT_LOOP void fg_conv2d_s4_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                  int8_t *output) {
    const int32_t out_c = p->out_c, taps = p->filter_h * p->filter_w * p->in_c, pairs = ((taps + 7) >> 3) << 2;
    const int32_t per_image = p->out_h * p->out_w, in_bytes = p->in_h * p->in_w * p->in_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[FG_CONV_GATHER_TAPS] __attribute__((aligned(4)));
    uint32_t x[3 * (FG_CONV_GATHER_TAPS / 2)];
    (void)filter;
    for (int32_t b = 0; b < p->batches; ++b, output += per_image * out_c) {
        const int8_t *image = input + b * in_bytes;
        for (int32_t i = 0; i < per_image; i += 3) {
            const int32_t n = per_image - i < 3 ? per_image - i : 3;
            int32_t sum_x[3];
            for (int32_t px = 0; px < 3; ++px) {
                const int32_t pixel = i + (px < n ? px : 0);
                const int8_t *window = fg_conv_window_run(p, image, pixel / p->out_w, pixel % p->out_w, gathered);
                fg_dsp_extend(window, taps, pairs, x + px, 3);
                sum_x[px] = fg_s4_sum_dsp(window, taps);
            }
            fg_s4_gemm3_dsp(x, sum_x, pairs, p->packed, out_c, n, output + i * out_c, &requant);
        }
    }
}
#endif
