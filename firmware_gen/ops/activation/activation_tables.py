"""The 256-entry tables of the int8 activations whose output depends only on the input byte.

Each function reproduces, on every int8 input, the arithmetic of TFLite Micro's kernel for that operator (its
Prepare in float32/double exactly as the C++ does it, then its per-element integer code), so that one table
lookup on the device is bit-exact with it. A table is indexed by the input byte read as uint8 (entry 0x80 is
input -128), as TFLM's own lookup tables are. Quantization is (scale, zero point); scales are float32 values.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from firmware_gen.ops.activation.activations_16x8 import (
    leaky_relu_multipliers,
    multiply_by_signed_multiplier,
    relu6_six,
    relu_rescaling,
)
from firmware_gen.ops.activation.unary_s8 import float32, input_radius
from firmware_gen.ops.support.fixedpoint import (
    multiply_by_quantized_multiplier,
    quantize_multiplier,
    round_half_away,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
)
from firmware_gen.ops.support.fixedpoint_math import logistic, tanh

INT8_VALUES = range(-128, 128)
Quant = tuple[float, int]


def _f32(value: float) -> np.float32:
    return np.float32(value)


def table_of(per_value: Callable[[int], int]) -> np.ndarray:
    """int8 table indexed by the uint8 view of the input byte; per_value's results are clamped to int8."""
    table = np.zeros(256, dtype=np.int8)
    for value in INT8_VALUES:
        table[value & 0xFF] = min(max(per_value(value), -128), 127)
    return table


def relu_table(source: Quant, result: Quant) -> np.ndarray:
    """RELU: rescale to the output's quantization, clamp below at the output's zero (CalculateReluOpData)."""
    (in_scale, in_zp), (out_scale, out_zp) = source, result
    multiplier, shift = relu_rescaling(in_scale, out_scale)
    low = max(-128, out_zp)
    return table_of(lambda v: max(low, out_zp + multiply_by_quantized_multiplier(v - in_zp, multiplier, shift)))


def relu6_table(source: Quant, result: Quant) -> np.ndarray:
    """RELU6: TFLM clamps the input bytes between the input's 0 and 6 and ignores the output's quantization."""
    in_scale, in_zp = source
    six = relu6_six(in_scale, in_zp, (-128, 127))
    return table_of(lambda v: six if v > six else in_zp if v < in_zp else v)


def leaky_relu_table(source: Quant, result: Quant, alpha: float) -> np.ndarray:
    """LEAKY_RELU on every int8 input."""
    (in_scale, in_zp), (out_scale, out_zp) = source, result
    identity_pair, alpha_pair = leaky_relu_multipliers(in_scale, out_scale, alpha)

    def leaky(v: int) -> int:
        x = v - in_zp
        return out_zp + multiply_by_signed_multiplier(x, *(identity_pair if x >= 0 else alpha_pair))
    return table_of(leaky)


SIGMOID_INPUT_INTEGER_BITS = 4


def logistic_scaling(input_scale: float) -> tuple[int, int, int]:
    """(input_multiplier, input_left_shift, input_range_radius) as TFLite's LOGISTIC and TANH Prepare compute them:
    input_scale * 2^27 split by frexp into a Q31 multiplier and a shift that bring (input - zero_point) to Q4.27, and
    the input radius beyond which the output saturates; ValueError for input scales below 2^-28, where TFLite's
    radius computation shifts by a negative amount."""
    fraction, left_shift = math.frexp(float32(input_scale) * (1 << (31 - SIGMOID_INPUT_INTEGER_BITS)))
    if left_shift < 0:
        raise ValueError(f"input scale {input_scale:g} is below 2^-28")
    multiplier = round_half_away(fraction * (1 << 31))
    return multiplier, left_shift, input_radius(SIGMOID_INPUT_INTEGER_BITS, left_shift)


def _sigmoid_family_table(source: Quant, inside: Callable[[int], int]) -> np.ndarray:
    """LOGISTIC's or TANH's table: -128 or 127 at and beyond TFLite's input radius, else `inside` of the input
    brought to Q4.27 by the Prepare's multiplier and shift."""
    in_scale, in_zp = source
    multiplier, left_shift, radius = logistic_scaling(in_scale)

    def per_value(v: int) -> int:
        x = v - in_zp
        if x <= -radius:
            return -128
        if x >= radius:
            return 127
        return inside(multiply_by_quantized_multiplier(x, multiplier, left_shift))
    return table_of(per_value)


def logistic_table(source: Quant, result: Quant) -> np.ndarray:
    """LOGISTIC: gemmlowp's logistic of the Q4.27 input, output fixed at Q0.8 with zero point -128."""
    return _sigmoid_family_table(
        source, lambda q4: rounding_divide_by_pot(logistic(q4, SIGMOID_INPUT_INTEGER_BITS), 23) - 128)


def tanh_table(source: Quant, result: Quant) -> np.ndarray:
    """TANH: gemmlowp's tanh of the Q4.27 input (as for LOGISTIC), output fixed at Q0.7 (zero point 0)."""
    return _sigmoid_family_table(source, lambda q4: rounding_divide_by_pot(tanh(q4, SIGMOID_INPUT_INTEGER_BITS), 24))


def float_transform_table(source: Quant, result: Quant, transform: Callable[[np.float32], np.float32]) -> np.ndarray:
    """A table filled in float32 as TFLite's PopulateLookupTable / LUTPopulate do: dequantize, transform, multiply
    by 1 / output scale, roundf, add the zero point, truncate to int32, clamp."""
    (in_scale, in_zp), (out_scale, out_zp) = source, result
    inverse_scale = _f32(1.0) / _f32(out_scale)

    def quantized(v: int) -> int:
        scaled = float(np.float32(transform(_f32(in_scale) * _f32(v - in_zp))) * inverse_scale)
        rounded = math.copysign(math.floor(abs(scaled) + 0.5), scaled) if math.isfinite(scaled) else scaled
        total = float(_f32(rounded) + _f32(out_zp))
        if math.isnan(total):
            raise ValueError(f"output scale {out_scale:g} makes the table undefined (NaN)")
        return int(min(max(total, -2.0**31), 2.0**31 - 1))  # C's float -> int32 conversion is UB beyond
    return table_of(quantized)


def _elu(x: np.float32) -> np.float32:
    with np.errstate(over="ignore"):
        return np.float32(np.exp(x) - _f32(1.0)) if x < 0 else x


def elu_table(source: Quant, result: Quant) -> np.ndarray:
    """ELU: TFLM fills its own table in float32 (PopulateLookupTable with exp(x) - 1 below zero)."""
    return float_transform_table(source, result, _elu)


_SQRT_HALF = float(np.sqrt(0.5))
_SQRT_2_OVER_PI = _f32(2.0 / math.sqrt(math.pi) * math.sqrt(0.5))


def _gelu(x: np.float32) -> np.float32:
    """0.5 x erfc(-x / sqrt(2)) in float32 (LiteRT's GeluTransform); erfc in double, rounded to float32."""
    return _f32(_f32(0.5) * x) * _f32(math.erfc(float(x * _f32(-_SQRT_HALF))))


def _gelu_approximate(x: np.float32) -> np.float32:
    """0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) in float32 (LiteRT's GeluTransformApproximate)."""
    cubic = _f32(_f32(_f32(0.044715) * x) * x) * x
    return _f32(_f32(0.5) * x) * (_f32(1.0) + _f32(math.tanh(float(_SQRT_2_OVER_PI * (x + cubic)))))


def gelu_table(source: Quant, result: Quant, approximate: bool) -> np.ndarray:
    """GELU: LiteRT's int8 kernel is a table filled in float32 (TFLite Micro has no GELU kernel)."""
    return float_transform_table(source, result, _gelu_approximate if approximate else _gelu)


def _int16_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier, then DownScaleInt32ToInt16Multiplier (rounded to the upper 16 bits)."""
    multiplier, exponent = quantize_multiplier(real)
    if multiplier >= 2**31 - 1 - (1 << 15):
        return 32767, exponent
    return (multiplier + (1 << 15)) >> 16, exponent


def hard_swish_parameters(source: Quant, result: Quant) -> tuple[int, int, int, int]:
    """(output multiplier, output exponent, reluish multiplier, reluish exponent), int16 multipliers, as
    HardSwishPrepare computes them; TFLM refuses an output exponent above 0."""
    hires_input_scale = _f32(1.0 / 128.0) * _f32(source[0])
    output = _int16_multiplier(float(hires_input_scale / _f32(result[0])))
    reluish = _int16_multiplier(float(hires_input_scale / (_f32(3.0) / _f32(32768.0))))
    return (*output, *reluish)


def _saturating_left_shift_int16(value: int, amount: int) -> int:
    return min(max(value * (1 << amount), -32768), 32767)


def _wrap_int16(value: int) -> int:
    return (value + 2**15) % 2**16 - 2**15


def _rounding_divide_by_pot_int16(x: int, exponent: int) -> int:
    """gemmlowp's RoundingDivideByPOT on int16 lanes: the mask is (2^exponent - 1) cut to 16 bits."""
    mask = _wrap_int16((1 << exponent) - 1)
    threshold = _wrap_int16((mask >> 1) + (1 if x < 0 else 0))
    return _wrap_int16((x >> exponent) + (1 if _wrap_int16(x & mask) > threshold else 0))


def hard_swish_table(source: Quant, result: Quant) -> np.ndarray:
    """HARD_SWISH: TFLite's 16-bit fixed-point x * relu6(x + 3) / 6 (reference_ops::HardSwish), per input byte."""
    in_zp, out_zp = source[1], result[1]
    out_multiplier, out_exponent, reluish_multiplier, reluish_exponent = hard_swish_parameters(source, result)

    def hard_swish(v: int) -> int:
        hires = (v - in_zp) * 128
        preshift_output = saturating_rounding_doubling_high_mul(hires, out_multiplier, bits=16)
        reluish = hires
        if reluish_exponent > 0:
            reluish = _saturating_left_shift_int16(reluish, reluish_exponent - 1)
        reluish = saturating_rounding_doubling_high_mul(reluish, reluish_multiplier, bits=16)
        if reluish_exponent > 0:
            reluish = _saturating_left_shift_int16(reluish, 1)
        if reluish_exponent < 0:
            reluish = _rounding_divide_by_pot_int16(reluish, -reluish_exponent)
        reluish = (reluish + (1 << 15)) >> 1
        product = reluish * preshift_output  # SaturatingDoublingHighMul: truncating, not rounding
        doubled_high = 32767 if reluish == preshift_output == -32768 else _wrap_int16(int(product / (1 << 15)))
        return _wrap_int16(_rounding_divide_by_pot_int16(doubled_high, -out_exponent) + out_zp)
    return table_of(hard_swish)
