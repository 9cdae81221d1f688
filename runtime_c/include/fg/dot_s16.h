/* Shared inner loops of the 16x8 kernels (int16 activations, int8 weights): int64 sums of int16 x int8 products, and
 * the part of a window dimension that lies inside the input. */
#ifndef FG_DOT_S16_H
#define FG_DOT_S16_H

#include <stdint.h>

#include "fg/fixedpoint.h"

/* sum(a[i] * b[i], i < n); each product fits 23 bits, so partial sums of up to 256 products stay in int32 (one
 * multiply-accumulate each) and are widened once per block. */
static inline int64_t fg_dot_s16_s8(const int16_t *a, const int8_t *b, int32_t n) {
    int64_t sum = 0;
    while (n > 0) {
        const int32_t block = n < 256 ? n : 256;
        int32_t partial = 0;
        for (int32_t i = 0; i < block; ++i) {
            partial += (int32_t)a[i] * b[i];
        }
        sum += partial;
        a += block;
        b += block;
        n -= block;
    }
    return sum;
}

/* The taps [*first, *end) of a window dimension, `taps` taps `dilation` apart from `origin` (negative in the padding),
 * that fall inside an input of `size`: TFLite skips the others (zero padding). */
static inline void fg_window_inside(int32_t origin, int32_t taps, int32_t dilation, int32_t size, int32_t *first,
                                    int32_t *end) {
    const int32_t last = size - 1 - origin;
    *first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;
    *end = last < 0 ? 0 : fg_min_i32(taps, last / dilation + 1);
}

#endif /* FG_DOT_S16_H */
