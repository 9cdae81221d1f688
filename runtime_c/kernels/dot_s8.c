#include <string.h>

#include "fg/dot_s8.h"

#if defined(__ARM_FEATURE_DSP)
/* Bytes 0 and 2 (even) or 1 and 3 (odd) of a word, sign-extended into its two halfwords (SXTB16). */
static inline uint32_t fg_even_s8x2(uint32_t v) {
    uint32_t r;
    __asm__("sxtb16 %0, %1" : "=r"(r) : "r"(v));
    return r;
}

static inline uint32_t fg_odd_s8x2(uint32_t v) {
    uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
}

/* acc + the products of the four bytes of x and w (two SMLADs, each adding two halfword products). */
static inline uint32_t fg_mac_s8x4(uint32_t acc, uint32_t x_even, uint32_t x_odd, uint32_t w) {
    __asm__("smlad %0, %1, %2, %0" : "+r"(acc) : "r"(x_even), "r"(fg_even_s8x2(w)));
    __asm__("smlad %0, %1, %2, %0" : "+r"(acc) : "r"(x_odd), "r"(fg_odd_s8x2(w)));
    return acc;
}

static inline uint32_t fg_load_u32(const int8_t *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);  /* Armv7-M and later load unaligned words */
    return v;
}
#endif

FG_HOT_LOOP void fg_dot4_s8(const int8_t *x, const int8_t *const w[4], int32_t n, uint32_t acc[4]) {
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    uint32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const int8_t *end = x + n;
#if defined(__ARM_FEATURE_DSP)
    for (int32_t blocks = n >> 2; blocks > 0; --blocks) {
        const uint32_t xv = fg_load_u32(x);
        const uint32_t x_even = fg_even_s8x2(xv), x_odd = fg_odd_s8x2(xv);
        x += 4;
        a0 = fg_mac_s8x4(a0, x_even, x_odd, fg_load_u32(w0));
        w0 += 4;
        a1 = fg_mac_s8x4(a1, x_even, x_odd, fg_load_u32(w1));
        w1 += 4;
        a2 = fg_mac_s8x4(a2, x_even, x_odd, fg_load_u32(w2));
        w2 += 4;
        a3 = fg_mac_s8x4(a3, x_even, x_odd, fg_load_u32(w3));
        w3 += 4;
    }
#endif
    if (x < end) {
        do {  /* tested at the bottom: one branch per pass */
            const int32_t xi = *x++;
            a0 += (uint32_t)(xi * *w0++);
            a1 += (uint32_t)(xi * *w1++);
            a2 += (uint32_t)(xi * *w2++);
            a3 += (uint32_t)(xi * *w3++);
        } while (x < end);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

void fg_sum4_s8(const int8_t *const w[4], int32_t n, int32_t scale, uint32_t acc[4]) {
    for (int32_t j = 0; j < 4; ++j) {
        int32_t sum = 0;
        for (int32_t i = 0; i < n; ++i) {
            sum += w[j][i];
        }
        acc[j] += (uint32_t)scale * (uint32_t)sum;
    }
}

void fg_advance4(const int8_t *w[4], int32_t n) {
    for (int32_t j = 0; j < 4; ++j) {
        w[j] += n;
    }
}

void fg_dense_row_s8(const int8_t *x, const int8_t *weights, int32_t depth, int32_t out_c, const int32_t *bias,
                     const fg_requant_params *requant, int8_t *output) {
    uint32_t acc[FG_REQUANT_CHUNK];
    for (int32_t chunk = 0; chunk < out_c; chunk += FG_REQUANT_CHUNK) {
        const int32_t count = out_c - chunk < FG_REQUANT_CHUNK ? out_c - chunk : FG_REQUANT_CHUNK;
        for (int32_t oc = chunk; oc < chunk + count; oc += 4) {
            const int8_t *rows[4];
            uint32_t *group = acc + (oc - chunk);
            for (int32_t j = 0; j < 4; ++j) {
                /* past the last channel, repeat this group's first row into the spare accumulators */
                const int32_t channel = oc + j < out_c ? oc + j : oc;
                rows[j] = weights + channel * depth;
                group[j] = (uint32_t)bias[channel];
            }
            fg_dot4_s8(x, rows, depth, group);
        }
        fg_requantize_run_s8(requant, acc, chunk, count, output + chunk);
    }
}
