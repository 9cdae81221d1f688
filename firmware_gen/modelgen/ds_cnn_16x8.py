"""A DS-CNN keyword spotter (Hello Edge's topology) with seeded weights in 16x8 quantization: int16 activations
(symmetric, zero point 0), int8 weights per output channel, int64 biases, as the TFLite converter writes them with
EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8."""

from __future__ import annotations

import numpy as np

from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images

INT16_MAX = 32767


class Calibrated16x8Builder(CalibratedBuilder):
    """CalibratedBuilder writing int16 activations (scale max|x| / 32767, zero point 0) and int64 biases."""

    activation_dtype = "int16"
    bias_dtype = np.int64
    probability_quantization = (1.0 / 32768, 0)  # int16 SOFTMAX and LOGISTIC outputs: Q0.15

    def _fit(self, values: np.ndarray) -> tuple[float, int]:
        return float(np.float32(max(float(np.abs(values).max()), 1e-6) / INT16_MAX)), 0

    def _fake_quantize(self, values: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
        return np.clip(np.round(values / scale), -INT16_MAX - 1, INT16_MAX) * scale


def ds_cnn_16x8(seed: int = 0, frames: int = 49, coefficients: int = 10, channels: int = 16, blocks: int = 2,
                keywords: int = 12, residual: bool = False) -> bytes:
    """MFCC [frames, coefficients, 1] -> conv 10x4/2 -> blocks x (depthwise 3x3 + pointwise 1x1), ReLU (with
    `residual`, each block's input added to its output: a 16x8 ADD) -> average pool over the whole map -> reshape ->
    FC (keyword logits) -> SOFTMAX (keyword probabilities)."""
    graph = Calibrated16x8Builder(name="ds_cnn_16x8", seed=seed)
    x = graph.input("mfcc", calibration_images(graph.rng, 8, frames, coefficients, 1), dtype="int16")
    x = graph.conv2d(x, channels, kernel=4, stride=2, activation="RELU", name="conv_0")
    for block in range(1, blocks + 1):
        block_input = x
        x = graph.depthwise_conv2d(x, kernel=3, activation="RELU", name=f"block_{block}/depthwise")
        x = graph.conv2d(x, channels, kernel=1, activation="RELU", name=f"block_{block}/pointwise")
        if residual:
            x = graph.add(x, block_input, name=f"block_{block}/residual")
    x = graph.average_pool(x, size=x.shape[1:3], name="avg_pool")
    x = graph.reshape(x, (1, channels), name="flatten")
    graph.output(graph.softmax(graph.fully_connected(x, keywords, name="logits"), name="probabilities"))
    return graph.build()

