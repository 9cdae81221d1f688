"""QUANTIZE between int32 and int8 / int16 (TFLM's Requantize: an application's int32 inputs in, or int32 out):
bit-exact against TFLM at the edges of the rounding (rounding_cases.py), on every int8 or int16 value and on int32
values spread over the whole range, both extremes included, with int8 and int32 zero points anywhere in range."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rounding_cases import ALL_INT16, scale_pairs
from validated import MAX_EXAMPLES, assert_bit_exact

from firmware_gen.modelgen.writer import ModelBuilder

INT32_EXTREMES = np.array([-2**31, -2**31 + 1, -1, 0, 1, 2**31 - 2, 2**31 - 1], dtype=np.int64)
ZERO_POINTS = {"int8": st.integers(-128, 127), "int16": st.just(0),
               "int32": st.one_of(st.just(0), st.integers(-2**31, 2**31 - 1))}
PAIRS = [("int16", "int32"), ("int32", "int16"), ("int8", "int32"), ("int32", "int8")]


def int32_values(seed: int, size: int = 4096) -> np.ndarray:
    """Extremes, small values and a log-uniform spread of magnitudes of both signs."""
    rng = np.random.default_rng(seed)
    magnitudes = np.exp2(rng.uniform(0, 31, size - 64 - INT32_EXTREMES.size)).astype(np.int64)
    values = np.concatenate([INT32_EXTREMES, np.arange(-32, 32), rng.choice([-1, 1], magnitudes.size) * magnitudes])
    return np.clip(values, -2**31, 2**31 - 1).astype(np.int32).reshape(1, -1)


def every_value(dtype: str, seed: int) -> np.ndarray:
    if dtype == "int16":
        return ALL_INT16
    if dtype == "int8":
        return np.arange(-128, 128, dtype=np.int8).reshape(1, -1)
    return int32_values(seed)


def requantization(source: str, target: str, shape: tuple[int, ...], scales: tuple[float, float],
                   zero_points: tuple[int, int]) -> bytes:
    b = ModelBuilder("quantize")
    x = b.input("x", shape, source, scale=scales[0], zero_point=zero_points[0])
    y = b.tensor("y", shape, target, scale=scales[1], zero_point=zero_points[1])
    b.operator("QUANTIZE", [x], [y])
    b.output(y)
    return b.build()


@settings(max_examples=MAX_EXAMPLES // 3, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), pair=st.sampled_from(PAIRS), scales=scale_pairs(-31, 16), seed=st.integers(0, 99))
def test_int32_requantization_is_bit_exact(data, pair, scales, seed):
    source, target = pair
    zero_points = (data.draw(ZERO_POINTS[source]), data.draw(ZERO_POINTS[target]))
    x = every_value(source, seed)
    assert_bit_exact(requantization(source, target, x.shape, scales, zero_points), [x])
