"""The float operators the TFLite converter leaves between DEQUANTIZE and QUANTIZE in an otherwise int8 model
(a Keras LayerNormalization's NEG, an unrolled GRU's SPLIT), bit-exact against TFLM, and NEG of int8 refused
(TFLM has no int8 NEG)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import CASES, FEW_EXAMPLES, assert_cases_bit_exact
from validated import int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def _island(shape, in_q, out_q, opcode, float_outputs, constants=(), options=None) -> bytes:
    """int8 x -> DEQUANTIZE -> opcode (float32, constants first) -> QUANTIZE of each float output -> int8 outputs."""
    b = ModelBuilder(opcode.lower())
    x = b.input("x", shape, "int8", scale=in_q[0], zero_point=in_q[1])
    real = b.tensor("real", shape, "float32")
    b.operator("DEQUANTIZE", [x], [real])
    results = [b.tensor(f"result{k}", out_shape, "float32") for k, out_shape in enumerate(float_outputs)]
    b.operator(opcode, [*(b.constant(f"c{k}", c) for k, c in enumerate(constants)), real], results, options)
    for k, (result, out_shape) in enumerate(zip(results, float_outputs, strict=True)):
        y = b.tensor(f"y{k}", out_shape, "int8", scale=out_q[0], zero_point=out_q[1])
        b.operator("QUANTIZE", [result], [y])
        b.output(y)
    return b.build()


quantizations = st.tuples(scales, int8_zero_points)


@st.composite
def neg_islands(draw):
    shape = draw(shapes(1, 4))
    return _island(shape, draw(quantizations), draw(quantizations), "NEG", [shape])


@st.composite
def split_islands(draw):
    shape = draw(shapes(1, 4, max_side=4))
    count, axis = draw(st.integers(1, 3)), draw(st.integers(0, len(shape) - 1))
    whole = tuple(n * count if d == axis else n for d, n in enumerate(shape))
    q = draw(quantizations)
    return _island(whole, q, q, "SPLIT", [shape] * count, [np.array([axis], dtype=np.int32)], {"num_splits": count})


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(neg_islands(), min_size=CASES, max_size=CASES), seed=st.integers(0, 99))
def test_neg_between_dequantize_and_quantize_is_bit_exact(models, seed):
    assert_cases_bit_exact(models, seed=seed)


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(split_islands(), min_size=CASES, max_size=CASES), seed=st.integers(0, 99))
def test_float_split_between_dequantize_and_quantize_is_bit_exact(models, seed):
    assert_cases_bit_exact(models, seed=seed)


def test_int8_neg_is_refused():
    b = ModelBuilder("neg")
    x = b.input("x", (4,), "int8", scale=0.1, zero_point=0)
    y = b.tensor("y", (4,), "int8", scale=0.1, zero_point=0)
    b.operator("NEG", [x], [y])
    b.output(y)
    assert "takes only float32" in refusal(b.build())
