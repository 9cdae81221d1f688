/* The Armv7-M output stage of the fast kernels: an int32 accumulator through TFLite's MultiplyByQuantizedMultiplier
 * for a right shift, plus the output zero point, saturated to int8, with one SMLAL. */
#ifndef FG_REQUANTIZE_FAST_H
#define FG_REQUANTIZE_FAST_H

#include <stdint.h>

#include "fg/support/requantize.h"

/* The fast output stage: fg_multiply_by_quantized_multiplier for a right shift r in [2, 31] (shift = -r) as one
 * 64-bit sum. With T = acc * multiplier + 2^30, TFLite's high product is floor(T / 2^31) and its rounding division
 * by 2^r adds 2^(r-1) minus one below zero; the floors compose, so the result is
 * (T + 2^(30+r) - 2^31 * [acc < 0]) >> (31 + r) (the test on acc instead of T differs only for T = 0, where both give
 * 0). The sum starts at words low = 2^30 + 2^31 * [acc < 0], high = 2^(r-2) - [acc < 0]: one SMLAL, then the high
 * word shifted right by r - 1 (|acc * multiplier| < 2^62 keeps the high word within 2^30 + 2^29). */
typedef struct {
    int32_t multiplier;
    int32_t high;   /* 2^(r-2) */
    int32_t shift;  /* r - 1 */
} fg_fast_channel;

/* The fast constants of a channel whose shift is known to be a right shift in [2, 31]. */
static inline fg_fast_channel fg_fast_channel_right(int32_t multiplier, int32_t shift) {
    const uint32_t right = (uint32_t)-shift;
    const fg_fast_channel c = {multiplier, (int32_t)((1u << right) >> 2), (int32_t)right - 1};
    return c;
}

/* The fast constants of one channel; 0 when its shift is not a right shift in [2, 31]. */
static inline int fg_fast_channel_of(int32_t multiplier, int32_t shift, fg_fast_channel *c) {
    if ((uint32_t)-shift - 2u > 29u) {
        return 0;
    }
    *c = fg_fast_channel_right(multiplier, shift);
    return 1;
}

#if defined(__arm__) && defined(__thumb2__)
/* fg_fast_output in Thumb-2: the accumulator in %[a], the channel's multiplier, high and shift in %[m], %[h0], %[e],
 * the zero point in %[z]; the int8 output lands in %[hi] (%[lo] a temporary). */
#define FG_FAST_OUTPUT_ASM                                                  \
    FG_FAST_PRODUCT_OPERANDS("%[lo]", "%[hi]", "%[a]", "%[m]", "%[h0]")    \
    FG_FAST_FINISH_OPERANDS("%[hi]", "%[e]", "%[z]")
/* Its two halves on the operands named: the 64-bit sum (h0 may be hi: it is read first), then the int8 result. */
#define FG_FAST_PRODUCT_OPERANDS(lo, hi, a, m, h0)  \
    "and " lo ", " a ", #0x80000000\n\t"          \
    "orr " lo ", " lo ", #0x40000000\n\t"         \
    "add " hi ", " h0 ", " a ", asr #31\n\t"       \
    "smlal " lo ", " hi ", " a ", " m "\n\t"
#define FG_FAST_FINISH_OPERANDS(hi, e, z)           \
    "asr " hi ", " hi ", " e "\n\t"                \
    "add " hi ", " hi ", " z "\n\t"                \
    "ssat " hi ", #8, " hi "\n\t"
#endif

static inline int8_t fg_fast_output(uint32_t acc, const fg_fast_channel *c, int32_t offset) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t low, high;
    __asm__(FG_FAST_OUTPUT_ASM
            : [lo] "=&r"(low), [hi] "=&r"(high)
            : [a] "r"(acc), [m] "r"(c->multiplier), [h0] "r"(c->high), [e] "r"(c->shift), [z] "r"(offset));
    return (int8_t)high;
#elif defined(__ARM_ARCH_6M__)
    /* No long multiply: TFLite's two steps, the high product from 16-bit halves (fg/support/fixedpoint.h). */
    const int32_t high = fg_rounding_divide_by_pot(fg_high_mul_halves(fg_wrapped_i32(acc), c->multiplier),
                                                   (int)c->shift + 1);
    return (int8_t)fg_clamp_i32(high + offset, -128, 127);
#else
    const int64_t below_zero = (int64_t)(acc >> 31);
    const int64_t start = (int64_t)c->high * 4294967296LL + 1073741824LL - below_zero * 2147483648LL;
    const int32_t high = (int32_t)((start + (int64_t)fg_wrapped_i32(acc) * c->multiplier) >> 32) >> c->shift;
    return (int8_t)fg_clamp_i32(high + offset, -128, 127);
#endif
}

/* The output stage of a layer whose output zero point is -128 and clamp all of int8 (ReLU's), for a right shift r in
 * [1, 23] and an accumulator a = bias + sum that does not wrap: the fast stage without its terms for a < 0 (those
 * outputs clamp to -128 either way, as the exact ones do) is floor((a * M + 2^30 + 2^(30+r)) / 2^(31+r)) - 128, one
 * SMLAL from the channel's 64-bit start bias * M + 2^30 + 2^(30+r) - 2^(38+r) by the sum, then the high word
 * shifted right by r - 1 and saturated. A channel of multiplier 0 outputs -128 with the start of bias 0 and r = 2. */
typedef struct {
    uint32_t start_low;
    int32_t start_high;
    int32_t multiplier, shift;  /* shift: r - 1 */
} fg_floor_channel;

static inline int8_t fg_floor_output(int32_t sum, const fg_floor_channel *c) {
    const int64_t start = (int64_t)(((uint64_t)(uint32_t)c->start_high << 32) | c->start_low);
    const int32_t high = (int32_t)((start + (int64_t)sum * c->multiplier) >> 32) >> c->shift;
    return (int8_t)fg_clamp_i32(high, -128, 127);
}

#endif /* FG_REQUANTIZE_FAST_H */
