/* The 4-bit window of the Armv7-M CONV_2D and FULLY_CONNECTED variants (conv2d_s4_armv7m.c, fully_connected_s4_armv7m.c;
 * firmware_gen/ops/variants/armv7m_4bit.py lays the weights out).
 *
 * Eight output channels per pass, one tap's eight weights in one word: nibble i holds channel i's weight + 8 (0..15).
 * Masked with 0x000F000F after a shift of 4k, the word is two 16-bit lanes (channels k and k + 4), so one MLA by the
 * input adds both products: 4 AND (shifted operand) + 4 MLA + 2 loads per 8 products. A lane's sum of 16 taps stays
 * within int16 (|x (w + 8)| <= 1920), so every 16 taps the lanes are split (SXTH) into the channels' int32 sums; the
 * 8 sum x the bias took off. */
#include "fg/support/hot_loop.h"
#include "fg/support/weights_s4.h"

#define FG_S4_LANE_TAPS 16
#define FG_S4_GROUP 8

#if defined(__arm__) && defined(__thumb2__)
/* One tap into the four lane sums: the word's lanes by AND with the mask register and a shifted operand (GCC makes
 * two instructions of each), one MLA each. */
#define FG_S4_LANES_TAP                                \
    "ldr %[word], [%[w]], #4\n\t"                      \
    "ldrsb %[v], [%[x]], #1\n\t"                       \
    "and %[t], %[mask], %[word]\n\t"                   \
    "mla %[a0], %[v], %[t], %[a0]\n\t"                 \
    "and %[t], %[mask], %[word], lsr #4\n\t"           \
    "mla %[a1], %[v], %[t], %[a1]\n\t"                 \
    "and %[t], %[mask], %[word], lsr #8\n\t"           \
    "mla %[a2], %[v], %[t], %[a2]\n\t"                 \
    "and %[t], %[mask], %[word], lsr #12\n\t"          \
    "mla %[a3], %[v], %[t], %[a3]\n\t"
#endif

/* sums[k] += sum_{i < n} x[i] * nibble k of w[i], k < 8 (0 < n <= FG_S4_LANE_TAPS). */
__attribute__((always_inline)) static inline void fg_s4_lanes(const int8_t *x, const uint32_t *w, int32_t n,
                                                              uint32_t sums[FG_S4_GROUP]) {
    const uint32_t lanes = 0x000F000Fu;
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#if defined(__arm__) && defined(__thumb2__)
    const int8_t *const end = x + n;
    uint32_t word, t;
    int32_t v;
    __asm__("tst %[n], #1\n\t"
            "beq 2f\n\t"
            FG_S4_LANES_TAP
            "cmp %[x], %[end]\n\t"
            "beq 3f\n\t"
            "2:\n\t"
            FG_S4_LANES_TAP FG_S4_LANES_TAP
            "cmp %[x], %[end]\n\t"
            "bne 2b\n\t"
            "3:\n\t"
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w] "+r"(w),
              [word] "=&r"(word), [t] "=&r"(t), [v] "=&r"(v)
            : [mask] "r"(lanes), [end] "r"(end), [n] "r"(n)
            : "cc", "memory");
#else
    for (int32_t i = 0; i < n; ++i) {
        const uint32_t word = w[i], v = (uint32_t)(int32_t)x[i];
        a0 += v * (word & lanes);
        a1 += v * ((word >> 4) & lanes);
        a2 += v * ((word >> 8) & lanes);
        a3 += v * ((word >> 12) & lanes);
    }
#endif
    const int32_t l0 = (int16_t)a0, l1 = (int16_t)a1, l2 = (int16_t)a2, l3 = (int16_t)a3;
    sums[0] += (uint32_t)l0;
    sums[1] += (uint32_t)l1;
    sums[2] += (uint32_t)l2;
    sums[3] += (uint32_t)l3;
    sums[4] += (uint32_t)((int32_t)(a0 - (uint32_t)l0) >> 16);
    sums[5] += (uint32_t)((int32_t)(a1 - (uint32_t)l1) >> 16);
    sums[6] += (uint32_t)((int32_t)(a2 - (uint32_t)l2) >> 16);
    sums[7] += (uint32_t)((int32_t)(a3 - (uint32_t)l3) >> 16);
}

FG_HOT_LOOP void fg_s4_window_armv7m(const int8_t *x, int32_t taps, const void *packed, int32_t out_c,
                                     const int32_t *bias, const fg_requant_params *q, int8_t *output) {
    const uint32_t *w = packed;
    int32_t sum = 0;
    for (int32_t i = 0; i < taps; ++i) {
        sum += x[i];
    }
    const uint32_t unbiased = (uint32_t)sum * 0xFFFFFFF8u;  /* - 8 sum x: the nibbles are w + 8 */
    for (int32_t first = 0; first < out_c; first += FG_S4_GROUP, w += taps) {
        const int32_t count = out_c - first < FG_S4_GROUP ? out_c - first : FG_S4_GROUP;
        uint32_t sums[FG_S4_GROUP];
        for (int32_t j = 0; j < FG_S4_GROUP; ++j) {
            sums[j] = unbiased + (uint32_t)(j < count ? bias[first + j] : 0);
        }
        for (int32_t i = 0; i < taps; i += FG_S4_LANE_TAPS) {
            fg_s4_lanes(x + i, w + i, taps - i < FG_S4_LANE_TAPS ? taps - i : FG_S4_LANE_TAPS, sums);
        }
        fg_requantize_run_s8(q, sums, first, count, output + first);
    }
}
