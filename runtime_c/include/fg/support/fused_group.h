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

#if defined(__arm__) && defined(__thumb2__)
/* The fields of the sum in registers lo:hi, in place: the low one in lo, the high one in hi (t a temporary). */
#define FG_FUSED_FIELDS_ASM(lo, hi, t)              \
    "lsr " t ", " lo ", #22\n\t"                     \
    "orr " hi ", " t ", " hi ", lsl #10\n\t"          \
    "ubfx " lo ", " lo ", #0, #22\n\t"
/* fg_fused_put of the field in register a, the channel's constants loaded into b, m, h, e (e may be m: then the shift
 * is loaded once the multiplier has been used). */
#define FG_FUSED_PUT_ASM(a, b, m, h, e, load_e, late_e)                              \
    "ldrd " b ", " m ", [%[c]], #8\n\t" load_e "add " a ", " a ", " b "\n\t"          \
    FG_FAST_PRODUCT_OPERANDS(b, h, a, m, h) late_e FG_FAST_FINISH_OPERANDS(h, e, "%[z]") \
    "strb " h ", [%[o]], #1\n\t"
/* With three temporaries (the first output): h0 loaded alone, the shift after the SMLAL into m's register. */
#define FG_FUSED_PUT3_ASM(a) \
    FG_FUSED_PUT_ASM(a, "%[t1]", "%[t2]", "%[t3]", "%[t2]", "ldr %[t3], [%[c]], #4\n\t", "ldr %[t2], [%[c]], #4\n\t")
/* With a fourth (a field register already stored from): both constant pairs by LDRD. */
#define FG_FUSED_PUT4_ASM(a, f) \
    FG_FUSED_PUT_ASM(a, "%[t1]", "%[t2]", "%[t3]", f, "ldrd %[t3], " f ", [%[c]], #8\n\t", "")
/* The floor stage's output (fg_floor_channel) of the field in register a, the channel's start loaded into l:h, its
 * multiplier and shift into m, e. */
#define FG_FLOOR_PUT_ASM(a, l, h, m, e)            \
    "ldrd " l ", " h ", [%[c]], #8\n\t"           \
    "ldrd " m ", " e ", [%[c]], #8\n\t"           \
    "smlal " l ", " h ", " a ", " m "\n\t"        \
    "asr " h ", " h ", " e "\n\t"                 \
    "ssat " h ", #8, " h "\n\t"                   \
    "strb " h ", [%[o]], #1\n\t"
#define FG_FLOOR_PAIR_ASM(s)                                                       \
    FG_FUSED_FIELDS_ASM("%Q[" s "]", "%R[" s "]", "%[t1]")                          \
    FG_FLOOR_PUT_ASM("%Q[" s "]", "%[t1]", "%[t2]", "%[t3]", "%[t4]")              \
    FG_FLOOR_PUT_ASM("%R[" s "]", "%[t1]", "%[t2]", "%[t3]", "%[t4]")
#endif

/* Stores the output of channel *c for the sum `field` at *out; both move on by one. floor (a constant): the constants
 * are fg_floor_channel's (a layer whose output zero point is -128 and clamp all of int8), the bias in their start. */
__attribute__((always_inline)) static inline void fg_fused_put(uint32_t field, const fg_fused_channel **c,
                                                               int32_t offset, int8_t **out, int floor) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t low, multiplier, high, shift;
    if (floor) {
        __asm__ volatile(FG_FLOOR_PUT_ASM("%[a]", "%[lo]", "%[hi]", "%[m]", "%[e]")
                         : [c] "+r"(*c), [o] "+r"(*out), [lo] "=&r"(low), [m] "=&r"(multiplier), [hi] "=&r"(high),
                           [e] "=&r"(shift)
                         : [a] "r"(field)
                         : "memory");
        return;
    }
    __asm__ volatile(FG_FUSED_PUT_ASM("%[a]", "%[lo]", "%[m]", "%[hi]", "%[e]", "ldrd %[hi], %[e], [%[c]], #8\n\t",
                                      "")
                     : [a] "+r"(field), [c] "+r"(*c), [o] "+r"(*out), [lo] "=&r"(low), [m] "=&r"(multiplier),
                       [hi] "=&r"(high), [e] "=&r"(shift)
                     : [z] "r"(offset)
                     : "memory");
#else
    *(*out)++ = floor ? fg_floor_output((int32_t)field, (const fg_floor_channel *)*c)
                      : fg_fast_output(field + (uint32_t)(*c)->bias, &(*c)->fast, offset);
    ++*c;
#endif
}


/* The eight outputs of one group whose taps took a single call: in Thumb-2 one block of 14 registers (the four sums,
 * the constants and output pointers, the zero point, three temporaries, and each field register once stored from),
 * 101 instructions, where GCC's allocation of the C spills the fields (~120). */
__attribute__((always_inline)) static inline void fg_fused_store8(const int64_t s[4], const fg_fused_channel **c,
                                                                  int32_t offset, int8_t **out, int floor) {
#if defined(__arm__) && defined(__thumb2__)
    FG_PINNED_SUMS(s);
    int32_t t1, t2, t3;
    if (floor) {  /* 60 instructions: no zero point, a fourth temporary */
        int32_t t4;
        __asm__ volatile(FG_FLOOR_PAIR_ASM("s0") FG_FLOOR_PAIR_ASM("s1") FG_FLOOR_PAIR_ASM("s2") FG_FLOOR_PAIR_ASM("s3")
                         : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [c] "+r"(*c), [o] "+r"(*out),
                           [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4)
                         :
                         : "memory");
        return;
    }
    __asm__ volatile(FG_FUSED_FIELDS_ASM("%Q[s0]", "%R[s0]", "%[t1]")
                     FG_FUSED_PUT3_ASM("%Q[s0]") FG_FUSED_PUT4_ASM("%R[s0]", "%Q[s0]")
                     FG_FUSED_FIELDS_ASM("%Q[s1]", "%R[s1]", "%[t1]")
                     FG_FUSED_PUT4_ASM("%Q[s1]", "%Q[s0]") FG_FUSED_PUT4_ASM("%R[s1]", "%Q[s0]")
                     FG_FUSED_FIELDS_ASM("%Q[s2]", "%R[s2]", "%[t1]")
                     FG_FUSED_PUT4_ASM("%Q[s2]", "%Q[s0]") FG_FUSED_PUT4_ASM("%R[s2]", "%Q[s0]")
                     FG_FUSED_FIELDS_ASM("%Q[s3]", "%R[s3]", "%[t1]")
                     FG_FUSED_PUT4_ASM("%Q[s3]", "%Q[s0]") FG_FUSED_PUT4_ASM("%R[s3]", "%Q[s0]")
                     : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [c] "+r"(*c), [o] "+r"(*out),
                       [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
                     : [z] "r"(offset)
                     : "memory");
#else
    for (int k = 0; k < 4; ++k) {
        fg_fused_put(fg_low_field(s[k]), c, offset, out, floor);
        fg_fused_put(fg_high_field(s[k]), c, offset, out, floor);
    }
#endif
}

/* The `groups` whole groups of eight outputs of one non-empty run of taps [x, end) that takes a single call (the
 * pointwise pixel, a window read side by side): *w, *c and *out move on past them. long_runs: fg_paired_run_of's. */
__attribute__((always_inline)) static inline void fg_fused_groups(const int8_t *x, const int8_t *end, int32_t groups,
                                                                  const int32_t **w, const fg_fused_channel **c,
                                                                  int32_t offset, int8_t **out, int long_runs,
                                                                  int floor) {
    if (end <= x) {
        __builtin_unreachable();  /* no test of the run's length per group */
    }
    for (int32_t g = 0; g < groups; ++g) {
        int64_t s[4];
        s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
        fg_paired_run_of(x, end, w, s, long_runs);
        fg_fused_store8(s, c, offset, out, floor);
    }
}

/* `span` pixels `pixel_bytes` (> 0) apart from the first's window at `row`: of each, the `groups` whole groups of eight
 * outputs of a window of f->rows runs of f->run <= FG_ROW_TAPS taps, row_step bytes apart, that takes a single call
 * (fg_paired_rows). *out moves on past them. */
__attribute__((always_inline)) static inline void fg_fused_row_span(const int8_t *row, int32_t span,
                                                                    int32_t pixel_bytes, const fg_blocked_filter *f,
                                                                    int32_t row_step, int32_t groups,
                                                                    const fg_fused_channel *constants,
                                                                    int32_t offset, int8_t **out, int floor) {
    const int32_t entry = fg_paired_rows_entry(f->run), skip = row_step - f->run, window = f->rows * row_step;
    const int32_t *const weights = f->paired;
    for (const int8_t *const last = row + span * pixel_bytes; row != last; row += pixel_bytes) {
        const int32_t *w = weights;
        const fg_fused_channel *c = constants;
        for (int32_t g = 0; g < groups; ++g) {
            int64_t s[4];
            s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
            fg_paired_rows(row, row + window, entry, skip, &w, s);
            fg_fused_store8(s, &c, offset, out, floor);
        }
    }
}

/* The sums of a group of fewer than eight outputs, or of a window split into calls that stay exact (call_rows whole
 * rows per call when call_taps == run, else pieces of call_taps taps): each call's fields summed into acc. Out of
 * line: rarely run, and inlined it would double the kernels' code. */
__attribute__((noinline, unused)) static void fg_fused_window_sums(const int8_t *const x[], int32_t rows, int32_t run,
                                                                   int32_t call_rows, int32_t call_taps,
                                                                   const int32_t **w,
                                                                   uint32_t acc[FG_PAIRED_CHANNELS]) {
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
}

/* The general group: the window's `rows` runs of `run` taps, `count` outputs stored; eight outputs of a window that
 * takes one call from registers. */
__attribute__((always_inline)) static inline void fg_fused_window_group_of(const int8_t *const x[], int32_t rows,
                                                                           int32_t run, int32_t call_rows,
                                                                           int32_t call_taps, const int32_t **w,
                                                                           const fg_fused_channel *c, int32_t offset,
                                                                           int32_t count, int8_t *out, int floor) {
    if (call_taps == run && call_rows >= rows && count == FG_PAIRED_CHANNELS) {  /* one call: sums in registers */
        int64_t s[4];
        s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
        for (int32_t q = 0; q < rows; ++q) {
            fg_paired_run(x[q], x[q] + run, w, s);
        }
        fg_fused_store8(s, &c, offset, &out, floor);
        return;
    }
    uint32_t acc[FG_PAIRED_CHANNELS];
    fg_fused_window_sums(x, rows, run, call_rows, call_taps, w, acc);
    for (int32_t j = 0; j < count; ++j) {
        fg_fused_put(acc[j], &c, offset, &out, floor);
    }
}

/* Out of line, one per output stage: a kernel links only its own. */
#define FG_FUSED_WINDOW_GROUP(name, floor)                                                                      \
    __attribute__((noinline, unused)) static void name(const int8_t *const x[], int32_t rows, int32_t run,     \
                                                       int32_t call_rows, int32_t call_taps, const int32_t **w, \
                                                       const fg_fused_channel *c, int32_t offset, int32_t count, \
                                                       int8_t *out) {                                          \
        fg_fused_window_group_of(x, rows, run, call_rows, call_taps, w, c, offset, count, out, floor);         \
    }
FG_FUSED_WINDOW_GROUP(fg_fused_window_group_fast, 0)
FG_FUSED_WINDOW_GROUP(fg_fused_window_group_floor, 1)
#undef FG_FUSED_WINDOW_GROUP

__attribute__((always_inline)) static inline void fg_fused_window_group(const int8_t *const x[], int32_t rows,
                                                                        int32_t run, int32_t call_rows,
                                                                        int32_t call_taps, const int32_t **w,
                                                                        const fg_fused_channel *c, int32_t offset,
                                                                        int32_t count, int8_t *out, int floor) {
    (floor ? fg_fused_window_group_floor : fg_fused_window_group_fast)(x, rows, run, call_rows, call_taps, w, c,
                                                                        offset, count, out);
}

#endif /* FG_FUSED_GROUP_H */
