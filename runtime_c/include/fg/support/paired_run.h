/* The inner loop of the paired weight layout (fg/support/dot_s8.h): one input x eight output channels per tap, two channels
 * per SMLAL, shared by fg_dot1x8_paired_s8 and the fused 1x1 convolution. */
#ifndef FG_PAIRED_RUN_H
#define FG_PAIRED_RUN_H

#include <stdint.h>

#include "fg/support/dot_s8.h"

#if defined(__arm__) && defined(__thumb2__)
/* One tap: 1 input, 4 weight words, 4 SMLAL (8 products) in 7 instructions of 4 bytes each (none has a 16-bit
 * encoding); 14 registers in all, none spilled. */
#define FG_DOT1X8_TAP_ASM                           \
    "ldrsb.w %[t], [%[x]], #1\n\t"                  \
    "ldrd %[w0], %[w1], [%[w]], #8\n\t"             \
    "smlal %Q[s0], %R[s0], %[t], %[w0]\n\t"         \
    "smlal %Q[s1], %R[s1], %[t], %[w1]\n\t"         \
    "ldrd %[w0], %[w1], [%[w]], #8\n\t"             \
    "smlal %Q[s2], %R[s2], %[t], %[w0]\n\t"         \
    "smlal %Q[s3], %R[s3], %[t], %[w1]\n\t"
#define FG_DOT1X8_TAP_2 FG_DOT1X8_TAP_ASM FG_DOT1X8_TAP_ASM
#define FG_DOT1X8_TAP_8 FG_DOT1X8_TAP_2 FG_DOT1X8_TAP_2 FG_DOT1X8_TAP_2 FG_DOT1X8_TAP_2
#define FG_DOT1X8_TIMES_7 "rsb %[t], %[t], %[t], lsl #3\n\t"
#define FG_DOT1X8_TAP_BYTES 28
#endif
#define FG_ROW_TAPS 16  /* fg_paired_rows: the longest run */

/* s[k] += sum over the taps [x, end) of x[i] * w[4 * i + k], k < 4 (the channel pairs (2k, 2k + 1) of a group);
 * *w is advanced past the taps' words. long_runs (a constant): sixteen taps a pass instead of eight, for the runs of a
 * 1x1 layer's whole depth (448 bytes of code instead of 224 where it is inlined). */
__attribute__((always_inline)) static inline void fg_paired_run_of(const int8_t *x, const int8_t *end,
                                                                   const int32_t **weights, int64_t s[4],
                                                                   int long_runs) {
    const int32_t *w = *weights;
#if defined(__arm__) && defined(__thumb2__)
    int32_t t, w0, w1;
    if (long_runs) {
        FG_SUMS_ASM(FG_JUMP_LOOP_ASM(FG_DOT1X8_TAP_8 FG_DOT1X8_TAP_8, 16, 28, FG_DOT1X8_TIMES_7, t, x), x, end, s,
                    [x] "+r"(x), [w] "+r"(w), [t] "=&r"(t), [w0] "=&r"(w0), [w1] "=&r"(w1));
    } else {
        FG_SUMS_ASM(FG_JUMP_LOOP_ASM(FG_DOT1X8_TAP_8, 8, 28, FG_DOT1X8_TIMES_7, t, x), x, end, s, [x] "+r"(x),
                    [w] "+r"(w), [t] "=&r"(t), [w0] "=&r"(w0), [w1] "=&r"(w1));
    }
#else
    (void)long_runs;
    for (; x < end; ++x, w += FG_PAIRED_WORDS) {
        for (int k = 0; k < FG_PAIRED_WORDS; ++k) {
            s[k] += (int64_t)*x * w[k];
        }
    }
#endif
    *weights = w;
}

__attribute__((always_inline)) static inline void fg_paired_run(const int8_t *x, const int8_t *end,
                                                                const int32_t **weights, int64_t s[4]) {
    fg_paired_run_of(x, end, weights, s, 0);
}

/* fg_paired_rows's `entry` for runs of run <= FG_ROW_TAPS taps: on Thumb-2 the bytes of the taps it jumps over. */
static inline int32_t fg_paired_rows_entry(int32_t run) {
#if defined(__arm__) && defined(__thumb2__)
    return (FG_ROW_TAPS - run) * FG_DOT1X8_TAP_BYTES;
#else
    return run;
#endif
}

/* s[k] += the taps of the runs of run <= FG_ROW_TAPS inputs (entry: fg_paired_rows_entry(run)) from x, each
 * `run + skip` bytes after the previous one, up to `end` (where the last one's skip lands), weights as
 * fg_paired_run_of's (*w advanced past them): each run one pass of the sixteen-tap loop entered by a computed jump, seven
 * instructions a row besides its taps where a loop call per row takes ~30. The entry, the skip and the end wait on
 * the stack: the loop takes thirteen registers (fourteen are more than GCC finds for Cortex-M55). */
__attribute__((always_inline)) static inline void fg_paired_rows(const int8_t *x, const int8_t *end, int32_t entry,
                                                                 int32_t skip, const int32_t **weights,
                                                                 int64_t s[4]) {
    const int32_t *w = *weights;
#if defined(__arm__) && defined(__thumb2__)
    int32_t w0 = skip;
    FG_PINNED_SUMS(s);
    __asm__("str %[w1], [sp, #-4]!\n\t"
            "strd %[t], %[w0], [sp, #-8]!\n"
            "1:\n\t"
            "ldr %[t], [sp]\n\t"
            "add.n pc, %[t]\n\t"
            "nop.n\n"
            "2:\n\t" FG_DOT1X8_TAP_8 FG_DOT1X8_TAP_8
            "3:\n\t"
            ".if (3b - 2b) - 16 * 28\n\t"
            ".error \"a tap is not 28 bytes (FG_DOT1X8_TAP_BYTES)\"\n\t"
            ".endif\n\t"
            "ldr %[t], [sp, #4]\n\t"
            "add %[x], %[x], %[t]\n\t"
            "ldr %[t], [sp, #8]\n\t"
            "cmp %[x], %[t]\n\t"
            "bne 1b\n\t"
            "add sp, sp, #12\n\t"
            : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w] "+r"(w),
              [t] "+r"(entry), [w1] "+r"(end), [w0] "+r"(w0)
            :
            : "cc", "memory");
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
#else
    for (; x < end; x += entry + skip) {
        fg_paired_run_of(x, x + entry, &w, s, 0);
    }
#endif
    *weights = w;
}

#endif /* FG_PAIRED_RUN_H */
