#include "fg/dot_s8.h"
#include "fg/requantize.h"

/* Clamps to [-2^30, 2^30 - 1]. */
static inline int32_t fg_saturate_31(int32_t x) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t r;
    __asm__("ssat %0, #31, %1" : "=r"(r) : "r"(x));
    return r;
#else
    const int32_t bound = (int32_t)1 << 30;
    return x < -bound ? -bound : x > bound - 1 ? bound - 1 : x;
#endif
}

/* fg_multiply_by_quantized_multiplier + offset, for a right shift 1 <= right <= FG_FAST_RIGHT_SHIFT: the high product
 * is clamped to 31 bits first, which changes no output (|product| >= 2^30 gives |result| >= 2^(30 - right) - 1 >= 255,
 * clamped to int8 either way), so that the rounding x / 2^right, ties away from zero, is (x + 2^(right-1) - (x < 0))
 * >> right without overflow. */
#define FG_FAST_RIGHT_SHIFT 22
static inline int32_t fg_scaled_fast(uint32_t acc, int32_t left, int32_t multiplier, int32_t right, int32_t nudge) {
    const int32_t x = (int32_t)(acc << left);
    const int32_t high = fg_saturate_31((int32_t)(((int64_t)x * multiplier + ((int64_t)1 << 30)) >> 31));
    return (high + nudge + (high >> 31)) >> right;
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

/* One channel of one or two pixels whose shift is outside the fast range (or whose clamp is not int8's). */
static void fg_requantize_slow(const fg_requant_params *q, const uint32_t *acc0, const uint32_t *acc1,
                               int32_t channel, int8_t *out0, int8_t *out1) {
    *out0 = fg_requantize_channel_s8(q, fg_wrapped_i32(*acc0), channel);
    if (out1 != NULL) {
        *out1 = fg_requantize_channel_s8(q, fg_wrapped_i32(*acc1), channel);
    }
}

/* Channels outer: each channel's multiplier and shift are decoded once for both pixels. The fast loop serves layers
 * clamped to the whole int8 range (no fused activation narrower than it), channel by channel with the shift in
 * [1, FG_FAST_RIGHT_SHIFT]; the rest takes fg_requantize_channel_s8. */
FG_HOT_LOOP void fg_requantize_pair_s8(const fg_requant_params *q, const uint32_t *acc0, const uint32_t *acc1,
                                       int32_t first, int32_t count, int8_t *out0, int8_t *out1) {
    const int32_t step = q->per_channel ? 1 : 0;
    const int32_t *multiplier = q->multipliers + first * step, *shift = q->shifts + first * step;
    const int32_t offset = q->output_offset;
    const int whole_range = q->activation_min == -128 && q->activation_max == 127;
    for (int32_t k = 0; k < count; ++k, multiplier += step, shift += step) {
        const int32_t left = *shift > 0 ? *shift : 0, right = left - *shift;
        if (!whole_range || right == 0 || right > FG_FAST_RIGHT_SHIFT) {
            fg_requantize_slow(q, acc0 + k, acc1 + k, first + k, out0 + k, out1 != NULL ? out1 + k : NULL);
            continue;
        }
        const int32_t nudge = (int32_t)1 << (right - 1), m = *multiplier;
        out0[k] = (int8_t)fg_saturate_8(fg_scaled_fast(acc0[k], left, m, right, nudge) + offset);
        if (out1 != NULL) {
            out1[k] = (int8_t)fg_saturate_8(fg_scaled_fast(acc1[k], left, m, right, nudge) + offset);
        }
    }
}

void fg_requantize_run_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                          int8_t *output) {
    fg_requantize_pair_s8(q, acc, acc, first, count, output, NULL);
}
