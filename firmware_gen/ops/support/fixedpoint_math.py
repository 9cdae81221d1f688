"""gemmlowp's fixed-point transcendental functions on Python ints, bit for bit as
runtime_c/include/fg/support/fixedpoint_math.h
and TFLite Micro compute them; used at generation time to fill the 256-entry tables of int8 activations.

A value in "Qm" has m integer bits and 31 - m fractional bits in an int32 (real = raw / 2^(31 - m)).
"""

from __future__ import annotations

from firmware_gen.ops.support.fixedpoint import (
    INT32_MAX,
    INT32_MIN,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
    wrap_int32,
)

Q0_ONE = INT32_MAX
_EXP_OF_MINUS_POT = (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)  # exp(-2^k), k = -2..4
_Q2_48_OVER_17 = 1515870810
_Q2_MINUS_32_OVER_17 = -1010580540


def fx_mul(a: int, b: int) -> int:
    return saturating_rounding_doubling_high_mul(a, b)


def fx_add(a: int, b: int) -> int:
    return wrap_int32(a + b)


def fx_sub(a: int, b: int) -> int:
    return wrap_int32(a - b)


def saturating_rounding_mul_by_pot(x: int, exponent: int) -> int:
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    if exponent == 0:
        return x
    threshold = (1 << (31 - exponent)) - 1
    if x > threshold:
        return INT32_MAX
    if x < -threshold:
        return INT32_MIN
    return wrap_int32(x << exponent)


def rescale(x: int, src_integer_bits: int, dst_integer_bits: int) -> int:
    return saturating_rounding_mul_by_pot(x, src_integer_bits - dst_integer_bits)


def _rounding_half_sum(a: int, b: int) -> int:
    total = a + b
    sign = 1 if total >= 0 else -1
    return sign * (abs(total + sign) // 2)


def _exp_on_interval_between_negative_one_quarter_and_0_excl(a: int) -> int:
    exp_minus_one_eighth, one_third = 1895147668, 715827883
    x = fx_add(a, 1 << 28)
    x2 = fx_mul(x, x)
    x3 = fx_mul(x2, x)
    x4_over_4 = saturating_rounding_mul_by_pot(fx_mul(x2, x2), -2)
    polynomial = saturating_rounding_mul_by_pot(fx_add(fx_mul(fx_add(x4_over_4, x3), one_third), x2), -1)
    return fx_add(exp_minus_one_eighth, fx_mul(exp_minus_one_eighth, fx_add(x, polynomial)))


def exp_on_negative_values(a: int, integer_bits: int) -> int:
    """exp(a) for a <= 0 in Q(integer_bits); the result in Q0."""
    fractional_bits = 31 - integer_bits
    one_quarter = 1 << (fractional_bits - 2)
    a_mod_quarter_minus_one_quarter = fx_sub(a & (one_quarter - 1), one_quarter)
    result = _exp_on_interval_between_negative_one_quarter_and_0_excl(
        rescale(a_mod_quarter_minus_one_quarter, integer_bits, 0))
    remainder = fx_sub(a_mod_quarter_minus_one_quarter, a)
    for exponent in range(-2, 5):
        if integer_bits > exponent and remainder & (1 << (fractional_bits + exponent)):
            result = fx_mul(result, _EXP_OF_MINUS_POT[exponent + 2])
    if integer_bits > 5 and a < -(1 << (36 - integer_bits)):
        result = 0
    return Q0_ONE if a == 0 else result


def _newton_raphson_reciprocal_q2(half_denominator: int) -> int:
    """1 / half_denominator in Q2 (gemmlowp's three Newton-Raphson iterations)."""
    x = fx_add(_Q2_48_OVER_17, fx_mul(half_denominator, _Q2_MINUS_32_OVER_17))
    for _ in range(3):
        one_minus_half_denominator_times_x = fx_sub(1 << 29, fx_mul(half_denominator, x))
        x = fx_add(x, rescale(fx_mul(x, one_minus_half_denominator_times_x), 4, 2))
    return x


def one_minus_x_over_one_plus_x_for_x_in_0_1(a: int) -> int:
    x = _newton_raphson_reciprocal_q2(_rounding_half_sum(a, Q0_ONE))
    return rescale(fx_sub(x, 1 << 29), 2, 0)


def one_over_one_plus_x_for_x_in_0_1(a: int) -> int:
    x = _newton_raphson_reciprocal_q2(_rounding_half_sum(a, Q0_ONE))
    return rescale(x, 1, 0)  # gemmlowp's ExactMulByPot<-1> (Q2 read as Q1), then Rescale<0>


def logistic(a: int, integer_bits: int) -> int:
    """1 / (1 + exp(-a)) for a in Q(integer_bits); the result in Q0."""
    if a == 0:
        return 1 << 30
    positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(-abs(a), integer_bits))
    return positive if a > 0 else fx_sub(Q0_ONE, positive)


def tanh(a: int, integer_bits: int) -> int:
    """tanh(a) for a in Q(integer_bits); the result in Q0."""
    if a == 0:
        return 0
    minus_abs = a if a < 0 else fx_sub(0, a)
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(minus_abs, integer_bits + 1))
    return fx_sub(0, t) if a < 0 else t


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
        x3 = saturating_rounding_mul_by_pot(mul(mul(x, x), x), 6)  # F9 -> F3
        x = saturating_rounding_mul_by_pot(wrap_int32(mul(half_three, x) - mul(half_input, x3)), 3)  # F6 -> F3
    x = mul(x, 1518500250)  # * sqrt(2) / 2 in F0
    if shift < 0:
        x, shift = wrap_int32(x << -shift), 0
    return x, shift * reverse_shift
