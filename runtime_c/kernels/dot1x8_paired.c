#include "fg/dot_s8.h"

/* Adds the sum of channels (c, c + 1) to their accumulators, or sets them to their bias plus it. */
static inline void fg_split_channels(int64_t sum, const int32_t *bias, uint32_t *acc) {
    uint32_t s0, s1;
    fg_split_sum(sum, &s0, &s1);
    if (bias != NULL) {
        acc[0] = (uint32_t)bias[0] + s0;
        acc[1] = (uint32_t)bias[1] + s1;
    } else {
        acc[0] += s0;
        acc[1] += s1;
    }
}

#if defined(__arm__) && defined(__thumb2__)
/* One tap: 1 input, 4 weight words, 4 SMLAL (8 products) in 7 instructions; 14 registers in all, none spilled. */
#define FG_DOT1X8_TAP_ASM                           \
    "ldrsb %[t], [%[x]], #1\n\t"                    \
    "ldrd %[w0], %[w1], [%[w]], #8\n\t"             \
    "smlal %Q[s0], %R[s0], %[t], %[w0]\n\t"         \
    "smlal %Q[s1], %R[s1], %[t], %[w1]\n\t"         \
    "ldrd %[w0], %[w1], [%[w]], #8\n\t"             \
    "smlal %Q[s2], %R[s2], %[t], %[w0]\n\t"         \
    "smlal %Q[s3], %R[s3], %[t], %[w1]\n\t"
#endif

FG_HOT_LOOP void fg_dot1x8_paired_s8(const int8_t *const x[], int32_t rows, int32_t run, const int32_t *w,
                                     const int32_t *bias, uint32_t acc[FG_PAIRED_CHANNELS]) {
    int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int32_t r = 0; r < rows; ++r) {
        const int8_t *a = x[r];
        const int8_t *const end = a + run;
#if defined(__arm__) && defined(__thumb2__)
        if (a < end) {
            int32_t t, w0, w1;
            /* a run of 4n + r taps (r > 0) enters the pass at its tap 4 - r */
            __asm__("sub %[t], %[end], %[x]\n\t"
                    "ands %[t], %[t], #3\n\t"
                    "beq 1f\n\t"
                    "cmp %[t], #2\n\t"
                    "bhi 2f\n\t"
                    "beq 3f\n\t"
                    "b 4f\n\t"
                    "1:\n\t" FG_DOT1X8_TAP_ASM "2:\n\t" FG_DOT1X8_TAP_ASM
                    "3:\n\t" FG_DOT1X8_TAP_ASM "4:\n\t" FG_DOT1X8_TAP_ASM
                    "cmp %[x], %[end]\n\t"
                    "bne 1b\n\t"
                    : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(a), [w] "+r"(w),
                      [t] "=&r"(t), [w0] "=&r"(w0), [w1] "=&r"(w1)
                    : [end] "r"(end)
                    : "cc", "memory");
        }
#else
        for (; a < end; ++a, w += FG_PAIRED_WORDS) {
            s0 += (int64_t)*a * w[0];
            s1 += (int64_t)*a * w[1];
            s2 += (int64_t)*a * w[2];
            s3 += (int64_t)*a * w[3];
        }
#endif
    }
    fg_split_channels(s0, bias, acc + 0);
    fg_split_channels(s1, bias != NULL ? bias + 2 : NULL, acc + 2);
    fg_split_channels(s2, bias != NULL ? bias + 4 : NULL, acc + 4);
    fg_split_channels(s3, bias != NULL ? bias + 6 : NULL, acc + 6);
}
