#include "fg/support/dot_s16.h"
#include "fg/support/hot_loop.h"

/* One run of 1 to 256 taps: int32 sums (each product fits 23 bits). Kept out of line with only the loop's own values
 * live; at -O2 (FG_HOT_LOOP) gcc walks the four weight rows with pre-incremented loads, 11 instructions per input on
 * Armv7-M (-Os spilled and took 12; unrolling made both worse). */
FG_HOT_LOOP static void __attribute__((noinline)) fg_dot4_run(const int16_t *x, const int16_t *end, const int8_t *w,
                                                              int32_t stride, int32_t sums[4]) {
    const int32_t stride2 = stride + stride, stride3 = stride2 + stride;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    do {
        const int32_t value = *x++;
        a0 += value * w[0];
        a1 += value * w[stride];
        a2 += value * w[stride2];
        a3 += value * w[stride3];
        ++w;
    } while (x != end);
    sums[0] = a0;
    sums[1] = a1;
    sums[2] = a2;
    sums[3] = a3;
}

void fg_dot4_s16_s8(const int16_t *x, const int8_t *w, int32_t stride, int32_t n, int64_t acc[4]) {
    while (n > 0) {
        const int32_t block = n < 256 ? n : 256;
        int32_t sums[4];
        fg_dot4_run(x, x + block, w, stride, sums);
        for (int32_t k = 0; k < 4; ++k) {
            acc[k] += sums[k];
        }
        x += block;
        w += block;
        n -= block;
    }
}
