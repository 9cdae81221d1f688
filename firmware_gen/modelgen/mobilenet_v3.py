"""A MobileNetV3-style block with every int8 activation of issue 15, calibrated and seeded (`mobilenet_v3_block`).

The graph is the one the TFLite converter writes for Keras' MobileNetV3 layers: a 1x1 expansion with HARD_SWISH,
a depthwise convolution with a separate RELU, squeeze-excite (MEAN, FULLY_CONNECTED, RELU, then the hard sigmoid
as the converter emits it: ADD 3, RELU6, MUL 1/6, and the MUL that gates the feature map), a 1x1 projection with
LEAKY_RELU, and a head exercising PRELU, ELU, TANH and LOG_SOFTMAX.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from firmware_gen.modelgen.calibrated import Activation, CalibratedBuilder, calibration_images
from firmware_gen.modelgen.float_reference import fit_int8

TANH_QUANTIZATION = (1.0 / 128.0, 0)  # what TFLite requires of an int8 TANH output
LOG_SOFTMAX_QUANTIZATION = (16.0 / 256.0, 127)  # ... and of an int8 LOG_SOFTMAX output


class ActivationBuilder(CalibratedBuilder):
    """CalibratedBuilder with the unary activations, PRELU and elementwise operations with a constant."""

    def unary(self, opcode: str, x: Activation, forward: Callable[[np.ndarray], np.ndarray], name: str,
              options: dict | None = None, quantization: tuple[float, int] | None = None) -> Activation:
        values = forward(x.values)
        y = self._calibrated(name, values) if quantization is None else self._fixed(name, values, *quantization)
        self.model.operator(opcode, [x.index], [y.index], options)
        return y

    def hard_swish(self, x: Activation, name: str = "hard_swish") -> Activation:
        return self.unary("HARD_SWISH", x, lambda v: v * np.clip(v + 3.0, 0.0, 6.0) / 6.0, name)

    def leaky_relu(self, x: Activation, alpha: float, name: str = "leaky_relu") -> Activation:
        return self.unary("LEAKY_RELU", x, lambda v: np.where(v >= 0, v, alpha * v), name, {"alpha": alpha})

    def prelu(self, x: Activation, alpha: np.ndarray, name: str = "prelu") -> Activation:
        """alpha: one slope per channel, stored as a constant int8 tensor."""
        scale, zero_point = fit_int8(np.concatenate([alpha.ravel(), [0.0]]))
        q_alpha = np.clip(np.round(alpha / scale) + zero_point, -128, 127).astype(np.int8)
        real_alpha = (q_alpha.astype(np.float64) - zero_point) * scale
        slopes = self.model.constant(self._name(f"{name}/alpha"), q_alpha, scale=scale, zero_point=zero_point)
        y = self._calibrated(name, np.where(x.values >= 0, x.values, real_alpha * x.values))
        self.model.operator("PRELU", [x.index, slopes], [y.index])
        return y

    def with_constant(self, opcode: str, x: Activation, value: float, activation: str = "NONE",
                      name: str = "constant_op") -> Activation:
        """ADD or MUL of a scalar constant, as the converter writes `x + 3.0` and `x * (1 / 6)`."""
        scale = abs(value) / 127.0
        constant = self.model.constant(self._name(f"{name}/value"), np.array([127 if value > 0 else -127], np.int8),
                                       scale=scale, zero_point=0)
        values = x.values + value if opcode == "ADD" else x.values * value
        if activation == "RELU6":
            values = np.clip(values, 0.0, 6.0)
        y = self._calibrated(name, values)
        self.model.operator(opcode, [x.index, constant], [y.index], {"activation": activation})
        return y


def _log_softmax(values: np.ndarray) -> np.ndarray:
    shifted = values - values.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _squeeze_excite(graph: ActivationBuilder, x: Activation, reduced: int) -> Activation:
    channels = x.shape[-1]
    pooled = graph.mean(x, axes=(1, 2), keep_dims=False, name="se/mean")
    squeezed = graph.unary("RELU", graph.fully_connected(pooled, reduced, name="se/reduce"), lambda v: np.maximum(v, 0),
                           "se/relu")
    expanded = graph.fully_connected(squeezed, channels, name="se/expand")
    shifted = graph.with_constant("ADD", expanded, 3.0, name="se/plus_3")
    clipped = graph.unary("RELU6", shifted, lambda v: np.clip(v, 0.0, 6.0), "se/relu6")
    gate = graph.with_constant("MUL", clipped, 1.0 / 6.0, name="se/hard_sigmoid")
    gate = graph.reshape(gate, (1, 1, 1, channels), name="se/gate")
    return graph.mul(x, gate, name="se/gated")


def mobilenet_v3_block(seed: int = 0) -> bytes:
    """12x12x4 -> expand 1x1 (16) + HARD_SWISH -> depthwise 3x3 + RELU -> squeeze-excite -> project 1x1 (8) +
    LEAKY_RELU -> PRELU -> ELU -> MEAN -> FC (6) -> TANH -> FC (5) -> LOG_SOFTMAX."""
    graph = ActivationBuilder(name="mobilenet_v3_block", seed=seed)
    x = graph.input("input", calibration_images(graph.rng, 8, 12, 12, 4))
    x = graph.hard_swish(graph.conv2d(x, 16, kernel=1, activation="NONE", name="expand", mean=0.0, spread=3.0))
    x = graph.depthwise_conv2d(x, kernel=3, activation="NONE", name="depthwise", mean=0.0)
    x = graph.unary("RELU", x, lambda v: np.maximum(v, 0.0), "depthwise/relu")
    x = _squeeze_excite(graph, x, reduced=4)
    x = graph.leaky_relu(graph.conv2d(x, 8, kernel=1, activation="NONE", name="project", mean=0.0), alpha=0.2)
    x = graph.prelu(x, graph.rng.uniform(-0.5, 0.5, 8))
    x = graph.unary("ELU", x, lambda v: np.where(v < 0, np.expm1(v), v), "elu")
    x = graph.mean(x, axes=(1, 2), keep_dims=False, name="pool")
    x = graph.unary("TANH", graph.fully_connected(x, 6, name="hidden"), np.tanh, "tanh", quantization=TANH_QUANTIZATION)
    graph.output(graph.unary("LOG_SOFTMAX", graph.fully_connected(x, 5, name="logits"), _log_softmax,
                             "log_probabilities", quantization=LOG_SOFTMAX_QUANTIZATION))
    return graph.build()
