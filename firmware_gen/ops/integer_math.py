"""TFLite's integer fixed-point arithmetic in Python (the rules of runtime_c/include/fg/fixedpoint.h), for tables
computed at generation time: an int8 -> int8 function has 256 values, so the compiler evaluates TFLM's integer
formula on each of them once and the device only looks the answer up."""

from __future__ import annotations

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def wrap_int32(value: int) -> int:
    """Two's-complement wrap-around, as int32 arithmetic on the device."""
    return (value + 2**31) % 2**32 - 2**31


def saturating_rounding_doubling_high_mul(a: int, b: int) -> int:
    if a == b == INT32_MIN:
        return INT32_MAX
    return (a * b + (1 << 30)) >> 31


def rounding_divide_by_pot(x: int, exponent: int) -> int:
    """x / 2^exponent rounded to nearest, ties away from zero."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def saturating_rounding_multiply_by_pot(x: int, exponent: int) -> int:
    """gemmlowp's SaturatingRoundingMultiplyByPOT: a saturating left shift, or a rounding right shift."""
    if exponent <= 0:
        return rounding_divide_by_pot(x, -exponent)
    threshold = (1 << (31 - exponent)) - 1
    if x > threshold:
        return INT32_MAX
    if x < -threshold:
        return INT32_MIN
    return x << exponent


def multiply_by_quantized_multiplier(x: int, multiplier: int, shift: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier (double rounding; the left shift wraps like int32)."""
    left, right = max(shift, 0), max(-shift, 0)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(wrap_int32(x << left), multiplier), right)


def inv_sqrt_quantized_multiplier_exp(value: int, reverse_shift: int) -> tuple[int, int]:
    """TFLite's GetInvSqrtQuantizedMultiplierExp: 1 / sqrt(value) as (multiplier, shift), five Newton-Raphson
    steps in gemmlowp fixed point with 3 integer bits."""
    if value <= 1:
        return INT32_MAX, 0
    shift = 11
    while value >= 1 << 29:
        value //= 4
        shift += 1
    pairs = (32 - value.bit_length() - 1) // 2 - 1  # (CountLeadingZeros - 1) / 2 - 1
    shift -= pairs
    value <<= 2 * pairs
    half_input = rounding_divide_by_pot(value >> 1, 1)
    half_three = (1 << 28) + (1 << 27)
    x = 1 << 28  # F3::One()
    mul = saturating_rounding_doubling_high_mul
    for _ in range(5):
        x3 = saturating_rounding_multiply_by_pot(mul(mul(x, x), x), 6)  # F9 -> F3
        x = saturating_rounding_multiply_by_pot(wrap_int32(mul(half_three, x) - mul(half_input, x3)), 3)  # F6 -> F3
    x = mul(x, 1518500250)  # * sqrt(2) / 2 in F0
    if shift < 0:
        x, shift = wrap_int32(x << -shift), 0
    return x, shift * reverse_shift
