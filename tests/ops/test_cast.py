"""CAST between int8, int16 and int32: generated C bit-exact against TFLM over the whole value range."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import assert_bit_exact, refusal, shapes

from firmware_gen.frontend.ir import DType
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import output_overlaps

DTYPES = ["int8", "int16", "int32"]
pairs = st.sampled_from([(a, b) for a in DTYPES for b in DTYPES if a != b])


def cast_model(shape, in_dtype: str, out_dtype: str) -> bytes:
    b = ModelBuilder("cast")
    x = b.input("x", shape, in_dtype)
    y = b.tensor("y", shape, out_dtype)
    b.operator("CAST", inputs=[x], outputs=[y], options={"in_data_type": in_dtype, "out_data_type": out_dtype})
    b.output(y)
    return b.build()


def full_range(shape, dtype: str, seed: int) -> np.ndarray:
    info = np.iinfo(dtype)
    values = np.random.default_rng(seed).integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64)
    flat = values.reshape(-1)
    flat[: min(flat.size, 4)] = [info.min, info.max, -1, 0][: min(flat.size, 4)]
    return values.astype(dtype)


@settings(max_examples=3, deadline=None)
@given(pair=pairs, shape=shapes(1, 4), seed=st.integers(0, 99))
def test_cast_is_bit_exact(pair, shape, seed):
    assert_bit_exact(cast_model(shape, *pair), inputs=[full_range(shape, pair[0], seed)])


def test_every_pair_with_wrapping_values_is_bit_exact():
    """All six pairs side by side in one model (one build)."""
    b = ModelBuilder("casts")
    pairs_and_inputs = [((a, c), full_range((2, 5), a, 7)) for a in DTYPES for c in DTYPES if a != c]
    for k, ((in_dtype, out_dtype), _) in enumerate(pairs_and_inputs):
        x = b.input(f"x{k}", (2, 5), in_dtype)
        y = b.tensor(f"y{k}", (2, 5), out_dtype)
        b.operator("CAST", inputs=[x], outputs=[y], options={"in_data_type": in_dtype, "out_data_type": out_dtype})
        b.output(y)
    assert_bit_exact(b.build(), inputs=[x for _, x in pairs_and_inputs])


def test_narrowing_allows_overlap_up_to_the_element_size_difference():
    graph = read_model(cast_model((10,), "int32", "int8"))
    (overlap,) = output_overlaps(graph)[0]
    assert graph.tensors[overlap.input].dtype is DType.INT32 and overlap.bytes == 10 + 3
    assert not output_overlaps(read_model(cast_model((10,), "int8", "int16")))


def test_other_types_are_refused_naming_the_operator():
    message = refusal(cast_model((4,), "int8", "float32"))
    assert "operator 0 (CAST)" in message and "(int8 -> float32) is not supported" in message
