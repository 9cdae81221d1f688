/* Dot products of int8 vectors, the inner loop of the fast convolution and fully-connected variants.
 * Accumulators are uint32 so that sums wrap (as TFLite's int32 accumulators do in practice) without undefined
 * behaviour; fg_wrapped_i32 (fg/support/requantize.h) reads them back. */
#ifndef FG_DOT_S8_H
#define FG_DOT_S8_H

#include <stddef.h>
#include <stdint.h>

#include "fg/support/hot_loop.h"
#include "fg/support/requantize.h"

#if defined(__arm__) && defined(__thumb2__)
/* The unrolled tap loops of the blocked and paired layouts: PASS, `taps` (a power of two) copies of a tap of
 * `tap_bytes` bytes (only 32-bit instructions), over the taps [x, end); a run of n * taps + r taps (r > 0) enters the
 * pass at its tap taps - r by a computed jump (ADD PC reads its own address + 4: the 16-bit NOP after it is never
 * run). The index lands in the scratch operand %[i]; SCALE multiplies it by tap_bytes / 4 (it may use the scratch
 * operand the taps write first). The assembler checks the taps' size. */
#define FG_JUMP_LOOP_ASM(PASS, taps, tap_bytes, SCALE, i, x) \
    "sub %[" #i "], %[" #x "], %[end]\n\t"                 \
    "ands %[" #i "], %[" #i "], #" #taps " - 1\n\t"        \
    "beq 1f\n\t" SCALE                                     \
    "lsl %[" #i "], %[" #i "], #2\n\t"                     \
    "add.n pc, %[" #i "]\n\t"                              \
    "nop.n\n"                                               \
    "1:\n\t" PASS                                          \
    "2:\n\t"                                               \
    ".if (2b - 1b) - " #taps " * " #tap_bytes "\n\t"       \
    ".error \"a tap is not " #tap_bytes " bytes\"\n\t"     \
    ".endif\n\t"                                           \
    "cmp %[" #x "], %[end]\n\t"                            \
    "bne 1b\n\t"

/* Four 64-bit sums s0..s3 from sums[0..3]. A kernel that defines FG_PIN_SUMS before its includes gets them in the
 * same registers wherever they are declared, so that the loops that fill them and the output stage that reads them
 * (fg/support/fused_group.h) need no moves between them (the 1x1 kernel: ~10 instructions a group); elsewhere GCC
 * 12's register allocation does not always settle with them pinned (it ran for minutes on the folded kernel for
 * Cortex-M55), so they are left to it. */
#ifdef FG_PIN_SUMS
#define FG_PINNED_SUMS(sums)                              \
    register int64_t s0 __asm__("r4") = (sums)[0];        \
    register int64_t s1 __asm__("r8") = (sums)[1];        \
    register int64_t s2 __asm__("r10") = (sums)[2];       \
    register int64_t s3 __asm__("r2") = (sums)[3]
#else
#define FG_PINNED_SUMS(sums) int64_t s0 = (sums)[0], s1 = (sums)[1], s2 = (sums)[2], s3 = (sums)[3]
#endif

/* LOOP, an assembly loop over the taps [x, end), with the four 64-bit sums sums[0..3] held in %[s0]..%[s3]; the
 * loop's other operands (its input, weight and scratch registers, declared by the caller) follow. */
#define FG_SUMS_ASM(LOOP, x, end, sums, ...)                                                      \
    do {                                                                                         \
        FG_PINNED_SUMS(sums);                                                                    \
        if ((x) < (end)) {                                                                       \
            __asm__(LOOP                                                                         \
                    : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), __VA_ARGS__    \
                    : [end] "r"(end)                                                             \
                    : "cc", "memory");                                                           \
        }                                                                                        \
        (sums)[0] = s0;                                                                          \
        (sums)[1] = s1;                                                                          \
        (sums)[2] = s2;                                                                          \
        (sums)[3] = s3;                                                                          \
    } while (0)
#endif

/* acc[j] += sum_{i < n} x[i] * w[j][i] for j = 0..3 (four weight rows share each load of x). Rows may repeat. */
void fg_dot4_s8(const int8_t *x, const int8_t *const w[4], int32_t n, uint32_t acc[4]);

/* acc[j] += scale * sum_{i < n} w[j][i]: the share of taps that read a constant (the padding). */
void fg_sum4_s8(const int8_t *const w[4], int32_t n, int32_t scale, uint32_t acc[4]);

/* w[j] += n for j = 0..3: on to the next taps of each row (kept out of the loops above, which it would slow). */
void fg_advance4(const int8_t *w[4], int32_t n);

/* output[oc] = requantized(bias[oc] + sum_{i < depth} x[i] * weights[oc * depth + i]) for oc < out_c:
 * one row (a pixel of a 1x1 convolution, a batch of a fully-connected layer) with the input offset already
 * folded into the bias. */
void fg_dense_row_s8(const int8_t *x, const int8_t *weights, int32_t depth, int32_t out_c, const int32_t *bias,
                     const fg_requant_params *requant, int8_t *output);

/* The register-blocked inner loop of the convolutions on Armv7-M: two output pixels x four output channels, two
 * products per SMLAL. The weights of a group of four output channels are interleaved tap by tap at generation time
 * (w[4 * t + j]: tap t of channel j). Each tap packs the two pixels' inputs into one word, x0 + x1 * 2^22, and
 * multiplies it by the channel's weight into a 64-bit sum S0 + S1 * 2^22; the low 22 bits hold S0 exactly while
 * 128 * sum(|w|) < 2^21 over the taps of one call, which the lowering guarantees by splitting the window
 * (firmware_gen/ops/convolution/blocking.py). For each group g < groups (its weights group_bytes after the previous group's),
 * acc[4g + j] += S0 (pixel 0) and acc[FG_REQUANT_CHUNK + 4g + j] += S1 (pixel 1), j < 4, the taps being `rows` runs
 * of `run` contiguous inputs, run r of pixel i at x_i + r * step. With a bias ([4 * groups]), the accumulators are set
 * to bias[4g + j] + S instead of added to. */
#define FG_BLOCK_CHANNELS 4
void fg_dot2x4_s8(const int8_t *x0, const int8_t *x1, int32_t rows, int32_t run, int32_t step, const int8_t *w,
                  int32_t groups, int32_t group_bytes, const int32_t *bias, uint32_t *acc);

/* The two fields of a sum S0 + S1 * 2^22 with |S0| < 2^21. */
static inline void fg_split_sum(int64_t sum, uint32_t *s0, uint32_t *s1) {
    const int32_t low = (int32_t)((uint32_t)sum << 10) >> 10;
    *s0 = (uint32_t)low;
    *s1 = (uint32_t)(int32_t)((sum - low) >> 22);
}

/* Adds a two-pixel sum S0 + S1 * 2^22 (|S0| < 2^21) to the pixels' accumulators, or, with a bias, sets them to the
 * bias plus the sum (the window's first call: no pass over the accumulators to start them). */
static inline void fg_split_add(int64_t sum, const int32_t *bias, uint32_t *acc0, uint32_t *acc1) {
    uint32_t s0, s1;
    fg_split_sum(sum, &s0, &s1);
    if (bias != NULL) {
        *acc0 = (uint32_t)*bias + s0;
        *acc1 = (uint32_t)*bias + s1;
    } else {
        *acc0 += s0;
        *acc1 += s1;
    }
}

/* One row x four output channels with two channels per 64-bit sum: w holds, tap by tap, two words
 * w[c] + w[c + 1] * 2^22 for channels (0, 1) and (2, 3); exact under the same bound as fg_dot2x4_s8. */
void fg_dot1x4_paired_s8(const int8_t *x, int32_t run, const int32_t *w, uint32_t acc[4]);

/* How a blocked filter is walked: a window of `rows` filter rows of `run` taps each (filter row r of pixel i read
 * from x_i[r]), at most `call_rows` rows per fg_dot2x4_s8 call when the rows are `step` bytes apart in both pixels,
 * else row by row in pieces of at most `call_taps` taps. */
struct fg_blocked_filter;

/* The bias of the groups of 4 output channels [first, first + groups) plus the window's dot products of pixel 0
 * (from x0) into acc[0..] and, unless x1 is NULL, of pixel 1 into acc[FG_REQUANT_CHUNK..]: one function per weight
 * layout, named in the filter by the generator, so that a firmware links only the layouts its steps use. */
typedef void fg_blocked_window_fn(const struct fg_blocked_filter *f, int32_t first, int32_t groups,
                                  const int8_t *const x0[], const int8_t *const x1[], int32_t step,
                                  const int32_t *bias, uint32_t *acc);

typedef struct fg_blocked_filter {
    const int8_t *weights;  /* [groups of 4 output channels][rows * run taps][4], padded with zero channels */
    int32_t rows, run;
    int32_t call_rows, call_taps;
    /* NULL, or the wide layout (twice the flash): the same taps as paired words w[c] + w[c + 1] * 2^22,
     * [groups of 8 output channels][rows * run taps][4 words], which fg_dot1x8_paired_s8 reads (weights is then
     * NULL) */
    const int32_t *paired;
    fg_blocked_window_fn *window;  /* fg_blocked_window_s8, or fg_paired_window_s8 for the paired layout */
} fg_blocked_filter;

fg_blocked_window_fn fg_blocked_window_s8;
fg_blocked_window_fn fg_paired_window_s8;

/* One pixel x eight output channels, two channels per SMLAL: w holds, tap by tap, the four words
 * w[c] + w[c + 1] * 2^22 of channels (0, 1) .. (6, 7) (firmware_gen/ops/convolution/blocking.py, paired_filter). The taps are
 * `rows` runs of `run` inputs, run r at x[r]; exact under the bound of fg_dot2x4_s8. acc[c] += S_c, or with a bias,
 * acc[c] = bias[c] + S_c. */
#define FG_PAIRED_CHANNELS 8
#define FG_PAIRED_WORDS 4
void fg_dot1x8_paired_s8(const int8_t *const x[], int32_t rows, int32_t run, const int32_t *w, const int32_t *bias,
                         uint32_t acc[FG_PAIRED_CHANNELS]);

/* The output channels [0, out_c) of two output pixels (out1 may be NULL: pixel 1 is then computed from x1 and
 * dropped): bias (padded to whole groups of four) + the window's dot products, requantized. step 0: the rows are not evenly spaced. Pixel 0 is
 * stored chunk by chunk, pixel 1 only after every input has been read (out_c <= FG_PAIR_MAX_OUT when out1 is
 * given), so that pixel 1's output may overlap the inputs of pixel 0 (ops/overlap.py). */
#define FG_PAIR_MAX_OUT 256
void fg_blocked_pair_s8(const fg_blocked_filter *f, const int8_t *const x0[], const int8_t *const x1[], int32_t step,
                        int32_t out_c, const int32_t *bias, const fg_requant_params *requant, int8_t *out0,
                        int8_t *out1);

#endif /* FG_DOT_S8_H */
