#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"
#include "fg/support/fixedpoint.h"

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

/* The clamp [zero point, 127] (a ReLU): tables of doubled scaled values, v + round by SMMLAR, and no rounding
 * correction of negative values (they clamp to the zero point either way): USAT to [0, 255] before the zero point,
 * SSAT after it. */
static inline __attribute__((always_inline)) void fg_dsp_add_relu_loop(const fg_add_params *p, const int32_t *t1,
                                                                        const int32_t *t2, const int8_t *in1,
                                                                        const int8_t *in2, int8_t *out, int32_t n) {
    const int32_t m = p->output_multiplier, e = -p->output_shift, zp = p->output_offset;
    const int32_t round = e > 0 ? 1 << (e - 1) : 0;
#pragma GCC unroll 4
    for (int32_t i = 0; i < n; ++i) {
        int32_t v;
        __asm__("smmlar %0, %1, %2, %3" : "=r"(v) : "r"(t1[in1[i]] + t2[in2[i]]), "r"(m), "r"(round));
        out[i] = (int8_t)__ssat((int32_t)__usat(v >> e, 8) + zp, 8);
    }
}

/* The ReLU loop when the output zero point is -128 too: the output is USAT's [0, 255] less 128, SSAT's [-128, 127] of
 * the shifted value less 128, which `round` takes in already as 128 << e less (exact: a multiple of 2^e; FG_ADD_RELU_128
 * _MOST_SHIFT keeps it and the sum within 32 bits). Two elements at a time, their four loads before the two table
 * reads that use them (each load then one cycle after the load before it on the M4 and M33), four elements a pass;
 * per element 2 LDRSB, 2 LDR, ADD, SMMLAR, ASR, SSAT, STRB. */
#define FG_ADD_RELU_128_MOST_SHIFT 23
#define FG_DSP_ADD_TWO(in1_a, in2_a, in1_b, in2_b, out_a, out_b)  \
    "ldrsb r4, " in1_a "\n\t"                                     \
    "ldrsb r5, " in2_a "\n\t"                                     \
    "ldrsb r6, " in1_b "\n\t"                                     \
    "ldrsb r7, " in2_b "\n\t"                                     \
    "ldr r4, [%[t1], r4, lsl #2]\n\t"                            \
    "ldr r5, [%[t2], r5, lsl #2]\n\t"                            \
    "ldr r6, [%[t1], r6, lsl #2]\n\t"                            \
    "ldr r7, [%[t2], r7, lsl #2]\n\t"                            \
    "add r4, r4, r5\n\t"                                         \
    "add r6, r6, r7\n\t"                                         \
    "smmlar r4, r4, %[m], %[round]\n\t"                          \
    "smmlar r6, r6, %[m], %[round]\n\t"                          \
    "asr r4, r4, %[e]\n\t"                                       \
    "asr r6, r6, %[e]\n\t"                                       \
    "ssat r4, #8, r4\n\t"                                        \
    "ssat r6, #8, r6\n\t"                                        \
    "strb r4, " out_a "\n\t"                                     \
    "strb r6, " out_b "\n\t"
/* Elements k and k + 1 of four, the pointers already past them (the first element's post-increments). */
#define FG_DSP_ADD_NEXT_TWO(k, l)                                                                   \
    FG_DSP_ADD_TWO("[%[in1], #" #k " - 4]", "[%[in2], #" #k " - 4]", "[%[in1], #" #l " - 4]",       \
                   "[%[in2], #" #l " - 4]", "[%[out], #" #k " - 4]", "[%[out], #" #l " - 4]")
static void fg_dsp_add_relu_128(const int32_t *t1, const int32_t *t2, const int8_t *in1, const int8_t *in2,
                                int8_t *out, int32_t quads, int32_t m, int32_t e) {
    const int32_t round = (e > 0 ? 1 << (e - 1) : 0) - (128 << e);
    __asm__ volatile(
        "1:\n\t"
        FG_DSP_ADD_TWO("[%[in1]], #4", "[%[in2]], #4", "[%[in1], #-3]", "[%[in2], #-3]", "[%[out]], #4",
                       "[%[out], #-3]")
        FG_DSP_ADD_NEXT_TWO(2, 3)
        "subs %[quads], %[quads], #1\n\t"
        "bne 1b\n\t"
        : [in1] "+r"(in1), [in2] "+r"(in2), [out] "+r"(out), [quads] "+r"(quads)
        : [t1] "r"(t1), [t2] "r"(t2), [m] "r"(m), [round] "r"(round), [e] "r"(e)
        : "r4", "r5", "r6", "r7", "cc", "memory");
}
#undef FG_DSP_ADD_NEXT_TWO
#undef FG_DSP_ADD_TWO

/* Each input's 256 scaled values tabulated once per call as the portable kernel rescales (doubled for the ReLU loop);
 * per element two table reads, the sum, the output stage. The generator checks: no broadcasting, left_shift <= 20,
 * output_shift in [-31, 0]. */
FG_HOT_LOOP void fg_add_dsp(const fg_add_params *p, const int8_t *input1, const int8_t *input2, int8_t *output) {
    const int relu = p->activation_min == p->output_offset && p->activation_max == 127;
    int32_t tables[2][256];
    const fg_add_inputs inputs = fg_add_inputs_of(p);  /* one 64-bit rounding per value, exact for int8 inputs */
    for (int32_t x = -128; x < 128; ++x) {
        const fg_add_pair scaled = fg_add_rescale_pair(&inputs, x, x);
        tables[0][x + 128] = scaled.first << relu;
        tables[1][x + 128] = scaled.second << relu;
    }
    const int32_t n = fg_broadcast_outputs(&p->shape);
    if (relu && p->output_offset == -128 && n >= 4 && -p->output_shift <= FG_ADD_RELU_128_MOST_SHIFT) {
        const int32_t done = n & ~3;
        fg_dsp_add_relu_128(tables[0] + 128, tables[1] + 128, input1, input2, output, n >> 2, p->output_multiplier,
                            -p->output_shift);
        fg_dsp_add_relu_loop(p, tables[0] + 128, tables[1] + 128, input1 + done, input2 + done, output + done,
                             n - done);
    } else if (relu) {
        fg_dsp_add_relu_loop(p, tables[0] + 128, tables[1] + 128, input1, input2, output, n);
    } else if (p->activation_min == -128 && p->activation_max == 127) {
        fg_dsp_add_loop(p, tables[0] + 128, tables[1] + 128, input1, input2, output, n, 1);
    } else {
        fg_dsp_add_loop(p, tables[0] + 128, tables[1] + 128, input1, input2, output, n, 0);
    }
}
#endif
