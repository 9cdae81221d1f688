"""Strategies shared by the tests of the weighted operators (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED):
symmetric int8 weights with per-tensor or per-channel scales, an optional int32 bias, and an output scale in
proportion to the accumulators so that outputs use the int8 range instead of saturating."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from bounded_activations import bounded_scales
from hypothesis import strategies as st

ACTIVATIONS = st.sampled_from(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])


@dataclass
class Weights:
    values: np.ndarray  # int8, in [-127, 127] (4-bit: in [-8, 7])
    scales: list[float]  # one per output channel, or a single one
    bias: np.ndarray | None  # int32, one per output channel
    output_scale: float
    int4: bool = False  # written as a packed INT4 tensor


@st.composite
def weights(draw, shape: tuple[int, ...], channel_axis: int, input_scale: float, taps: int,
            int4: bool = False, per_channel: bool | None = None) -> Weights:
    """Weights of `shape`, `taps` products per accumulator (`int4`: 4-bit values; `per_channel`: drawn if None)."""
    channels = shape[channel_axis]
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    low, high = (-8, 7) if int4 else (-127, 127)
    values = rng.integers(low, high, shape, endpoint=True).astype(np.int8)
    per_channel = draw(st.booleans()) if per_channel is None else per_channel
    count = channels if per_channel else 1
    scales = [draw(st.floats(1e-3, 0.5)) for _ in range(count)]
    bias = None
    if draw(st.booleans()):
        bias = rng.integers(-(1 << 14), 1 << 14, channels).astype(np.int32)
    # A typical |accumulator| is about sqrt(taps) * 127 * 74; 2^k of them span the int8 output range.
    spread = float(np.sqrt(taps)) * high * 74 / 128
    output_scale = input_scale * float(np.mean(scales)) * spread * 2.0 ** draw(st.integers(-4, 3))
    return Weights(values, scales, bias, output_scale, int4)


def for_activation(w: Weights, activation: str) -> Weights:
    """w with its scales and output scale rescaled so that a bounded activation's clamp spans 100 codes
    (bounded_activations.py: drawn for the accumulators, RELU6's and RELU_N1_TO_1's outputs collapse onto the clamp)."""
    scales, output_scale = bounded_scales(activation, w.scales, w.output_scale)
    return dataclasses.replace(w, scales=scales, output_scale=output_scale)


def add_weights(builder, name: str, w: Weights, input_scale: float, channel_axis: int) -> tuple[int, int]:
    """(weights tensor, bias tensor or -1) written into `builder`."""
    weights_index = builder.constant(f"{name}/weights", w.values, scale=w.scales, zero_point=0, axis=channel_axis,
                                     int4=w.int4)
    if w.bias is None:
        return weights_index, -1
    bias_scales = [input_scale * s for s in w.scales]
    return weights_index, builder.constant(f"{name}/bias", w.bias, scale=bias_scales, zero_point=0)
