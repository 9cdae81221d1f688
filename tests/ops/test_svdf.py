"""SVDF int8 (TFLM's integer SVDF, int16 or int8 state): generated C bit-exact against TFLM over sequences, every
invocation's output and state compared; and the one-line refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, refusal

from firmware_gen.check.sequence_validation import validate_sequence
from firmware_gen.errors import ModelFormatError, UnsupportedModelError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.svdf import SvdfLayer, add_svdf, svdf_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import check_supported

FRAMES = 4


def _frames(model: bytes, count: int, seed: int) -> list[list[np.ndarray]]:
    graph = read_model(model)
    rng = np.random.default_rng(seed)
    shape = graph.tensors[graph.inputs[0]].shape
    return [[rng.integers(-128, 128, size=shape).astype(np.int8)] for _ in range(count)]


@st.composite
def layers(draw) -> SvdfLayer:
    state_dtype = draw(st.sampled_from(["int16", "int8"]))
    return SvdfLayer(units=draw(st.integers(1, 6)), rank=draw(st.integers(1, 3)), memory=draw(st.integers(1, 5)),
                     state_dtype=state_dtype,
                     state_zero_point=draw(st.integers(-128, 127)) if state_dtype == "int8" else 0,
                     output_zero_point=draw(st.integers(-20, 20)), activation=draw(st.sampled_from(["NONE", "RELU"])))


@settings(max_examples=max(MAX_EXAMPLES // 3, 1), deadline=None)
@given(layer=layers(), input_size=st.integers(1, 12), batch=st.integers(1, 2), input_zero_point=st.integers(-9, 9),
       seed=st.integers(0, 99))
def test_svdf_is_bit_exact_over_a_sequence(layer, input_size, batch, input_zero_point, seed):
    model = svdf_model([layer], input_size=input_size, batch=batch, seed=seed, input_zero_point=input_zero_point)
    report = validate_sequence(model, _frames(model, FRAMES, seed), sanitize=True)
    assert report.invocations == FRAMES
    assert report.bit_exact, report.format()


def _single(layer: SvdfLayer, edit=None) -> bytes:
    model = ModelBuilder("svdf")
    x = model.input("input", (1, 6), "int8", scale=0.05)
    add_svdf(model, np.random.default_rng(0), x, layer, "svdf")
    if edit:
        edit(model)
    model.output(len(model.tensors) - 1)
    return model.build()


def _tensor(model: ModelBuilder, name: str):
    return next(t for t in model.tensors if t.name == name)


def test_refusals_name_the_operator_option_and_value():
    message = refusal(_single(SvdfLayer(units=2, activation="TANH")))
    assert "operator 0 (SVDF)" in message and "activation TANH" in message and "\n" not in message

    def bad_rank(model):
        model.operators[0].options["rank"] = 3
    message = refusal(_single(SvdfLayer(units=2, rank=2), bad_rank))
    assert "operator 0 (SVDF)" in message and "rank 3" in message

    def int8_time(model):
        time = _tensor(model, "svdf/weights_time")
        time.dtype, time.data = "int8", np.zeros(time.shape, np.int8).tobytes()
    message = refusal(_single(SvdfLayer(units=2), int8_time))
    assert "weights_time" in message and "int16" in message


def test_a_state_that_is_not_a_variable_tensor_is_refused_in_one_line():
    def constant_state(model):
        _tensor(model, "svdf/state").variable = False
    with pytest.raises(ModelFormatError, match="variable tensor") as error:
        read_model(_single(SvdfLayer(units=2), constant_state))
    assert "\n" not in str(error.value)
    graph = read_model(_single(SvdfLayer(units=2)))
    graph.tensors[graph.operators[0].inputs[4]].is_variable = False
    with pytest.raises(UnsupportedModelError, match="not a variable tensor"):
        check_supported(graph)
