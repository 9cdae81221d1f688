"""LOGISTIC, TANH, LEAKY_RELU, RELU, RELU6 and ABS on int16 tensors (16x8 models): bit-exact against TFLM on every
int16 input;
HARD_SWISH, for which TFLite Micro has no int16 kernel, and what TFLM's Prepare refuses are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rounding_cases import ALL_INT16
from validated import MAX_EXAMPLES, assert_bit_exact, refusal

from firmware_gen.check.oracle import run_tflm
from firmware_gen.errors import UserError
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.activation.activations_16x8 import sigmoid_input_scaling

Q15 = 2.0**-15
# Every 7th int16 (odd and even, both ends): one firmware build tries all cases side by side within TFLM's arena.
INT16_SWEEP = np.concatenate([np.arange(-32768, 32767, 7), [32767]]).astype(np.int16).reshape(1, -1)


def unary_16x8(opcode: str, shape: tuple[int, ...], input_scale: float, output_scale: float = Q15,
               options: dict | None = None, output_zero_point: int = 0) -> bytes:
    return side_by_side_16x8(shape, [(opcode, input_scale, output_scale, options or {})], output_zero_point)


def side_by_side_16x8(shape: tuple[int, ...], cases: list[tuple[str, float, float, dict]],
                      output_zero_point: int = 0) -> bytes:
    """One model, one firmware build: each (opcode, input scale, output scale, options) on an input of its scale."""
    b = ModelBuilder("unary_16x8")
    inputs: dict[float, int] = {}
    for n, (opcode, input_scale, output_scale, options) in enumerate(cases):
        if input_scale not in inputs:
            inputs[input_scale] = b.input(f"x{len(inputs)}", shape, "int16", scale=input_scale)
        x = inputs[input_scale]
        y = b.tensor(f"y{n}", shape, "int16", scale=output_scale, zero_point=output_zero_point)
        b.operator(opcode, [x], [y], options)
        b.output(y)
    return b.build()


# 2^-12 and 2^-11 take TFLM's power-of-two path; 8.0 makes its int32 product wrap. A few cases per model (each one
# firmware build) keep the memory planner's search short.
SIGMOID_SCALES = [(2.0**-12, 2.0**-11), (2.0**-10, 0.001), (3e-5, 8.0)]
LEAKY_CASES = [(0.01, 0.02, 0.2), (1.0, 1.0, -0.5), (2e-4, 0.1, 3.0)]
# RELU and ABS: scaled down, up (saturating) and not at all; RELU6: six at 600, beyond int16 (clamped), and 6.
RELU_CASES = [("RELU", 0.01, 0.02), ("RELU", 1.0, 0.3), ("RELU", 2e-4, 2e-4), ("RELU6", 0.01, 0.01),
              ("RELU6", 1e-4, 0.5), ("RELU6", 1.0, 1.0), ("ABS", 0.01, 0.03), ("ABS", 1.0, 0.3), ("ABS", 2e-4, 2e-4)]


@pytest.mark.parametrize("scales", SIGMOID_SCALES)
def test_logistic_and_tanh_are_bit_exact_over_the_int16_range(scales):
    cases = [(opcode, scale, Q15, {}) for scale in scales for opcode in ("LOGISTIC", "TANH")]
    assert_bit_exact(side_by_side_16x8(INT16_SWEEP.shape, cases), [INT16_SWEEP] * len(scales))


def test_leaky_relu_is_bit_exact_over_the_int16_range():
    cases = [("LEAKY_RELU", in_scale, out_scale, {"alpha": alpha}) for in_scale, out_scale, alpha in LEAKY_CASES]
    assert_bit_exact(side_by_side_16x8(INT16_SWEEP.shape, cases), [INT16_SWEEP] * len(cases))


# Scales and alphas whose multipliers differ in their last bits between float32 arithmetic and TFLM's double: in
# float32 (the kernel before the fix) 7 and 2 of the 65,536 outputs were off by 1.
LEAKY_DOUBLE_CASES = [(0.0066339182667434216, 0.0013524781679734588, 0.3),
                      (0.04782650247216225, 0.6094836592674255, 0.25403210520744324)]


def test_leaky_relu_multipliers_are_tflm_double_quotients_on_every_int16():
    cases = [("LEAKY_RELU", in_scale, out_scale, {"alpha": alpha}) for in_scale, out_scale, alpha in LEAKY_DOUBLE_CASES]
    assert_bit_exact(side_by_side_16x8(ALL_INT16.shape, cases), [ALL_INT16] * len(cases))


def test_logistic_takes_the_general_path_near_two_to_the_minus_11():
    # 2^-11 (1 - 2^-24) is a power of two within CheckedLog2's tolerance: TANH multiplies by 6, LOGISTIC's Prepare
    # (left shift 0 only) rescales by 24576 >> 12 instead, which differed in 3,831 outputs.
    scale = float(np.float32(2.0**-11 * (1 - 2.0**-24)))
    cases = [(opcode, scale, Q15, {}) for opcode in ("LOGISTIC", "TANH")]
    assert_bit_exact(side_by_side_16x8(ALL_INT16.shape, cases), [ALL_INT16])


def test_relu_relu6_and_abs_are_bit_exact_over_the_int16_range():
    cases = [(opcode, in_scale, out_scale, {}) for opcode, in_scale, out_scale in RELU_CASES]
    assert_bit_exact(side_by_side_16x8(INT16_SWEEP.shape, cases), [INT16_SWEEP] * len({c[1] for c in cases}))


def test_int8_leaky_relu_rounds_halves_of_a_negative_alpha_as_tflm():
    b = ModelBuilder("leaky_int8")
    x = b.input("x", (1, 256), "int8", scale=1.0)
    y = b.tensor("y", (1, 256), "int8", scale=1.0)
    b.operator("LEAKY_RELU", [x], [y], {"alpha": -0.5})
    b.output(y)
    assert_bit_exact(b.build(), [np.arange(-128, 128, dtype=np.int8).reshape(1, 256)])


@settings(max_examples=max(MAX_EXAMPLES // 8, 1), deadline=None)
@given(opcode=st.sampled_from(["LOGISTIC", "TANH", "LEAKY_RELU", "RELU", "RELU6", "ABS"]),
       shape=st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple),
       log_scale=st.floats(-5, 0.5), seed=st.integers(0, 99))
def test_random_shapes_and_scales_are_bit_exact(opcode, shape, log_scale, seed):
    output_scale = Q15 if opcode in ("LOGISTIC", "TANH") else 10**log_scale / 3
    assert_bit_exact(unary_16x8(opcode, shape, 10**log_scale, output_scale, {"alpha": 0.3}), seed=seed)


def test_input_scaling_follows_tflm_prepare():
    assert sigmoid_input_scaling(2.0**-12) == (3, 0)
    assert sigmoid_input_scaling(2.0**-11) == (6, 0)
    assert sigmoid_input_scaling(2.0**-11, power_of_two_shifts=(0,)) == (6 << 12, 12)  # LOGISTIC
    # 2^-10 * 12288 = 12: doubled while at most 32767 / 2, i.e. 11 times.
    assert sigmoid_input_scaling(2.0**-10) == (12 << 11, 11)
    with pytest.raises(ValueError):
        sigmoid_input_scaling(1e-15)


@pytest.mark.parametrize("opcode, change, words", [
    ("LOGISTIC", {"output_scale": 2.0**-14}, "2^-15"),
    ("TANH", {"output_scale": 0.001}, "2^-15"),
    ("TANH", {"output_zero_point": 3}, "zero point 3"),
    ("HARD_SWISH", {}, "no int16 HARD_SWISH"),
])
def test_what_tflm_refuses_is_refused_in_one_line(opcode, change, words):
    model = unary_16x8(opcode, (1, 4), 0.01, **change)
    message = refusal(model)
    assert words in message and "operator 0" in message and "\n" not in message
    with pytest.raises(UserError):
        run_tflm(model, [np.zeros((1, 4), np.int16)], 2)
