"""Generation-time fixed-point arithmetic, with TFLite's exact rounding rules.

Kernels on the device never see a float scale: every real multiplier is turned here into a Q31
multiplier and a power-of-two shift, and fused activations into integer clamp bounds.
"""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.errors import UnsupportedModelError

INT_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767), "int32": (-(2**31), 2**31 - 1)}


def round_half_away(x: float) -> int:
    """std::round: halves go away from zero (Python's round() goes to even)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


class MultiplierOutOfRange(UnsupportedModelError):
    """A real multiplier (from the scales of an operator's tensors) that no Q31 multiplier and shift can hold."""


def quantize_multiplier(real_multiplier: float) -> tuple[int, int]:
    """(q31 multiplier, shift) with real = multiplier * 2**(shift - 31); shift > 0 is a left shift."""
    if real_multiplier == 0.0:
        return 0, 0
    if not math.isfinite(real_multiplier) or abs(real_multiplier) >= 2.0 ** 31:
        raise MultiplierOutOfRange(f"the scales of its tensors give a multiplier of {real_multiplier:g}, "
                                   "beyond what a 32-bit shift can hold")
    fraction, shift = math.frexp(real_multiplier)
    q_fixed = round_half_away(fraction * (1 << 31))
    if q_fixed == 1 << 31:
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q_fixed, shift


def quantize_multiplier_smaller_than_one_exp(real_multiplier: float) -> tuple[int, int]:
    """As quantize_multiplier, for 0 < real_multiplier < 1 (the shift is <= 0)."""
    multiplier, shift = quantize_multiplier(real_multiplier)
    if shift > 0:
        raise ValueError(f"multiplier {real_multiplier} is not smaller than one")
    return multiplier, shift


def quantize_multiplier_greater_than_one(real_multiplier: float) -> tuple[int, int]:
    multiplier, shift = quantize_multiplier(real_multiplier)
    if shift < 0:
        raise ValueError(f"multiplier {real_multiplier} is not greater than one")
    return multiplier, shift


def quantize_multipliers(real_multipliers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel quantize_multiplier: two int32 arrays."""
    pairs = [quantize_multiplier(float(m)) for m in np.asarray(real_multipliers, dtype=np.float64).ravel()]
    return (np.array([p[0] for p in pairs], dtype=np.int32), np.array([p[1] for p in pairs], dtype=np.int32))


def activation_range(activation: str, scale: float, zero_point: int, dtype: str = "int8") -> tuple[int, int]:
    """Integer clamp bounds of a fused activation on a quantized output (TFLite's
    CalculateActivationRangeQuantized: the real bound is divided by the scale in single precision)."""
    qmin, qmax = INT_RANGES[dtype]

    def quantize(real: float) -> int:
        return zero_point + round_half_away(float(np.float32(real) / np.float32(scale)))

    if activation == "NONE":
        return qmin, qmax
    if activation == "RELU":
        return max(qmin, quantize(0.0)), qmax
    if activation == "RELU6":
        return max(qmin, quantize(0.0)), min(qmax, quantize(6.0))
    if activation == "RELU_N1_TO_1":
        return max(qmin, quantize(-1.0)), min(qmax, quantize(1.0))
    raise UnsupportedModelError(f"fused activation {activation} is not supported (NONE, RELU, RELU6, RELU_N1_TO_1)")


# ---- TFLite's integer helpers on Python ints, for tables computed at generation time (activations, issue 15) ----

INT32_MIN, INT32_MAX = INT_RANGES["int32"]


def wrap_int32(x: int) -> int:
    """Two's-complement wrap-around to int32 (the C kernels' unsigned arithmetic)."""
    return (x + 2**31) % 2**32 - 2**31


def saturating_rounding_doubling_high_mul(a: int, b: int, bits: int = 32) -> int:
    """gemmlowp's SaturatingRoundingDoublingHighMul for int32 (bits=32) or int16 (bits=16) operands."""
    low = -(1 << (bits - 1))
    if a == b == low:
        return -low - 1
    product = a * b
    nudge = 1 << (bits - 2) if product >= 0 else 1 - (1 << (bits - 2))
    quotient = abs(product + nudge) >> (bits - 1)  # C's division rounds toward zero
    return quotient if product + nudge >= 0 else -quotient


def rounding_divide_by_pot(x: int, exponent: int) -> int:
    """gemmlowp's RoundingDivideByPOT: x / 2^exponent, ties away from zero."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def multiply_by_quantized_multiplier(x: int, multiplier: int, shift: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier (double rounding), x an int32."""
    left, right = max(shift, 0), max(-shift, 0)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(wrap_int32(x << left), multiplier), right)
