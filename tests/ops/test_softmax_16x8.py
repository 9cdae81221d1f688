"""SOFTMAX on int16 tensors (16x8 models): bit-exact against TFLM; the output quantization TFLM requires is
checked in one line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_activations_16x8 import side_by_side_16x8, unary_16x8
from validated import MAX_EXAMPLES, assert_bit_exact, refusal

from firmware_gen.check.oracle import run_tflm
from firmware_gen.errors import UserError
from firmware_gen.ops.softmax.softmax_16x8 import int16_lut

OUTPUT_SCALE = 1.0 / 32768


def every_difference_rows() -> np.ndarray:
    """Rows pairing values spread over the int16 range with the extremes, with themselves and with zero."""
    values = np.arange(-32768, 32768, 97, dtype=np.int16)
    n = len(values)
    return np.concatenate([
        np.stack([values, np.full(n, 32767, np.int16), np.full(n, -32768, np.int16)], axis=1),
        np.stack([values, values, values], axis=1),
        np.stack([values, np.zeros(n, np.int16), values // 3], axis=1),
    ])


SCALES_AND_BETAS = [(1e-4, 1.0), (2.0**-12, 1.0), (0.001, 0.5), (0.01, 2.0), (1e-6, 1.0), (1.0, 1.0)]


def test_every_difference_is_bit_exact():
    rows = every_difference_rows()
    cases = [("SOFTMAX", scale, OUTPUT_SCALE, {"beta": beta}) for scale, beta in SCALES_AND_BETAS]
    assert_bit_exact(side_by_side_16x8(rows.shape, cases), [rows] * len(cases))


@settings(max_examples=max(MAX_EXAMPLES // 8, 1), deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple), depth=st.integers(1, 40),
       log_scale=st.floats(-5, -1), beta=st.sampled_from([1.0, 0.5, 1.7]), seed=st.integers(0, 99))
def test_random_shapes_scales_and_betas_are_bit_exact(shape, depth, log_scale, beta, seed):
    assert_bit_exact(unary_16x8("SOFTMAX", (*shape, depth), 10**log_scale, OUTPUT_SCALE, {"beta": beta}), seed=seed)


def test_tables_follow_gen_lut():
    exp_lut = int16_lut(lambda x: np.float32(np.exp(np.float64(x))), -10.0, 0.0)
    assert len(exp_lut) == 513 and exp_lut[0] == 2 and exp_lut[-1] == 32767
    reciprocal = int16_lut(lambda x: np.float32(1) / (np.float32(1) + x), 0.0, 1.0)
    assert reciprocal[0] == 32767 and reciprocal[-1] == 16384


@pytest.mark.parametrize("change, words", [({"output_scale": 1.0 / 65536}, "1/32768"),
                                           ({"output_zero_point": 5}, "zero point 5")])
def test_what_tflm_refuses_is_refused_in_one_line(change, words):
    model = unary_16x8("SOFTMAX", (1, 4), 0.01, **{"output_scale": OUTPUT_SCALE, **change})
    message = refusal(model)
    assert words in message and "operator 0" in message and "\n" not in message
    with pytest.raises(UserError):
        run_tflm(model, [np.zeros((1, 4), np.int16)], 2)


def test_an_input_scale_beyond_a_32_bit_shift_is_refused_in_one_line():
    message = refusal(unary_16x8("SOFTMAX", (1, 4), 1e6, OUTPUT_SCALE, {"beta": 1e6}))
    assert "operator 0" in message and "'x0'" in message and "beta" in message and "\n" not in message
