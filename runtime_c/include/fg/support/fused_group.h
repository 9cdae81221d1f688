/* The output side of the fused convolutions on the paired layout (fg_conv2d_pointwise_fused_s8,
 * fg_conv2d_folded_fused_s8; fg_fused_channel in fg/conv2d.h): sums read as their two fields, requantized and stored
 * channel by channel with the constants laid out at generation time. */
#ifndef FG_FUSED_GROUP_H
#define FG_FUSED_GROUP_H

#include <stdint.h>

#include "fg/conv2d.h"
#include "fg/support/paired_run.h"
#include "fg/support/requantize_fast.h"

#define FG_LOW_START (1 << 21)  /* each call's sums start here: the low field stays non-negative */
#define FG_LOW_FIELD 0x3FFFFFu

static inline uint32_t fg_low_field(int64_t s) {
    return (uint32_t)s & FG_LOW_FIELD;
}

static inline uint32_t fg_high_field(int64_t s) {
    return (uint32_t)(s >> 22);
}

/* Stores the output of channel *c for the sum `field` at *out; both move on by one. */
__attribute__((always_inline)) static inline void fg_fused_put(uint32_t field, const fg_fused_channel **c,
                                                               int32_t offset, int8_t **out) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t low, multiplier, high0, shift, high;
    __asm__ volatile("ldrd %[lo], %[m], [%[c]], #8\n\t"
            "ldrd %[h0], %[e], [%[c]], #8\n\t"
            "add %[a], %[a], %[lo]\n\t" FG_FAST_OUTPUT_ASM
            "strb %[hi], [%[o]], #1"
            : [a] "+r"(field), [c] "+r"(*c), [o] "+r"(*out), [lo] "=&r"(low), [m] "=&r"(multiplier),
              [h0] "=&r"(high0), [e] "=&r"(shift), [hi] "=&r"(high)
            : [z] "r"(offset)
            : "memory");
#else
    *(*out)++ = fg_fast_output(field + (uint32_t)(*c)->bias, &(*c)->fast, offset);
    ++*c;
#endif
}

/* The eight outputs of one group whose taps took a single call (its sums kept on the stack meanwhile). */
__attribute__((always_inline)) static inline void fg_fused_store8(const int64_t s[4], const fg_fused_channel **c, int32_t offset, int8_t **out) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        fg_fused_put(fg_low_field(s[k]), c, offset, out);
        fg_fused_put(fg_high_field(s[k]), c, offset, out);
    }
}

/* The general group: the window's `rows` runs of `run` taps in calls that stay exact (call_rows whole rows per call
 * when call_taps == run, else pieces of call_taps taps), the fields summed, `count` outputs stored. */
static inline void fg_fused_window_group(const int8_t *const x[], int32_t rows, int32_t run, int32_t call_rows,
                                         int32_t call_taps, const int32_t **w, const fg_fused_channel *c,
                                         int32_t offset, int32_t count, int8_t *out) {
    if (call_taps == run && call_rows >= rows && count == FG_PAIRED_CHANNELS) {  /* one call: sums in registers */
        int64_t s[4];
        s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
        for (int32_t q = 0; q < rows; ++q) {
            fg_paired_run(x[q], x[q] + run, w, s);
        }
        fg_fused_store8(s, &c, offset, &out);
        return;
    }
    uint32_t acc[FG_PAIRED_CHANNELS];
    for (int32_t j = 0; j < FG_PAIRED_CHANNELS; ++j) {
        acc[j] = 0;
    }
    const int whole_rows = call_taps == run;
    for (int32_t r = 0; r < rows; r += whole_rows ? call_rows : 1) {
        const int32_t last = whole_rows ? (rows - r < call_rows ? rows : r + call_rows) : r + 1;
        for (int32_t t = 0; t < run; t += call_taps) {
            const int32_t taps = whole_rows ? run : (run - t < call_taps ? run - t : call_taps);
            int64_t s[4];
            s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
            for (int32_t q = r; q < last; ++q) {
                fg_paired_run(x[q] + t, x[q] + t + taps, w, s);
            }
            for (int k = 0; k < 4; ++k) {
                acc[2 * k] += fg_low_field(s[k]);
                acc[2 * k + 1] += fg_high_field(s[k]);
            }
        }
    }
    for (int32_t j = 0; j < count; ++j) {
        fg_fused_put(acc[j], &c, offset, &out);
    }
}

#endif /* FG_FUSED_GROUP_H */
