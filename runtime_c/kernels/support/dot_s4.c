#include "fg/support/hot_loop.h"
#include "fg/support/weights_s4.h"

FG_HOT_LOOP uint32_t fg_dot_s4(const int8_t *x, const uint8_t *w, int32_t start, int32_t n) {
    uint32_t acc = 0;
    if (n > 0 && (start & 1)) {  /* a run that starts in a high nibble */
        acc += (uint32_t)(x[0] * fg_nibble_s4(w, start));
        ++x, ++start, --n;
    }
    const int8_t *pair = (const int8_t *)w + (start >> 1);
    for (; n >= 2; n -= 2, x += 2) {
        const int32_t byte = *pair++;
        acc += (uint32_t)(x[0] * fg_low_s4(byte) + x[1] * fg_high_s4(byte));
    }
    if (n > 0) {
        acc += (uint32_t)(x[0] * fg_low_s4(*pair));
    }
    return acc;
}

uint32_t fg_scaled_sum_s4(int32_t scale, const uint8_t *w, int32_t start, int32_t n) {
    int32_t sum = 0;
    for (int32_t i = 0; i < n; ++i) {
        sum += fg_nibble_s4(w, start + i);
    }
    return (uint32_t)scale * (uint32_t)sum;
}
