#include "fg/dot_s16.h"
#include "fg/dot_s8.h" /* FG_HOT_LOOP */

/* One run of 1 to 256 taps: int32 sums (each product fits 23 bits). At -O2 gcc keeps the eight sums, the input and
 * one weight pointer in registers: 20 instructions per input. */
FG_HOT_LOOP static void __attribute__((noinline)) fg_dot8_run(const int16_t *x, const int16_t *end, const int8_t *w,
                                                              int32_t sums[8]) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    do {
        const int32_t value = *x++;
        a0 += value * w[0];
        a1 += value * w[1];
        a2 += value * w[2];
        a3 += value * w[3];
        a4 += value * w[4];
        a5 += value * w[5];
        a6 += value * w[6];
        a7 += value * w[7];
        w += FG_S16_GROUP;
    } while (x != end);
    sums[0] = a0;
    sums[1] = a1;
    sums[2] = a2;
    sums[3] = a3;
    sums[4] = a4;
    sums[5] = a5;
    sums[6] = a6;
    sums[7] = a7;
}

void fg_dot8_s16_s8(const int16_t *x, const int8_t *w, int32_t n, int64_t acc[8]) {
    while (n > 0) {
        const int32_t block = n < 256 ? n : 256;
        int32_t sums[FG_S16_GROUP];
        fg_dot8_run(x, x + block, w, sums);
        for (int32_t k = 0; k < FG_S16_GROUP; ++k) {
            acc[k] += sums[k];
        }
        x += block;
        w += block * FG_S16_GROUP;
        n -= block;
    }
}
