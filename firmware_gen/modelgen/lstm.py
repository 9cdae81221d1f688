"""Seeded synthetic UNIDIRECTIONAL_SEQUENCE_LSTM models (int8 activations or, 16x8, int16 activations with int64
biases; int8 weights and an int16 cell state: TFLM's integer LSTM), as the TFLite converter quantizes them: a
keyword-spotter-like LSTM -> FULLY_CONNECTED -> SOFTMAX and single LSTM layers for the operator tests.

The operator has 24 inputs (lstm_shared.h's order): the input, 4 input weights [units, input_size] and 4 recurrent
weights [units, units] (gates input, forget, cell, output), 3 peephole weights (absent), 4 int32 gate biases [units],
projection weights and bias (absent unless asked for: TFLM refuses them), the output (hidden) state [batch, units] and
the int16 cell state [batch, units] (both variable tensors), 4 layer-norm coefficients (absent). The output is
[batch, time, units] (or [time, batch, units] when time-major) in the hidden state's quantization. The converter's
five intermediate tensors (the gates' Q3.12 scale and the effective hidden scale) are written too; TFLM's kernel
computes with fixed Q3.12 gate scales and does not read them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.modelgen.classifier_head import add_classifier_head
from firmware_gen.modelgen.writer import ModelBuilder

GATES = ("input", "forget", "cell", "output")
GATE_SCALE = 2.0 ** -12  # Q3.12: the gate pre-activations TFLM's integer LSTM works with
_GATE_SPREAD = 2.0  # the typical magnitude of a gate's pre-activation, in real units
_LIMIT = {"int8": 127, "int16": 32767}
_BIAS_DTYPE = {"int8": np.int32, "int16": np.int64}


@dataclass(frozen=True)
class LstmLayer:
    """The shape and quantization of one LSTM layer."""

    units: int
    time_major: bool = False
    cell_clip: float = 0.0
    cell_scale_power: int = -11  # the int16 cell state's scale is 2 ** cell_scale_power
    activation: str = "TANH"  # the cell gate's non-linearity (the only one TFLM's LSTM takes from a file)
    hidden_zero_point: int = 0
    projection: int = 0  # projection size; 0: none (TFLite Micro refuses a projection)


def _uniform_int8(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(-127, 128, size=shape).astype(np.int8)


def _gate_operands(model: ModelBuilder, rng: np.random.Generator, name: str, input_size: int, units: int,
                   input_scale: float, dtype: str) -> tuple[list[int], list[int], list[int]]:
    """Input weights, recurrent weights and biases of the four gates, scaled so a gate's pre-activation spreads over
    about +-_GATE_SPREAD from the input and half that from the hidden state."""
    input_spread = _LIMIT[dtype] * input_scale / np.sqrt(3.0)
    weights, recurrent, biases = [], [], []
    for gate in GATES:
        weight_scale = float(rng.uniform(0.7, 1.3)) * _GATE_SPREAD / (np.sqrt(input_size) * input_spread * 73.0)
        recurrent_scale = float(rng.uniform(0.7, 1.3)) * _GATE_SPREAD / (np.sqrt(units) * 0.5 * 73.0)
        weights.append(model.constant(f"{name}/input_to_{gate}_weights", _uniform_int8(rng, (units, input_size)),
                                      scale=weight_scale))
        recurrent.append(model.constant(f"{name}/recurrent_to_{gate}_weights", _uniform_int8(rng, (units, units)),
                                        scale=recurrent_scale))
        bias_scale = float(np.float32(input_scale) * np.float32(weight_scale))
        limit = int(1.0 / bias_scale)
        biases.append(model.constant(f"{name}/{gate}_gate_bias",
                                     rng.integers(-limit, limit + 1, size=units).astype(_BIAS_DTYPE[dtype]),
                                     scale=bias_scale))
    return weights, recurrent, biases


def _intermediates(model: ModelBuilder, name: str, dtype: str, hidden_scale: float, hidden_zero_point: int
                   ) -> list[int]:
    """The converter's intermediates: the four gates' Q3.12 outputs and the effective hidden state."""
    gates = [model.tensor(f"{name}/{gate}_gate_intermediate", (0,), "int16", scale=GATE_SCALE) for gate in GATES]
    return [*gates, model.tensor(f"{name}/effective_hidden", (0,), dtype, scale=hidden_scale,
                                 zero_point=hidden_zero_point)]


def add_lstm(model: ModelBuilder, rng: np.random.Generator, source: int, layer: LstmLayer, name: str) -> int:
    """A UNIDIRECTIONAL_SEQUENCE_LSTM after tensor `source` (int8 or int16 [batch, time, input_size], or [time,
    batch, input_size] when time-major); returns its output tensor (of the source's type)."""
    tensor, dtype = model.tensors[source], model.tensors[source].dtype
    outer, inner, input_size = tensor.shape
    batch = inner if layer.time_major else outer
    weights, recurrent, biases = _gate_operands(model, rng, name, input_size, layer.units, tensor.scales[0], dtype)
    # The hidden state is tanh(cell) * sigmoid(...), in (-1, 1).
    hidden_scale = float(rng.uniform(0.9, 1.1)) / (_LIMIT[dtype] + 1)
    zero_point = layer.hidden_zero_point
    projection = [-1, -1]
    if layer.projection:
        projection[0] = model.constant(f"{name}/projection_weights",
                                       _uniform_int8(rng, (layer.projection, layer.units)), scale=0.01)
    hidden = model.tensor(f"{name}/output_state", (batch, layer.units), dtype, scale=hidden_scale,
                          zero_point=zero_point, variable=True)
    cell = model.tensor(f"{name}/cell_state", (batch, layer.units), "int16", scale=2.0 ** layer.cell_scale_power,
                        variable=True)
    output = model.tensor(name, (outer, inner, layer.units), dtype, scale=hidden_scale, zero_point=zero_point)
    inputs = [source, *weights, *recurrent, -1, -1, -1, *biases, *projection, hidden, cell, -1, -1, -1, -1]
    options = {"activation": layer.activation, "cell_clip": layer.cell_clip, "time_major": layer.time_major}
    model.operator("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [output], options,
                   intermediates=_intermediates(model, name, dtype, hidden_scale, zero_point))
    return output


def lstm_model(layer: LstmLayer, input_size: int = 8, batch: int = 1, time_steps: int = 3, seed: int = 0,
               input_zero_point: int = 0, input_scale: float = 0.05, name: str = "lstm",
               activations: str = "int8") -> bytes:
    """Input [batch, time, input_size] ([time, batch, input_size] when time-major) -> one LSTM layer; `activations`
    int8, or int16 (16x8: zero points must then be 0)."""
    rng = np.random.default_rng(seed)
    model = ModelBuilder(name)
    shape = (time_steps, batch, input_size) if layer.time_major else (batch, time_steps, input_size)
    x = model.input("input", shape, activations, scale=input_scale, zero_point=input_zero_point)
    model.output(add_lstm(model, rng, x, layer, "lstm"))
    return model.build()


def lstm_keyword_spotter(seed: int = 0, frames: int = 4, features: int = 10, units: int = 16,
                         classes: int = 4) -> bytes:
    """A keyword-spotter-like model on `frames` frames of `features` features per invocation (the LSTM's state
    carried from one invocation to the next): LSTM (`units`, cell clip 8) -> RESHAPE [1, frames * units] ->
    FULLY_CONNECTED -> SOFTMAX."""
    rng = np.random.default_rng(seed)
    model = ModelBuilder("lstm_keyword_spotter")
    x = model.input("frames", (1, frames, features), "int8", scale=0.05, zero_point=-3)
    x = add_lstm(model, rng, x, LstmLayer(units=units, cell_clip=8.0, hidden_zero_point=4), "lstm")
    flat = model.tensor("lstm/flat", (1, frames * units), "int8", scale=model.tensors[x].scales[0],
                        zero_point=model.tensors[x].zero_points[0])
    model.operator("RESHAPE", [x], [flat])
    add_classifier_head(model, rng, flat, classes, weights_scale=2.0 / (np.sqrt(frames * units) * 0.5 * 73.0))
    return model.build()
