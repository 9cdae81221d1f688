#include "fg/hot_loop.h"
#include "fg/weights_s4.h"

/* The two taps of one packed byte, sign-extended. */
#define FG_LOW_S4(byte) ((int32_t)(int8_t)(uint8_t)((uint32_t)(byte) << 4) >> 4)
#define FG_HIGH_S4(byte) ((int32_t)(byte) >> 4)

FG_HOT_LOOP uint32_t fg_dot_s4(const int8_t *x, const uint8_t *w, int32_t start, int32_t n) {
    uint32_t acc = 0;
    if (n > 0 && (start & 1)) {  /* a run that starts in a high nibble */
        acc += (uint32_t)(x[0] * fg_nibble_s4(w, start));
        ++x, ++start, --n;
    }
    const int8_t *pair = (const int8_t *)w + (start >> 1);
    for (; n >= 2; n -= 2, x += 2) {
        const int32_t byte = *pair++;
        acc += (uint32_t)(x[0] * FG_LOW_S4(byte) + x[1] * FG_HIGH_S4(byte));
    }
    if (n > 0) {
        acc += (uint32_t)(x[0] * FG_LOW_S4(*pair));
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

FG_HOT_LOOP void fg_channel_taps_s4(const int8_t *x, int32_t multiplier, int32_t first, const uint8_t *w,
                                    int32_t start, int32_t n, uint32_t *acc) {
    if (multiplier == 1) {  /* one tap per input channel: x and w advance together, two channels per byte */
        x += first;
        if (n > 0 && (start & 1)) {
            *acc++ += (uint32_t)(x[0] * fg_nibble_s4(w, start));
            ++x, ++start, --n;
        }
        const int8_t *pair = (const int8_t *)w + (start >> 1);
        for (; n >= 2; n -= 2, x += 2, acc += 2) {
            const int32_t byte = *pair++;
            acc[0] += (uint32_t)(x[0] * FG_LOW_S4(byte));
            acc[1] += (uint32_t)(x[1] * FG_HIGH_S4(byte));
        }
        if (n > 0) {
            acc[0] += (uint32_t)(x[0] * FG_LOW_S4(*pair));
        }
        return;
    }
    for (int32_t i = 0; i < n; ++i) {
        acc[i] += (uint32_t)(x[(first + i) / multiplier] * fg_nibble_s4(w, start + i));
    }
}

void fg_scaled_taps_s4(int32_t scale, const uint8_t *w, int32_t start, int32_t n, uint32_t *acc) {
    for (int32_t i = 0; i < n; ++i) {
        acc[i] += (uint32_t)(scale * fg_nibble_s4(w, start + i));
    }
}
