/* The 4-bit window of the DSP CONV_2D and FULLY_CONNECTED variants (fg/variants_dsp.h; firmware_gen/ops/variants/
 * dsp_4bit.py lays the weights out). The window is sign-extended into int16 input pairs once (fg_dsp_extend); a weight
 * word holds eight taps of one channel as w + 8 (0..15), and each of its four lanes (the word shifted by 4k and
 * masked with 0x000F000F: two taps as int16 halves) meets its input pair in one SMLAD, two channels per pass: 2 LDRD
 * of inputs, 2 LDR, 8 AND (shifted operand), 8 SMLAD per 16 products. The bias takes 8 sum x off; the output stage is
 * the int8 variants' (fg_dsp_channel, SMMULR). */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp.h"
#include "fg/support/hot_loop.h"

#define FG_S4_DSP_BLOCK FG_CONV_GATHER_TAPS  /* taps extended at a time (a multiple of 8) */

/* acc[0] += x . row a, acc[1] += x . row b, over `words` words (8 taps each) of the rows and 4 words of x each. */
__attribute__((always_inline)) static inline void fg_dsp_dot2_s4(const uint32_t *x, const uint32_t *a,
                                                                 const uint32_t *b, int32_t words, uint32_t lanes,
                                                                 uint32_t acc[2]) {
    int32_t sa = (int32_t)acc[0], sb = (int32_t)acc[1];
    for (int32_t q = 0; q < words; ++q, x += 4) {
        const uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], wa = a[q], wb = b[q];
        sa = __smlad(x0, wa & lanes, sa);
        sb = __smlad(x0, wb & lanes, sb);
        sa = __smlad(x1, (wa >> 4) & lanes, sa);
        sb = __smlad(x1, (wb >> 4) & lanes, sb);
        sa = __smlad(x2, (wa >> 8) & lanes, sa);
        sb = __smlad(x2, (wb >> 8) & lanes, sb);
        sa = __smlad(x3, (wa >> 12) & lanes, sa);
        sb = __smlad(x3, (wb >> 12) & lanes, sb);
    }
    acc[0] = (uint32_t)sa;
    acc[1] = (uint32_t)sb;
}

/* The same for two pixels' pairs x0 and x1: acc[0..1] pixel 0's, acc[2..3] pixel 1's; each lane of the weights made
 * once for both (34 instructions per 32 products). */
__attribute__((always_inline)) static inline void fg_dsp_dot2x2_s4(const uint32_t *x0, const uint32_t *x1,
                                                                   const uint32_t *a, const uint32_t *b,
                                                                   int32_t words, uint32_t lanes, uint32_t acc[4]) {
    int32_t a0 = (int32_t)acc[0], b0 = (int32_t)acc[1], a1 = (int32_t)acc[2], b1 = (int32_t)acc[3];
#define FG_DSP_LANE2X2(k)                                                                                    \
    do {                                                                                                     \
        const uint32_t la = (wa >> (4 * (k))) & lanes, lb = (wb >> (4 * (k))) & lanes, p0 = x0[k], p1 = x1[k]; \
        a0 = __smlad(p0, la, a0);                                                                            \
        b0 = __smlad(p0, lb, b0);                                                                            \
        a1 = __smlad(p1, la, a1);                                                                            \
        b1 = __smlad(p1, lb, b1);                                                                            \
    } while (0)
    for (int32_t q = 0; q < words; ++q, x0 += 4, x1 += 4) {
        const uint32_t wa = a[q], wb = b[q];
        FG_DSP_LANE2X2(0);
        FG_DSP_LANE2X2(1);
        FG_DSP_LANE2X2(2);
        FG_DSP_LANE2X2(3);
    }
#undef FG_DSP_LANE2X2
    acc[0] = (uint32_t)a0;
    acc[1] = (uint32_t)b0;
    acc[2] = (uint32_t)a1;
    acc[3] = (uint32_t)b1;
}

/* - 8 sum x[i], i < taps: the nibbles are w + 8. */
static inline uint32_t fg_dsp_unbiased_s4(const int8_t *x, int32_t taps) {
    int32_t sum = 0;
    for (int32_t i = 0; i < taps; ++i) {
        sum += x[i];
    }
    return (uint32_t)sum * 0xFFFFFFF8u;
}

/* The outputs of channels ch[0 .. count) from their sums. */
static inline void fg_dsp_outputs_s4(const uint32_t *acc, const fg_dsp_channel *ch, int32_t count,
                                     const fg_requant_params *q, int8_t *output) {
    const int32_t low = q->activation_min, high = q->activation_max;
    const int full = low == -128 && high == 127;
    for (int32_t j = 0; j < count; ++j) {
        output[j] = fg_dsp_requantize(acc[j], ch + j, ch[j].shift == FG_DSP_WIDE, full, low, high, q->output_offset);
    }
}

/* A mask GCC keeps in a register, so that it folds each shift into its AND. */
static inline uint32_t fg_dsp_lanes_s4(void) {
    uint32_t lanes = 0x000F000Fu;
    __asm__("" : "+r"(lanes));
    return lanes;
}

FG_HOT_LOOP void fg_s4_window_dsp(const int8_t *x, int32_t taps, const void *packed, int32_t out_c,
                                  const int32_t *bias, const fg_requant_params *q, int8_t *output) {
    const fg_dsp_channel *ch = packed;
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    const int32_t words = (taps + 7) >> 3;
    const uint32_t lanes = fg_dsp_lanes_s4(), unbiased = fg_dsp_unbiased_s4(x, taps);
    uint32_t pairs[FG_S4_DSP_BLOCK / 2];
    (void)bias;
    for (int32_t chunk = 0; chunk < out_c; chunk += FG_REQUANT_CHUNK) {
        const int32_t count = out_c - chunk < FG_REQUANT_CHUNK ? out_c - chunk : FG_REQUANT_CHUNK;
        uint32_t acc[FG_REQUANT_CHUNK];
        for (int32_t j = 0; j < FG_REQUANT_CHUNK; ++j) {
            acc[j] = unbiased + (uint32_t)(j < count ? ch[chunk + j].bias : 0);
        }
        for (int32_t start = 0; start < taps; start += FG_S4_DSP_BLOCK) {
            const int32_t n = taps - start < FG_S4_DSP_BLOCK ? taps - start : FG_S4_DSP_BLOCK;
            const int32_t block_words = (n + 7) >> 3;
            fg_dsp_extend(x + start, n, 4 * block_words, pairs, 1);
            for (int32_t j = 0; j < count; j += 2) {  /* an odd last channel twice, into a spare sum */
                const uint32_t *a = w + (chunk + j) * words + start / 8;
                fg_dsp_dot2_s4(pairs, a, j + 1 < count ? a + words : a, block_words, lanes, acc + j);
            }
        }
        fg_dsp_outputs_s4(acc, ch + chunk, count, q, output + chunk);
    }
}

FG_HOT_LOOP void fg_s4_windows2_dsp(const int8_t *x0, const int8_t *x1, int32_t taps, const void *packed,
                                    int32_t out_c, const fg_requant_params *q, int8_t *out0, int8_t *out1) {
    const fg_dsp_channel *ch = packed;
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    const int32_t words = (taps + 7) >> 3;
    const uint32_t lanes = fg_dsp_lanes_s4(), unbiased0 = fg_dsp_unbiased_s4(x0, taps);
    const uint32_t unbiased1 = fg_dsp_unbiased_s4(x1, taps);
    uint32_t pairs[2][FG_S4_DSP_BLOCK / 2];
    fg_dsp_extend(x0, taps, 4 * words, pairs[0], 1);  /* both windows read before either pixel is stored */
    fg_dsp_extend(x1, taps, 4 * words, pairs[1], 1);
    for (int32_t chunk = 0; chunk < out_c; chunk += FG_REQUANT_CHUNK) {
        const int32_t count = out_c - chunk < FG_REQUANT_CHUNK ? out_c - chunk : FG_REQUANT_CHUNK;
        uint32_t acc[2][FG_REQUANT_CHUNK];
        for (int32_t j = 0; j < count; j += 2) {
            const uint32_t *a = w + (chunk + j) * words;
            const int32_t bias_a = ch[chunk + j].bias, bias_b = j + 1 < count ? ch[chunk + j + 1].bias : 0;
            uint32_t sums[4] = {unbiased0 + (uint32_t)bias_a, unbiased0 + (uint32_t)bias_b,
                                unbiased1 + (uint32_t)bias_a, unbiased1 + (uint32_t)bias_b};
            fg_dsp_dot2x2_s4(pairs[0], pairs[1], a, j + 1 < count ? a + words : a, words, lanes, sums);
            acc[0][j] = sums[0], acc[0][j + 1] = sums[1], acc[1][j] = sums[2], acc[1][j + 1] = sums[3];
        }
        fg_dsp_outputs_s4(acc[0], ch + chunk, count, q, out0 + chunk);
        fg_dsp_outputs_s4(acc[1], ch + chunk, count, q, out1 + chunk);
    }
}

#endif /* __ARM_FEATURE_DSP */
