#include "fg/dot_s8.h"
#include "fg/requantize.h"

/* fg_multiply_by_quantized_multiplier for a shift < 0 (right = -shift >= 1, no left shift), as one 64-bit sum:
 * with T = acc * multiplier + 2^30, TFLite's high product is floor(T / 2^31) and its rounding division by 2^right
 * adds 2^(right-1) minus one below zero; the floors compose, so the result is
 * (T + 2^(30+right) - 2^31 * [acc < 0]) >> (31 + right): the high word shifted right by right - 1 (the test on acc
 * instead of T differs only for T = 0, where both give 0). The sum starts at 2^30 + 2^(30+right), words low, high. */
static inline int32_t fg_scaled_fast(uint32_t acc, int32_t multiplier, uint32_t low, int32_t high, int32_t shift) {
#if defined(__arm__) && defined(__thumb2__)
    const int32_t below_zero = (int32_t)(acc >> 31), minimum = FG_INT32_MIN;
    __asm__("smlal %0, %1, %2, %3" : "+r"(low), "+r"(high) : "r"(acc), "r"(multiplier));
    __asm__("smlal %0, %1, %2, %3" : "+r"(low), "+r"(high) : "r"(below_zero), "r"(minimum));
    return high >> shift;
#else
    const int64_t start = (int64_t)(((uint64_t)(uint32_t)high << 32) | low);
    const int64_t sum = start + (int64_t)fg_wrapped_i32(acc) * multiplier + (int64_t)(acc >> 31) * FG_INT32_MIN;
    return (int32_t)(sum >> 32) >> shift;
#endif
}

static inline int32_t fg_saturate_8(int32_t x) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t r;
    __asm__("ssat %0, #8, %1" : "=r"(r) : "r"(x));
    return r;
#else
    return x < -128 ? -128 : x > 127 ? 127 : x;
#endif
}

/* One channel of one or two pixels whose shift is not negative (or whose clamp is not int8's). */
static void fg_requantize_slow(const fg_requant_params *q, const uint32_t *acc, int32_t channel, int8_t *out0,
                               int8_t *out1) {
    *out0 = fg_requantize_channel_s8(q, fg_wrapped_i32(acc[0]), channel);
    if (out1 != NULL) {
        *out1 = fg_requantize_channel_s8(q, fg_wrapped_i32(acc[FG_REQUANT_CHUNK]), channel);
    }
}

/* Channels outer: each channel's multiplier and shift are decoded once for both pixels. The fast loop serves layers
 * clamped to the whole int8 range (no fused activation narrower than it), channel by channel with a shift in
 * [-31, -1]; the rest takes fg_requantize_channel_s8. */
FG_HOT_LOOP void fg_requantize_pair_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                                       int8_t *out0, int8_t *out1) {
    const int32_t step = q->per_channel ? 1 : 0;
    const int32_t *multiplier = q->multipliers + first * step, *shift = q->shifts + first * step;
    const int32_t offset = q->output_offset;
    const int whole_range = q->activation_min == -128 && q->activation_max == 127;
    for (int32_t k = 0; k < count; ++k) {
        const int32_t right = -shift[k * step], m = multiplier[k * step];
        if (!whole_range || right <= 0 || right > 31) {
            fg_requantize_slow(q, acc + k, first + k, out0 + k, out1 != NULL ? out1 + k : NULL);
            continue;
        }
        const uint32_t low = 0x40000000u | ((2u >> right) << 31);  /* 2^30, + 2^31 for right = 1 */
        const int32_t high = (int32_t)((1u << right) >> 2);         /* 2^(right - 2) */
        out0[k] = (int8_t)fg_saturate_8(fg_scaled_fast(acc[k], m, low, high, right - 1) + offset);
        if (out1 != NULL) {
            out1[k] = (int8_t)fg_saturate_8(fg_scaled_fast(acc[k + FG_REQUANT_CHUNK], m, low, high, right - 1)
                                            + offset);
        }
    }
}

void fg_requantize_run_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                          int8_t *output) {
    fg_requantize_pair_s8(q, acc, first, count, output, NULL);
}
