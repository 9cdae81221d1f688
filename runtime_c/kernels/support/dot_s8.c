#include <string.h>

#include "fg/support/blocked_run.h"
#include "fg/support/dot_s8.h"

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

FG_HOT_LOOP void fg_dot2x4_s8(const int8_t *x0, const int8_t *x1, int32_t rows, int32_t run, int32_t step,
                              const int8_t *weights, int32_t groups, int32_t group_bytes, const int32_t *bias,
                              uint32_t *acc) {
    for (int32_t g = 0; g < groups; ++g, acc += FG_BLOCK_CHANNELS, bias = bias != NULL ? bias + 4 : NULL) {
        int64_t s[4] = {0, 0, 0, 0};
        const int8_t *w = weights + g * group_bytes;
        for (int32_t r = 0; r < rows; ++r) {
            fg_blocked_run(x0 + r * step, x1 + r * step, run, &w, s);
        }
        fg_split_add(s[0], bias, acc + 0, acc + FG_REQUANT_CHUNK + 0);
        fg_split_add(s[1], bias != NULL ? bias + 1 : NULL, acc + 1, acc + FG_REQUANT_CHUNK + 1);
        fg_split_add(s[2], bias != NULL ? bias + 2 : NULL, acc + 2, acc + FG_REQUANT_CHUNK + 2);
        fg_split_add(s[3], bias != NULL ? bias + 3 : NULL, acc + 3, acc + FG_REQUANT_CHUNK + 3);
    }
}

FG_HOT_LOOP void fg_dot1x4_paired_s8(const int8_t *x, int32_t run, const int32_t *w, uint32_t acc[4]) {
    int64_t s01 = 0, s23 = 0;
    const int8_t *const end = x + run;
    if (run & 1) {
        const int32_t xi = *x++;
        s01 += (int64_t)xi * w[0];
        s23 += (int64_t)xi * w[1];
        w += 2;
    }
#if defined(__arm__) && defined(__thumb2__)
    if (x < end) {
        int32_t t, w0, w1;
        __asm__("1:\n\t"
                "ldrsb %[t], [%[x]], #1\n\t"
                "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                "smlal %Q[s01], %R[s01], %[t], %[w0]\n\t"
                "smlal %Q[s23], %R[s23], %[t], %[w1]\n\t"
                "ldrsb %[t], [%[x]], #1\n\t"
                "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                "smlal %Q[s01], %R[s01], %[t], %[w0]\n\t"
                "smlal %Q[s23], %R[s23], %[t], %[w1]\n\t"
                "cmp %[x], %[end]\n\t"
                "bne 1b\n\t"
                : [s01] "+r"(s01), [s23] "+r"(s23), [x] "+r"(x), [w] "+r"(w), [t] "=&r"(t), [w0] "=&r"(w0),
                  [w1] "=&r"(w1)
                : [end] "r"(end)
                : "cc", "memory");
    }
#else
    for (; x < end; ++x, w += 2) {
        s01 += (int64_t)*x * w[0];
        s23 += (int64_t)*x * w[1];
    }
#endif
    fg_split_add(s01, NULL, acc + 0, acc + 1);
    fg_split_add(s23, NULL, acc + 2, acc + 3);
}

/* The blocked layout (fg_dot2x4_s8), both pixels at once: the first call sets the accumulators, the later ones add. */
void fg_blocked_window_s8(const fg_blocked_filter *f, int32_t first, int32_t groups, const int8_t *const x0[],
                          const int8_t *const x1[], int32_t step, const int32_t *bias, uint32_t *acc) {
    const int32_t run = f->run, group_bytes = FG_BLOCK_CHANNELS * f->rows * run;
    const int8_t *const w = f->weights + first * group_bytes;
    if (step != 0 && f->call_rows > 1) {
        for (int32_t r = 0; r < f->rows; r += f->call_rows) {
            const int32_t rows = f->rows - r < f->call_rows ? f->rows - r : f->call_rows;
            fg_dot2x4_s8(x0[r], x1[r], rows, run, step, w + 4 * r * run, groups, group_bytes, r == 0 ? bias : NULL,
                         acc);
        }
        return;
    }
    for (int32_t r = 0; r < f->rows; ++r) {
        for (int32_t t = 0; t < run; t += f->call_taps) {
            const int32_t taps = run - t < f->call_taps ? run - t : f->call_taps;
            fg_dot2x4_s8(x0[r] + t, x1[r] + t, 1, taps, 0, w + 4 * (r * run + t), groups, group_bytes,
                         r == 0 && t == 0 ? bias : NULL, acc);
        }
    }
}

void fg_blocked_pair_s8(const fg_blocked_filter *f, const int8_t *const x0[], const int8_t *const x1[], int32_t step,
                        int32_t out_c, const int32_t *bias, const fg_requant_params *requant, int8_t *out0,
                        int8_t *out1) {
    uint32_t acc[2 * FG_REQUANT_CHUNK];
    int8_t later[FG_PAIR_MAX_OUT];  /* pixel 1's outputs until the last input is read */
    int8_t *const out1_chunks = out_c > FG_REQUANT_CHUNK ? later : out1;
    for (int32_t chunk = 0; chunk < out_c; chunk += FG_REQUANT_CHUNK) {
        const int32_t count = out_c - chunk < FG_REQUANT_CHUNK ? out_c - chunk : FG_REQUANT_CHUNK;
        const int32_t groups = (count + FG_BLOCK_CHANNELS - 1) / FG_BLOCK_CHANNELS;
        /* the bias table is padded to whole groups */
        /* the paired layout computes one pixel at a time: a dropped pixel 1 is not computed */
        f->window(f, chunk / FG_BLOCK_CHANNELS, groups, x0, f->paired != NULL && out1 == NULL ? NULL : x1, step,
                  bias + chunk, acc);
        fg_requantize_pair_s8(requant, acc, chunk, count, out0 + chunk, out1 != NULL ? out1_chunks + chunk : NULL);
    }
    if (out1 != NULL && out1_chunks != out1) {
        memcpy(out1, later, (size_t)out_c);
    }
}
