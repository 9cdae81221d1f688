/* Dot products of int8 vectors, the inner loop of the fast convolution and fully-connected variants.
 * Accumulators are uint32 so that sums wrap (as TFLite's int32 accumulators do in practice) without undefined
 * behaviour; fg_wrapped_i32 (fg/requantize.h) reads them back. */
#ifndef FG_DOT_S8_H
#define FG_DOT_S8_H

#include <stdint.h>

#include "fg/requantize.h"

/* The firmware is built with -Os, whose register allocation spills the pointers of the unrolled inner loops to the
 * stack (twice the instructions); the hot loops ask GCC for -O2 instead. */
#if defined(__GNUC__) && !defined(__clang__)
#define FG_HOT_LOOP __attribute__((optimize("O2")))
#else
#define FG_HOT_LOOP
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

#endif /* FG_DOT_S8_H */
