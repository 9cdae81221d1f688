"""UNIDIRECTIONAL_SEQUENCE_LSTM int8 and 16x8 (TFLM's integer LSTM, int16 cell state): generated C bit-exact against
TFLM over sequences (every invocation's output and both states compared) across shapes, layouts, cell scales, clipping
and zero points; and the one-line refusals of what TFLM refuses."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, refusal

from firmware_gen.check.sequence_validation import validate_sequence
from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.lstm import LstmLayer, lstm_model
from firmware_gen.ops import check_supported

FRAMES = 3


def _frames(model: bytes, count: int, seed: int) -> list[list[np.ndarray]]:
    graph = read_model(model)
    rng = np.random.default_rng(seed)
    tensor = graph.tensors[graph.inputs[0]]
    info = np.iinfo(tensor.dtype.numpy_type)
    return [[rng.integers(info.min, info.max + 1, size=tensor.shape).astype(info.dtype)] for _ in range(count)]


@st.composite
def layers(draw, activations: str) -> LstmLayer:
    return LstmLayer(units=draw(st.integers(1, 6)), time_major=draw(st.booleans()),
                     cell_clip=draw(st.sampled_from([0.0, 0.7, 3.0])), cell_scale_power=draw(st.integers(-15, -8)),
                     hidden_zero_point=draw(st.integers(-20, 20)) if activations == "int8" else 0)


@st.composite
def models(draw) -> bytes:
    """An int8 LSTM, or a 16x8 one (int16 activations: zero points 0, scales 1/256 of the int8 ones)."""
    activations = draw(st.sampled_from(["int8", "int8", "int16"]))
    wide = activations == "int16"
    return lstm_model(draw(layers(activations)), input_size=draw(st.integers(1, 9)), batch=draw(st.integers(1, 3)),
                      time_steps=draw(st.integers(1, 4)), seed=draw(st.integers(0, 99)),
                      input_zero_point=0 if wide else draw(st.integers(-9, 9)),
                      input_scale=draw(st.sampled_from([0.02, 0.05, 0.2])) / (256 if wide else 1),
                      activations=activations)


@settings(max_examples=max(MAX_EXAMPLES // 5, 1), deadline=None)
@given(model=models(), seed=st.integers(0, 99))
def test_lstm_is_bit_exact_over_a_sequence(model, seed):
    report = validate_sequence(model, _frames(model, FRAMES, seed), sanitize=True)
    assert report.invocations == FRAMES
    assert report.tensors_compared == FRAMES * 3  # the output and both states, every invocation
    assert report.bit_exact, report.format()


def test_the_cell_state_rounds_as_tflm_does():
    """A case where TFLM's old single-precision 2^-15 literal would round one cell-state element differently."""
    layer = LstmLayer(units=2, time_major=True, cell_clip=100.0, cell_scale_power=-15, hidden_zero_point=39)
    model = lstm_model(layer, input_size=6, batch=3, time_steps=4, seed=8, input_zero_point=-7, input_scale=1.0)
    report = validate_sequence(model, _frames(model, FRAMES, 8))
    assert report.bit_exact, report.format()


def _edited(edit) -> str:
    """The refusal of a one-layer LSTM model after `edit(graph, op)`."""
    graph = read_model(lstm_model(LstmLayer(units=3), input_size=4))
    edit(graph, graph.operators[0])
    try:
        check_supported(graph)
    except UnsupportedModelError as error:
        assert "\n" not in str(error) and "operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM)" in str(error)
        return str(error)
    raise AssertionError("the model was accepted")


def _set_input(position: int, source: int):
    def edit(graph, op):
        op.inputs = tuple(op.inputs[source] if i == position else t for i, t in enumerate(op.inputs))
    return edit


def test_a_projection_is_refused_as_tflm_refuses_it():
    message = refusal(lstm_model(LstmLayer(units=3, projection=2), input_size=4))
    assert "projection (inputs [16])" in message and "\n" not in message


@pytest.mark.parametrize(("position", "what"), [(9, "peephole weights"), (20, "layer-norm coefficients")])
def test_peephole_and_layer_norm_variants_are_refused(position, what):
    assert what in _edited(_set_input(position, 1))


def test_cifg_options_and_states_are_refused_in_one_line():
    assert "no input gate (CIFG)" in _edited(_set_input(1, 9))

    def relu(graph, op):
        op.options["activation"] = "RELU"
    assert "option activation RELU" in _edited(relu)  # TFLM asserts; only TANH reaches its kernel from a file

    def diagonal(graph, op):
        op.options["diagonal_recurrent_tensors"] = True
    assert "diagonal_recurrent_tensors" in _edited(diagonal)

    def constant_cell(graph, op):
        graph.tensors[op.inputs[19]].is_variable = False
    assert "cell state (input 19)" in _edited(constant_cell) and "not a variable tensor" in _edited(constant_cell)

    def int16_zero_point(graph, op):
        graph.tensors[op.inputs[0]].quantization = type(graph.tensors[op.inputs[0]].quantization)((0.001,), (5,))
    graph = read_model(lstm_model(LstmLayer(units=3), input_size=4, activations="int16", input_scale=1e-4))
    int16_zero_point(graph, graph.operators[0])
    with pytest.raises(UnsupportedModelError, match="is int16: it needs one positive scale and zero point 0"):
        check_supported(graph)

    def per_channel(graph, op):
        weights = graph.tensors[op.inputs[2]]
        weights.quantization = type(weights.quantization)(scales=(0.1, 0.2, 0.3), zero_points=(0, 0, 0))
    assert "input 2" in _edited(per_channel) and "one positive scale" in _edited(per_channel)


def test_the_converters_intermediates_are_written_and_need_no_memory():
    import tflite

    data = lstm_model(LstmLayer(units=3), input_size=4)
    intermediates = tflite.Model.GetRootAsModel(data, 0).Subgraphs(0).Operators(0).IntermediatesAsNumpy()
    assert len(intermediates) == 5
    assert not set(intermediates.tolist()) & {t.index for t in read_model(data).activation_tensors}
