/* The inner loop of the blocked weight layout (fg/support/dot_s8.h): two input pixels x four output channels per tap, two
 * products per SMLAL, shared by fg_dot2x4_s8 and the fused 1x1 convolution on the compact layout. */
#ifndef FG_BLOCKED_RUN_H
#define FG_BLOCKED_RUN_H

#include <stdint.h>

#include "fg/support/dot_s8.h"

#if defined(__arm__) && defined(__thumb2__)
/* One tap: the two inputs packed into one word, 4 weights, 4 SMLAL (8 products); with four taps per pass the loop
 * stays in registers throughout: 8 accumulator words, 2 inputs, the weights, the end, 2 temporaries (GCC's own
 * allocation of the C loop spills, 1.3x the instructions). */
#define FG_DOT2X4_TAP_ASM                           \
    "ldrsb.w %[t], [%[a]], #1\n\t"                  \
    "ldrsb.w %[p], [%[b]], #1\n\t"                  \
    "add.w %[p], %[t], %[p], lsl #22\n\t"           \
    "ldrsb.w %[t], [%[w]], #1\n\t"                  \
    "smlal %Q[s0], %R[s0], %[p], %[t]\n\t"          \
    "ldrsb.w %[t], [%[w]], #1\n\t"                  \
    "smlal %Q[s1], %R[s1], %[p], %[t]\n\t"          \
    "ldrsb.w %[t], [%[w]], #1\n\t"                  \
    "smlal %Q[s2], %R[s2], %[p], %[t]\n\t"          \
    "ldrsb.w %[t], [%[w]], #1\n\t"                  \
    "smlal %Q[s3], %R[s3], %[p], %[t]\n\t"
/* The tap index in %[p] times 11 (44 bytes a tap), %[t] a scratch. */
#define FG_DOT2X4_TIMES_11                          \
    "add %[t], %[p], %[p], lsl #1\n\t"              \
    "add %[p], %[t], %[p], lsl #3\n\t"
#endif

/* s[j] += sum over the run's taps i of (a[i] + b[i] * 2^22) * w[4 * i + j], j < 4 (the four channels of a group);
 * *weights is advanced past the run's taps. */
__attribute__((always_inline)) static inline void fg_blocked_run(const int8_t *a, const int8_t *b, int32_t run,
                                                                 const int8_t **weights, int64_t s[4]) {
    const int8_t *w = *weights;
    const int8_t *const end = a + run;
#if defined(__arm__) && defined(__thumb2__)
    int32_t p, t;
    FG_SUMS_ASM(FG_JUMP_LOOP_ASM(FG_DOT2X4_TAP_ASM FG_DOT2X4_TAP_ASM FG_DOT2X4_TAP_ASM FG_DOT2X4_TAP_ASM, 4, 44,
                                 FG_DOT2X4_TIMES_11, p, a),
                a, end, s, [a] "+r"(a), [b] "+r"(b), [w] "+r"(w), [p] "=&r"(p), [t] "=&r"(t));
#else
    for (; a < end; w += FG_BLOCK_CHANNELS) {
        const int32_t pair = *a++ + *b++ * 4194304;
        for (int j = 0; j < FG_BLOCK_CHANNELS; ++j) {
            s[j] += (int64_t)pair * w[j];
        }
    }
#endif
    *weights = w;
}

#endif /* FG_BLOCKED_RUN_H */
