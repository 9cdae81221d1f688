/* Fixed-point arithmetic shared by the kernels, with TFLite's rounding rules (gemmlowp semantics).
 * Everything here is static inline and free of global state. */
#ifndef FG_FIXEDPOINT_H
#define FG_FIXEDPOINT_H

#include <stdint.h>

#define FG_INT32_MIN ((int32_t)(-2147483647 - 1))
#define FG_INT32_MAX ((int32_t)2147483647)

static inline int32_t fg_min_i32(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t fg_max_i32(int32_t a, int32_t b) { return a > b ? a : b; }
static inline int32_t fg_clamp_i32(int32_t x, int32_t lo, int32_t hi) { return fg_min_i32(fg_max_i32(x, lo), hi); }

/* Shift left with two's-complement wrap-around (as TFLite's int32 multiply by 1 << shift). */
static inline int32_t fg_shift_left_wrapping(int32_t x, int shift) {
    return (int32_t)((uint32_t)x << shift);
}

/* floor((a * b + 2^30) / 2^31) from 16-bit halves, in 32-bit arithmetic only: Armv6-M has no long multiply, and
 * GCC would call __aeabi_lmul for the 64-bit product. With a = ah 2^16 + al, b = bh 2^16 + bl (ah, bh signed,
 * al, bl unsigned), ab + 2^30 = 2^32 ah bh + 2^16 (ah bl + al bh + (al bl >> 16) + 2^14) + (al bl & 0xFFFF); the
 * low 16 bits cannot carry across a multiple of 2^31, so the result is 2 ah bh + floor(Q / 2^15) with Q the middle
 * sum. Q can exceed int32, so each cross product is split at bit 15 before it is added: every partial sum fits, and
 * the total, taken modulo 2^32, is the true result whenever that fits int32 (all but INT32_MIN * INT32_MIN). */
static inline __attribute__((always_inline)) int32_t fg_high_mul_halves(int32_t a, int32_t b) {
    const int32_t ah = a >> 16, bh = b >> 16;
    const uint32_t al = (uint32_t)a & 0xFFFFu, bl = (uint32_t)b & 0xFFFFu;
    const int32_t cross_a = ah * (int32_t)bl, cross_b = (int32_t)al * bh;
    const uint32_t low = al * bl;
    const uint32_t below = ((uint32_t)cross_a & 0x7FFFu) + ((uint32_t)cross_b & 0x7FFFu) + (low >> 16) + (1u << 14);
    return (int32_t)(2u * (uint32_t)(ah * bh) + (uint32_t)(cross_a >> 15) + (uint32_t)(cross_b >> 15) +
                     (below >> 15));
}

/* round(a * b / 2^31), saturating the single overflow case INT32_MIN * INT32_MIN. */
static inline int32_t fg_saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
    if (a == b && a == FG_INT32_MIN) {
        return FG_INT32_MAX;
    }
#if defined(__ARM_ARCH_6M__) || defined(FG_HIGH_MUL_HALVES)
    return fg_high_mul_halves(a, b);
#endif
    /* TFLite adds 2^30 (1 - 2^30 below zero) and divides by 2^31 rounding toward zero: for every product that is
     * floor((ab + 2^30) / 2^31), an arithmetic shift instead of a signed 64-bit division. */
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31);
}

/* x / 2^exponent, rounding to nearest with ties away from zero. */
static inline int32_t fg_rounding_divide_by_pot(int32_t x, int exponent) {
    int32_t mask = (int32_t)((1u << exponent) - 1u);  /* exponent <= 31 */
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * multiplier * 2^(shift - 31): TFLite's MultiplyByQuantizedMultiplier (double rounding). */
static inline int32_t fg_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
    int left_shift = shift > 0 ? shift : 0;
    int right_shift = shift > 0 ? 0 : -shift;
    return fg_rounding_divide_by_pot(
        fg_saturating_rounding_doubling_high_mul(fg_shift_left_wrapping(x, left_shift), multiplier), right_shift);
}

/* For multipliers below one (shift <= 0). */
static inline int32_t fg_multiply_by_quantized_multiplier_smaller_than_one_exp(int32_t x, int32_t multiplier,
                                                                               int shift) {
    return fg_rounding_divide_by_pot(fg_saturating_rounding_doubling_high_mul(x, multiplier), -shift);
}

/* For multipliers above one (shift >= 0). */
static inline int32_t fg_multiply_by_quantized_multiplier_greater_than_one(int32_t x, int32_t multiplier,
                                                                           int shift) {
    return fg_saturating_rounding_doubling_high_mul(fg_shift_left_wrapping(x, shift), multiplier);
}

/* x * multiplier * 2^(shift - 31) for an int64 x (TFLite's 64-bit MultiplyByQuantizedMultiplier, the 16x8
 * kernels): the multiplier rounded to 16 bits, then a single rounding shift. */
static inline int32_t fg_multiply_by_quantized_multiplier_64(int64_t x, int32_t multiplier, int shift) {
    const int32_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
    const int total_shift = 15 - shift;
    return (int32_t)((x * reduced + ((int64_t)1 << (total_shift - 1))) >> total_shift);
}

static inline int8_t fg_saturate_s8(int32_t x) { return (int8_t)fg_clamp_i32(x, -128, 127); }
static inline int16_t fg_saturate_s16(int32_t x) { return (int16_t)fg_clamp_i32(x, -32768, 32767); }

#endif /* FG_FIXEDPOINT_H */
