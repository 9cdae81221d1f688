"""Strategies shared by the tests of the weighted operators (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED):
symmetric int8 weights with per-tensor or per-channel scales, an optional int32 bias, and an output scale in
proportion to the accumulators so that outputs use the int8 range instead of saturating."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

ACTIVATIONS = st.sampled_from(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])


@dataclass
class Weights:
    values: np.ndarray  # int8, in [-127, 127]
    scales: list[float]  # one per output channel, or a single one
    bias: np.ndarray | None  # int32, one per output channel
    output_scale: float


@st.composite
def weights(draw, shape: tuple[int, ...], channel_axis: int, input_scale: float, taps: int) -> Weights:
    """Weights of `shape`, `taps` products per accumulator."""
    channels = shape[channel_axis]
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    values = rng.integers(-127, 127, shape, endpoint=True).astype(np.int8)
    per_channel = draw(st.booleans())
    count = channels if per_channel else 1
    scales = [draw(st.floats(1e-3, 0.5)) for _ in range(count)]
    bias = None
    if draw(st.booleans()):
        bias = rng.integers(-(1 << 14), 1 << 14, channels).astype(np.int32)
    # A typical |accumulator| is about sqrt(taps) * 127 * 74; 2^k of them span the int8 output range.
    spread = float(np.sqrt(taps)) * 127 * 74 / 128
    output_scale = input_scale * float(np.mean(scales)) * spread * 2.0 ** draw(st.integers(-4, 3))
    return Weights(values, scales, bias, output_scale)


def add_weights(builder, name: str, w: Weights, input_scale: float, channel_axis: int) -> tuple[int, int]:
    """(weights tensor, bias tensor or -1) written into `builder`."""
    weights_index = builder.constant(f"{name}/weights", w.values, scale=w.scales, zero_point=0, axis=channel_axis)
    if w.bias is None:
        return weights_index, -1
    bias_scales = [input_scale * s for s in w.scales]
    return weights_index, builder.constant(f"{name}/bias", w.bias, scale=bias_scales, zero_point=0)
