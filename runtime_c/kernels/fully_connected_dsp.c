#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/dot_s8.h"
#include "fg/dsp_support.h"

/* acc[0..1] += two channels' int16 weight pairs (wa, wb) . the row's input pairs x, `pairs` of them (even). */
static inline __attribute__((always_inline)) void fg_dsp_dot_2(const uint32_t *x, const uint32_t *wa,
                                                                const uint32_t *wb, int32_t pairs, uint32_t acc[2]) {
    int32_t a = (int32_t)acc[0], b = (int32_t)acc[1];
    for (int32_t g = 0; g < pairs; g += 2) {
        const int16x2_t x0 = (int16x2_t)x[g], x1 = (int16x2_t)x[g + 1];
        a = __smlad(x0, (int16x2_t)wa[g], a);
        b = __smlad(x0, (int16x2_t)wb[g], b);
        a = __smlad(x1, (int16x2_t)wa[g + 1], a);
        b = __smlad(x1, (int16x2_t)wb[g + 1], b);
    }
    acc[0] = (uint32_t)a;
    acc[1] = (uint32_t)b;
}

/* params->packed: fg_dsp_channel[out_depth], then each output's weights pre-extended to int16 input pairs (the
 * depth rounded up to 4, pair order as fg_dsp_extend writes them). */
FG_HOT_LOOP void fg_fully_connected_dsp(const fg_fully_connected_params *p, const int8_t *input,
                                        const int8_t *weights, int8_t *output) {
    (void)weights;
    const int32_t depth = p->accum_depth, out_c = p->out_depth, pairs = ((depth + 3) >> 2) << 1;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_channel *ch = (const fg_dsp_channel *)p->packed;
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    uint32_t x[FG_DSP_FC_MAX_DEPTH / 2];
    for (int32_t b = 0; b < p->batches; ++b, input += depth, output += out_c) {
        fg_dsp_extend(input, depth, pairs, x, 1);
        for (int32_t c = 0; c < out_c; c += 2) {
            const int32_t second = c + 1 < out_c ? c + 1 : c;
            uint32_t acc[2] = {(uint32_t)ch[c].bias, (uint32_t)ch[second].bias};
            fg_dsp_dot_2(x, w + c * pairs, w + second * pairs, pairs, acc);
            fg_dsp_store_channel(acc, ch + c, 1, output + c, 1, &q);
            if (c + 1 < out_c) {
                fg_dsp_store_channel(acc + 1, ch + c + 1, 1, output + c + 1, 1, &q);
            }
        }
    }
}
#endif
