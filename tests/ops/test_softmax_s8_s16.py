"""SOFTMAX with int8 input and int16 output (TFLM: zero point -32768, scale 1/65536): bit-exact against TFLM on
every int8 difference and on random shapes; several quantizations side by side in one firmware build."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_softmax import every_difference_rows
from validated import MAX_EXAMPLES, assert_bit_exact

from firmware_gen.modelgen.writer import ModelBuilder

OUTPUT_SCALE = 1.0 / 65536


def side_by_side_s8_s16(shape: tuple[int, ...], cases: list[tuple[float, int, float]]) -> bytes:
    """One model: for each (input scale, input zero point, beta) an int8 input and its int16 SOFTMAX."""
    b = ModelBuilder("softmax_s8_s16")
    for n, (scale, zero_point, beta) in enumerate(cases):
        x = b.input(f"x{n}", shape, "int8", scale=scale, zero_point=zero_point)
        y = b.tensor(f"y{n}", shape, "int16", scale=OUTPUT_SCALE, zero_point=-32768)
        b.operator("SOFTMAX", [x], [y], {"beta": beta})
        b.output(y)
    return b.build()


def test_every_difference_is_bit_exact():
    rows = every_difference_rows()
    cases = [(0.01, 5, 1.0), (1 / 16, 0, 1.0), (0.25, 3, 0.5), (4.0, 1, 1.0)]
    assert_bit_exact(side_by_side_s8_s16(rows.shape, cases), [rows] * len(cases))


@settings(max_examples=max(MAX_EXAMPLES // 5, 1), deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple), depth=st.integers(1, 40),
       log_scale=st.floats(-3, 1), zero_point=st.integers(-128, 127), beta=st.sampled_from([1.0, 0.5, 1.7]),
       seed=st.integers(0, 99))
def test_random_shapes_scales_and_betas_are_bit_exact(shape, depth, log_scale, zero_point, beta, seed):
    assert_bit_exact(side_by_side_s8_s16((*shape, depth), [(10**log_scale, zero_point, beta)]), seed=seed)
