"""ADD_N (int8, inputs of one shape and one quantization): bit-exact against TFLM, TFLM's quirks included."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import assert_bit_exact, int8_zero_points, refusal, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def add_n_model(shape: tuple[int, ...], count: int, in_q: tuple[float, int], out_q: tuple[float, int],
                odd_quantization: tuple[float, int] | None = None) -> bytes:
    builder = ModelBuilder("add_n")
    quants = [in_q] * count if odd_quantization is None else [in_q] * (count - 1) + [odd_quantization]
    xs = [builder.input(f"x{k}", shape, "int8", scale=s, zero_point=z) for k, (s, z) in enumerate(quants)]
    y = builder.tensor("y", shape, "int8", scale=out_q[0], zero_point=out_q[1])
    builder.operator("ADD_N", inputs=xs, outputs=[y])
    builder.output(y)
    return builder.build()


scales = st.floats(min_value=-10.0, max_value=0.0).map(lambda e: float(np.float32(2.0**e)))


@settings(max_examples=8, deadline=None)
@given(shape=shapes(1, 4, max_side=6), count=st.integers(2, 4), in_scale=scales, in_zero_point=int8_zero_points,
       factor=st.floats(-3.0, 3.0), out_zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_add_n_is_bit_exact(shape, count, in_scale, in_zero_point, factor, out_zero_point, seed):
    out_scale = float(np.float32(in_scale * count * 2.0**factor))
    assert_bit_exact(add_n_model(shape, count, (in_scale, in_zero_point), (out_scale, out_zero_point)), seed=seed)


def test_tabulated_path_is_bit_exact():
    # 1024 elements take the path that tabulates the shared rescaling (every input byte occurs) and the fast output
    # stage.
    assert_bit_exact(add_n_model((1, 16, 8, 8), 3, (0.05, 3), (0.15, 3)), seed=4)


def test_inputs_of_another_quantization_are_refused():
    message = refusal(add_n_model((2, 3), 3, (0.1, 0), (0.2, 0), odd_quantization=(0.1, 4)))
    assert "operator 0" in message and "input 3" in message and "one quantization for all inputs" in message
