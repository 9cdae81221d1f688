"""SUB, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM (int8, with broadcasting up to 6-D): bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from binary_models import binary_model, broadcast_operands
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from validated import assert_bit_exact, refusal

OPCODES = ["SUB", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM"]
EXAMPLES_PER_OPCODE = 5


scales = st.floats(min_value=-10.0, max_value=0.0).map(lambda e: float(np.float32(2.0**e)))
zero_points = st.integers(-128, 127)


@st.composite
def binary_cases(draw: st.DrawFn, opcode: str) -> dict:
    shapes, scale1, scale2, out_scale = draw(broadcast_operands(opcode, scales))
    return {
        "shapes": shapes,
        "quants": ((scale1, draw(zero_points)), (scale2, draw(zero_points)), (out_scale, draw(zero_points))),
        "activation": draw(st.sampled_from(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])) if opcode == "SUB" else "NONE",
        "constant": draw(st.sampled_from([None, 0, 1])),
        "seed": draw(st.integers(0, 2**16)),
    }


@pytest.mark.parametrize("opcode", OPCODES)
@settings(max_examples=EXAMPLES_PER_OPCODE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bit_exact_with_tflm(opcode: str, data: st.DataObject) -> None:
    case = data.draw(binary_cases(opcode))
    assert_bit_exact(binary_model(opcode, **case), seed=case["seed"])


def test_sub_multipliers_are_derived_in_double_precision():
    # With float32 arithmetic (as one TFLM revision of sub_common.cc has it) 45 of these 4096 outputs differ by 1.
    shape = (1, 16, 16, 16)
    assert_bit_exact(binary_model("SUB", (shape, shape), ((0.05, 3), (0.04, -5), (0.06, -2))), seed=0)


def test_tabulated_sub_broadcasts_and_clamps_bit_exact():
    # 4096 outputs take SUB's tabulated path (ADD's tables, the second one negated); a broadcast row and RELU6 take
    # its strided, clamping loop.
    shapes = ((1, 16, 16, 16), (1, 1, 1, 16))
    assert_bit_exact(binary_model("SUB", shapes, ((0.05, 3), (0.04, -5), (0.03, -128)), activation="RELU6"), seed=2)


@pytest.mark.parametrize("opcode", OPCODES)
def test_six_dimensional_broadcasting_is_bit_exact(opcode: str) -> None:
    # Older TFLM sources walk SQUARED_DIFFERENCE in 4-D and SUB, MAXIMUM, MINIMUM in 5-D; the installed one in 6-D.
    shapes = ((2, 1, 3, 1, 2, 1), (1, 2, 1, 2, 1, 3))
    assert_bit_exact(binary_model(opcode, shapes, ((0.05, 3), (0.02, -7), (0.06, 5))), seed=1)


def test_broadcasting_that_needs_more_than_six_loops_is_refused() -> None:
    shapes = ((2, 1, 3, 1, 2, 1, 2), (1, 2, 1, 2, 1, 3, 1))
    message = refusal(binary_model("SQUARED_DIFFERENCE", shapes, ((0.05, 3), (0.02, -7), (0.06, 5))))
    assert "operator 0" in message and "needs 7 nested loops; at most 6 are supported" in message
