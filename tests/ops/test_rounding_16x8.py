"""The 16x8 activations on every int16 input, bit-exact against TFLM at the edges of their fixed-point rounding
(rounding_cases.py: ties, multipliers next to 2^30 and 2^31 - 1, shifts at the ends of their ranges). Each example is
one model of a few operators side by side (one host build); FG_ROUNDING_EXAMPLES raises the count for a search."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from rounding_cases import ALL_INT16, Q15, alphas, real_multipliers, scale_pairs, sigmoid_input_scales
from test_activations_16x8 import side_by_side_16x8
from validated import assert_bit_exact

EXAMPLES = int(os.environ.get("FG_ROUNDING_EXAMPLES", "10"))
CASES_PER_MODEL = 2  # TFLM keeps every tensor (four of 128 KiB) in its 1 MiB arena
# SOFTMAX's rows: each a stride-256 walk over the int16 range, so that every row spans both extremes.
SOFTMAX_INPUT = np.ascontiguousarray(ALL_INT16.reshape(256, 256).T)


@st.composite
def leaky_relu_case(draw: st.DrawFn) -> tuple[str, float, float, dict]:
    in_scale, out_scale = draw(scale_pairs(-31, 14))
    return "LEAKY_RELU", in_scale, out_scale, {"alpha": draw(alphas())}


@st.composite
def rescaling_case(draw: st.DrawFn) -> tuple[str, float, float, dict]:
    """RELU and ABS rescale by input scale / output scale; RELU6 clamps at 6 in input steps (6 / input scale must
    fit in int32, or the model is refused)."""
    opcode = draw(st.sampled_from(["RELU", "ABS", "RELU6"]))
    if opcode == "RELU6":
        return opcode, draw(real_multipliers(-28, 4)), Q15, {}
    return (opcode, *draw(scale_pairs(-31, 14)), {})


@st.composite
def sigmoid_case(draw: st.DrawFn) -> tuple[str, float, float, dict]:
    return draw(st.sampled_from(["LOGISTIC", "TANH"])), draw(sigmoid_input_scales()), Q15, {}


def assert_cases_bit_exact(cases: list[tuple[str, float, float, dict]]) -> None:
    model = side_by_side_16x8(ALL_INT16.shape, cases)
    assert_bit_exact(model, [ALL_INT16] * len({case[1] for case in cases}))


SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(st.lists(leaky_relu_case(), min_size=CASES_PER_MODEL, max_size=CASES_PER_MODEL))
@example([("LEAKY_RELU", 0.0066339182667434216, 0.0013524781679734588, {"alpha": 0.3}),  # float32 multipliers
          ("LEAKY_RELU", 0.04782650247216225, 0.6094836592674255, {"alpha": 0.25403210520744324})])
def test_leaky_relu_at_rounding_edges(cases):
    assert_cases_bit_exact(cases)


@SETTINGS
@given(st.lists(rescaling_case(), min_size=CASES_PER_MODEL, max_size=CASES_PER_MODEL))
def test_relu_relu6_and_abs_at_rounding_edges(cases):
    assert_cases_bit_exact(cases)


@SETTINGS
@given(st.lists(sigmoid_case(), min_size=CASES_PER_MODEL, max_size=CASES_PER_MODEL))
@example([("LOGISTIC", 0.00048828122089616954, Q15, {}), ("TANH", 0.00048828122089616954, Q15, {})])  # 2^-11 path
def test_logistic_and_tanh_at_rounding_edges(cases):
    assert_cases_bit_exact(cases)


@SETTINGS
@given(input_scale=st.floats(1e-5, 1.0).map(lambda s: float(np.float32(s))), beta_scaled=real_multipliers(-14, 14))
def test_softmax_at_rounding_edges(input_scale, beta_scaled):
    """beta chosen so that input scale * beta / (10 / 65535), the rescaling multiplier, is an edge multiplier."""
    beta = float(np.float32(beta_scaled * (10.0 / 65535.0) / input_scale))
    from firmware_gen.modelgen.writer import ModelBuilder
    b = ModelBuilder("softmax_16x8")
    x = b.input("x", SOFTMAX_INPUT.shape, "int16", scale=input_scale)
    y = b.tensor("y", SOFTMAX_INPUT.shape, "int16", scale=Q15)
    b.operator("SOFTMAX", [x], [y], {"beta": beta})
    b.output(y)
    assert_bit_exact(b.build(), [SOFTMAX_INPUT])
