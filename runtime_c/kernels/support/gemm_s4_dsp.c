/* The 4-bit tile of the DSP CONV_2D variant (conv2d_s4_dsp.c; firmware_gen/ops/variants/dsp_4bit.py lays the weights
 * out): every output channel of three pixels, a channel pair at a time.
 *
 * A channel pair's weights are its pair bytes b = 16 w_c + (w_c+1 + 8) (pair_4bit.pack_channel_pairs), four depths a
 * word. SXTB16 of the word (and of it rotated by 8) is the int16 pair of bytes that meets fg_dsp_extend's input pair
 * in one SMLAD; masked with 0x000F000F it is the pair of low nibbles u = w_c+1 + 8. So each word feeds, for each of
 * the three pixels, S_b = 16 S_c + S_u and S_u = S_c+1 + 8 X (X the sum of the pixel's inputs): per 4 depths 1 LDR,
 * 2 LDM of the pixels' input pairs, 2 SXTB16, 2 AND and 12 SMLAD for 24 products. Then S_c = (S_b - S_u) >> 4 and
 * S_c+1 = S_u - 8 X, exact; the output stage is the int8 variants' (fg_dsp_channel, SMMULR). */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp.h"

/* acc[p] += S_b of pixel p, acc[3 + p] += S_u (p < 3) over `blocks` x 8 depths: x the input pairs (x[3 g + p]), w the
 * pair's words. blocks >= 1. */
static __attribute__((noinline)) void fg_s4_tile_dsp(const uint32_t *x, const uint32_t *w, int32_t blocks,
                                                     uint32_t acc[6]) {
    register const uint32_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    register int32_t rn __asm__("r2") = blocks;
    register uint32_t *racc __asm__("r3") = acc;
#define FG_S4_DSP_HALF(EXTEND)               \
    "ldm %[x]!, {r10, r11, r12}\n\t"         \
    EXTEND                                   \
    "smlad r4, r10, r3, r4\n\t"              \
    "smlad r5, r11, r3, r5\n\t"              \
    "smlad r6, r12, r3, r6\n\t"              \
    "and r3, r3, #0x000F000F\n\t"            \
    "smlad r7, r10, r3, r7\n\t"              \
    "smlad r8, r11, r3, r8\n\t"              \
    "smlad r9, r12, r3, r9\n\t"
#define FG_S4_DSP_WORD                                  \
    "ldr lr, [%[w]], #4\n\t"                            \
    FG_S4_DSP_HALF("sxtb16 r3, lr\n\t")                 \
    FG_S4_DSP_HALF("sxtb16 r3, lr, ror #8\n\t")
    __asm__ volatile(
        "push {%[acc]}\n\t"
        "ldm %[acc], {r4-r9}\n"
        "1:\n\t"
        FG_S4_DSP_WORD FG_S4_DSP_WORD
        "subs %[n], %[n], #1\n\t"
        "bne 1b\n\t"
        "pop {%[acc]}\n\t"
        "stm %[acc], {r4-r9}\n\t"
        : [x] "+r"(rx), [w] "+r"(rw), [n] "+r"(rn), [acc] "+r"(racc)
        :
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory");
#undef FG_S4_DSP_WORD
#undef FG_S4_DSP_HALF
}

/* The outputs of channel k for the pixels' sums (before its bias): the narrow output stage with the channel's
 * constants loaded once, or, for a wide channel, TFLite's. */
static inline __attribute__((always_inline)) void fg_s4_dsp_store(const uint32_t sums[3], const fg_dsp_channel *k,
                                                                  int32_t pixels, int8_t *out, int32_t stride,
                                                                  const fg_requant_params *q, int full) {
    const fg_dsp_channel c = *k;  /* a local copy: the int8 stores may alias the table */
    const int32_t low = q->activation_min, high = q->activation_max;
    if (c.shift == FG_DSP_WIDE) {
        for (int32_t p = 0; p < pixels; ++p) {
            out[p * stride] = fg_dsp_requantize(sums[p] + (uint32_t)c.bias, &c, 1, 0, low, high, q->output_offset);
        }
        return;
    }
    for (int32_t p = 0; p < pixels; ++p) {
        const int32_t t = fg_dsp_narrow(sums[p] + (uint32_t)c.bias, c.multiplier, c.offset, c.shift);
        out[p * stride] = fg_dsp_clamp(t, full, low, high);
    }
}

FG_HOT_LOOP void fg_s4_gemm3_dsp(const uint32_t *x, const int32_t sum_x[3], int32_t pairs, const void *packed,
                                 int32_t out_c, int32_t pixels, int8_t *output, const fg_requant_params *q) {
    const fg_dsp_channel *ch = packed;
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    const int full = q->activation_min == -128 && q->activation_max == 127;
    const int32_t words = pairs >> 1;  /* four depths a word */
    const uint32_t start[3] = {(uint32_t)sum_x[0] * 0xFFFFFFF8u, (uint32_t)sum_x[1] * 0xFFFFFFF8u,
                               (uint32_t)sum_x[2] * 0xFFFFFFF8u};  /* - 8 X: S_b - S_u keeps none of it */
    for (int32_t c = 0; c < out_c; c += 2, w += words) {
        uint32_t acc[6] = {start[0], start[1], start[2], start[0], start[1], start[2]};
        fg_s4_tile_dsp(x, w, pairs >> 2, acc);
        for (int32_t p = 0; p < 3; ++p) {
            acc[p] = (uint32_t)((int32_t)(acc[p] - acc[3 + p]) >> 4);
        }
        fg_s4_dsp_store(acc, ch + c, pixels, output + c, out_c, q, full);
        if (c + 1 < out_c) {
            fg_s4_dsp_store(acc + 3, ch + c + 1, pixels, output + c + 1, out_c, q, full);
        }
    }
}
#endif
