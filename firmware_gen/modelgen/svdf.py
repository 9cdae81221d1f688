"""Seeded synthetic SVDF models (int8 activations, TFLM's integer SVDF): a keyword-spotter-like stack
SVDF -> SVDF -> FULLY_CONNECTED -> SOFTMAX, and single SVDF layers for the operator tests.

An SVDF layer reads its input [batch, input_size], keeps a variable state [batch, filters * memory] (filters = units
* rank) and writes [batch, units]. TFLM's integer kernel needs int8 input and feature weights, time weights of the
state's type (int16 or int8), an int32 bias whose scale is state scale * time-weight scale, and a variable state.
Scales are chosen from the value ranges these uniform random weights and inputs give, so no stage saturates often.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.modelgen.classifier_head import LOGITS_SCALE, add_classifier_head
from firmware_gen.modelgen.writer import ModelBuilder

_STATE_SPREAD = {"int16": 8000.0, "int8": 40.0}  # the state's typical magnitude, in quanta
_TIME_WEIGHT_LIMIT = {"int16": 1000, "int8": 127}
_OUTPUT_SPREAD = 40.0


@dataclass(frozen=True)
class SvdfLayer:
    """The shape and types of one SVDF layer."""

    units: int
    rank: int = 1
    memory: int = 8
    state_dtype: str = "int16"
    state_zero_point: int = 0
    output_zero_point: int = 0
    activation: str = "NONE"
    bias: bool = True


def _uniform(rng: np.random.Generator, limit: int, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return rng.integers(-limit, limit + 1, size=shape).astype(dtype)


def add_svdf(model: ModelBuilder, rng: np.random.Generator, source: int, layer: SvdfLayer, name: str) -> int:
    """An SVDF after tensor `source` (int8 [batch, input_size]); returns its int8 output tensor."""
    tensor = model.tensors[source]
    batch, input_size = tensor.shape
    input_scale = tensor.scales[0]
    filters = layer.units * layer.rank
    feature_scale = float(rng.uniform(0.005, 0.02))
    feature_spread = np.sqrt(input_size) * 74.0 * 73.0
    state_scale = input_scale * feature_scale * feature_spread / _STATE_SPREAD[layer.state_dtype]
    limit = _TIME_WEIGHT_LIMIT[layer.state_dtype]
    time_scale = float(rng.uniform(0.001, 0.01))
    time_spread = np.sqrt(layer.memory * layer.rank) * _STATE_SPREAD[layer.state_dtype] * limit / np.sqrt(3.0)
    output_scale = state_scale * time_scale * time_spread / _OUTPUT_SPREAD
    bias_scale = float(np.float32(state_scale) * np.float32(time_scale))  # as TFLM checks it, in float
    features = model.constant(f"{name}/weights_feature", _uniform(rng, 127, (filters, input_size), "int8"),
                              scale=feature_scale)
    time = model.constant(f"{name}/weights_time", _uniform(rng, limit, (filters, layer.memory), layer.state_dtype),
                          scale=time_scale)
    bias = -1
    if layer.bias:
        values = rng.integers(-int(time_spread), int(time_spread) + 1, size=layer.units).astype(np.int32)
        bias = model.constant(f"{name}/bias", values, scale=bias_scale)
    state = model.tensor(f"{name}/state", (batch, filters * layer.memory), layer.state_dtype, scale=state_scale,
                         zero_point=layer.state_zero_point, variable=True)
    output = model.tensor(name, (batch, layer.units), "int8", scale=output_scale,
                          zero_point=layer.output_zero_point)
    model.operator("SVDF", [source, features, time, bias, state], [output],
                   {"rank": layer.rank, "activation": layer.activation})
    return output


def svdf_model(layers: list[SvdfLayer], input_size: int = 16, batch: int = 1, seed: int = 0,
               input_zero_point: int = 0, name: str = "svdf") -> bytes:
    """int8 input [batch, input_size] -> the SVDF layers in turn -> their last output."""
    rng = np.random.default_rng(seed)
    model = ModelBuilder(name)
    x = model.input("input", (batch, input_size), "int8", scale=0.05, zero_point=input_zero_point)
    for position, layer in enumerate(layers):
        x = add_svdf(model, rng, x, layer, f"svdf{position}")
    model.output(x)
    return model.build()


def svdf_keyword_spotter(seed: int = 0, input_size: int = 40, classes: int = 4) -> bytes:
    """A keyword-spotter-like stack on one frame of `input_size` features per invocation: SVDF (32 units, rank 2,
    memory 10, int16 state) -> SVDF (16 units, rank 1, memory 6, int8 state) -> FULLY_CONNECTED -> SOFTMAX."""
    rng = np.random.default_rng(seed)
    model = ModelBuilder("svdf_keyword_spotter")
    x = model.input("frame", (1, input_size), "int8", scale=0.05, zero_point=-3)
    x = add_svdf(model, rng, x, SvdfLayer(units=32, rank=2, memory=10, activation="RELU"), "svdf0")
    x = add_svdf(model, rng, x, SvdfLayer(units=16, rank=1, memory=6, state_dtype="int8", state_zero_point=5,
                                          output_zero_point=-7), "svdf1")
    hidden_scale = model.tensors[x].scales[0]
    weights_scale = LOGITS_SCALE * _OUTPUT_SPREAD / (hidden_scale * np.sqrt(16) * _OUTPUT_SPREAD * 73.0)
    add_classifier_head(model, rng, x, classes, weights_scale)
    return model.build()
