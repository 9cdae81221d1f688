#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"
#include "fg/support/fixedpoint.h"

/* The portable kernel's rescaling of one input value (fg_add_s8). */
static int32_t fg_dsp_add_scaled(int32_t value, int32_t offset, int32_t left_shift, int32_t multiplier,
                                 int32_t shift) {
    return fg_multiply_by_quantized_multiplier_smaller_than_one_exp((value + offset) * (1 << left_shift),
                                                                    multiplier, shift);
}

/* The output stage of one sum of scaled inputs: v = SMMULR(2 sum, multiplier) is TFLite's
 * SaturatingRoundingDoublingHighMul (|2 sum| < 2^30 with 20 bits of headroom), then RoundingDivideByPOT by
 * e = -output_shift as (v + round + (v < 0 ? neg : 0)) >> e, round = 2^(e-1), neg = -1 (both 0 when e = 0). */
static inline __attribute__((always_inline)) int8_t fg_dsp_add_output(int32_t sum, int32_t multiplier,
                                                                     int32_t round, int32_t neg, int32_t e,
                                                                     int32_t zero_point, int full, int32_t low,
                                                                     int32_t high) {
    const int32_t v = fg_dsp_high_mul((uint32_t)sum, multiplier);
    return fg_dsp_clamp(((v + round + ((v >> 31) & neg)) >> e) + zero_point, full, low, high);
}

static inline __attribute__((always_inline)) void fg_dsp_add_loop(const fg_add_params *p, const int32_t *t1,
                                                                   const int32_t *t2, const int8_t *in1,
                                                                   const int8_t *in2, int8_t *out, int32_t n,
                                                                   int full) {
    const int32_t m = p->output_multiplier, e = -p->output_shift, zp = p->output_offset;
    const int32_t round = e > 0 ? 1 << (e - 1) : 0, neg = e > 0 ? -1 : 0;
    const int32_t low = p->activation_min, high = p->activation_max;
#pragma GCC unroll 4
    for (int32_t i = 0; i < n; ++i) {
        out[i] = fg_dsp_add_output(t1[in1[i]] + t2[in2[i]], m, round, neg, e, zp, full, low, high);
    }
}

/* Each input's 256 scaled values tabulated once per call by the portable arithmetic; per element two table
 * reads, the sum, the output stage. The generator checks: no broadcasting, left_shift <= 20, output_shift in
 * [-31, 0]. */
FG_HOT_LOOP void fg_add_dsp(const fg_add_params *p, const int8_t *input1, const int8_t *input2, int8_t *output) {
    int32_t tables[2][256];
    for (int32_t x = -128; x < 128; ++x) {
        tables[0][x + 128] = fg_dsp_add_scaled(x, p->input1_offset, p->left_shift, p->input1_multiplier,
                                               p->input1_shift);
        tables[1][x + 128] = fg_dsp_add_scaled(x, p->input2_offset, p->left_shift, p->input2_multiplier,
                                               p->input2_shift);
    }
    const int32_t n = fg_broadcast_outputs(&p->shape);
    if (p->activation_min == -128 && p->activation_max == 127) {
        fg_dsp_add_loop(p, tables[0] + 128, tables[1] + 128, input1, input2, output, n, 1);
    } else {
        fg_dsp_add_loop(p, tables[0] + 128, tables[1] + 128, input1, input2, output, n, 0);
    }
}
#endif
