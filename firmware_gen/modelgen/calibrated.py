"""Build int8 graphs whose quantization is calibrated on a float forward pass, as a post-training quantizer does.

Every layer method computes its float output on a seeded calibration batch, fits the output's scale and zero
point to the observed range (so activations neither saturate nor collapse to a few levels), writes the
quantized tensors and operator with `ModelBuilder`, and carries on with the fake-quantized values (what the int8
graph really sees). Weighted layers get seeded random weights rescaled per output channel so that the
pre-activations have a set mean and spread (a folded batch norm): ReLU6 then keeps a healthy share of units active.
Calibration values carry the batch in dimension 0; the tensors written have batch 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from firmware_gen.modelgen.float_reference import conv_forward, fake_quantize, fit_int8, tap_windows
from firmware_gen.modelgen.float_twin import float_twin
from firmware_gen.modelgen.writer import ModelBuilder

_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "NONE": lambda v: v,
    "RELU": lambda v: np.maximum(v, 0.0),
    "RELU6": lambda v: np.clip(v, 0.0, 6.0),
    "RELU_N1_TO_1": lambda v: np.clip(v, -1.0, 1.0),
}
SOFTMAX_SCALE, SOFTMAX_ZERO_POINT = 1.0 / 256.0, -128  # what TFLM requires of int8 SOFTMAX and LOGISTIC outputs


@dataclass
class Activation:
    """A non-constant tensor of the graph, with its calibration values."""

    index: int
    values: np.ndarray  # float, (batch, ...) with the tensor's shape after the batch dimension
    scale: float | None  # None for a float32 tensor
    zero_point: int = 0

    @property
    def shape(self) -> tuple[int, ...]:
        return (1, *self.values.shape[1:])

    @property
    def quantization(self) -> dict[str, float | int | None]:
        return {"scale": self.scale, "zero_point": self.zero_point}


class CalibratedBuilder:
    # What activations and biases are written as; modelgen/ds_cnn_16x8.py makes them int16 and int64.
    activation_dtype = "int8"
    bias_dtype: type = np.int32
    weight_bits = 8  # 4: the weights written as INT4 tensors (values in [-7, 7]), as ai-edge-quantizer's int4 recipe
    # The (scale, zero point) TFLM requires of SOFTMAX and LOGISTIC outputs of that dtype.
    probability_quantization = (SOFTMAX_SCALE, SOFTMAX_ZERO_POINT)

    def __init__(self, name: str, seed: int = 0) -> None:
        self.model = ModelBuilder(name=name)
        self.float_constants: dict[int, np.ndarray] = {}  # weights and biases before quantization, for float_twin
        self.rng = np.random.default_rng(seed)
        self._names: dict[str, int] = {}

    def _name(self, base: str) -> str:
        count = self._names.get(base, 0)
        self._names[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def _calibrated(self, name: str, values: np.ndarray) -> Activation:
        """A new int8 tensor whose quantization fits `values`."""
        scale, zero_point = self._fit(values)
        return self._like(name, self._fake_quantize(values, scale, zero_point), scale, zero_point)

    def _fit(self, values: np.ndarray) -> tuple[float, int]:
        return fit_int8(values)

    def _fake_quantize(self, values: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
        return fake_quantize(values, scale, zero_point)

    def _like(self, name: str, values: np.ndarray, scale: float | None, zero_point: int = 0) -> Activation:
        dtype = "float32" if scale is None else self.activation_dtype
        index = self.model.tensor(self._name(name), (1, *values.shape[1:]), dtype, scale=scale, zero_point=zero_point)
        return Activation(index, values, scale, zero_point)

    def _fixed(self, name: str, values: np.ndarray, scale: float, zero_point: int) -> Activation:
        return self._like(name, self._fake_quantize(values, scale, zero_point), scale, zero_point)

    # ---- graph boundary ----

    def input(self, name: str, values: np.ndarray, dtype: str = "int8") -> Activation:
        """A graph input with calibration `values` (batch first); dtype "int8" or "float32"."""
        values = np.asarray(values, dtype=np.float64)
        if dtype == "float32":
            x = self._like(name, values, None)
        else:
            x = self._calibrated(name, values)
        self.model.inputs.append(x.index)
        return x

    def output(self, x: Activation) -> None:
        self.model.output(x.index)

    def build(self) -> bytes:
        return self.model.build()

    def build_float_twin(self) -> bytes:
        """The float model this int8 graph quantizes (float weights, float32 activations): modelgen/float_twin.py."""
        return float_twin(self.model, self.float_constants)

    # ---- layers with weights ----

    def _weighted(self, opcode: str, name: str, x: Activation, weights: np.ndarray, channel_axis: int | None,
                  forward: Callable[[np.ndarray, np.ndarray], np.ndarray], options: dict,
                  spread: float, mean: float) -> Activation:
        """Rescale `weights` per output channel to the wanted pre-activation statistics, quantize, run, calibrate."""
        activation = options.get("activation", "NONE")
        w, b, real = self._quantized_weights(name, x, weights, channel_axis, forward, spread, mean)
        y = self._calibrated(name, _ACTIVATIONS[activation](real))
        self.model.operator(opcode, [x.index, w, b], [y.index], options)
        return y

    def _quantized_weights(self, name: str, x: Activation, weights: np.ndarray, channel_axis: int | None,
                           forward: Callable[[np.ndarray, np.ndarray], np.ndarray], spread: float, mean: float,
                           ) -> tuple[int, int, np.ndarray]:
        """(weights tensor, bias tensor, float output before the activation) of a weighted layer."""
        raw = forward(x.values, weights)
        reduce_axes = tuple(range(raw.ndim - 1))
        gain = spread / np.maximum(raw.std(axis=reduce_axes), 1e-9)
        shape = [1] * weights.ndim
        shape[0 if channel_axis is None else channel_axis] = -1
        weights = weights * gain.reshape(shape)
        bias = mean + self.rng.normal(0.0, 0.25 * spread, gain.shape) - raw.mean(axis=reduce_axes) * gain

        top = (1 << (self.weight_bits - 1)) - 1
        if channel_axis is None:  # per-tensor weights
            w_scales = np.full(gain.shape, np.abs(weights).max() / top)
        else:
            w_scales = np.abs(weights).max(axis=tuple(a for a in range(weights.ndim) if a != channel_axis)) / top
        w_scales = np.maximum(w_scales, 1e-9).astype(np.float32).astype(np.float64)
        q_weights = np.clip(np.round(weights / w_scales.reshape(shape)), -top, top).astype(np.int8)
        b_scales = x.scale * w_scales
        q_bias = np.round(bias / b_scales).astype(self.bias_dtype)

        per_channel = channel_axis is not None
        w = self.model.constant(self._name(f"{name}/weights"), q_weights,
                                scale=list(w_scales) if per_channel else float(w_scales[0]), zero_point=0,
                                axis=channel_axis or 0, int4=self.weight_bits == 4)
        b = self.model.constant(self._name(f"{name}/bias"), q_bias,
                                scale=list(b_scales) if per_channel else float(b_scales[0]), zero_point=0)
        self.float_constants.update({w: weights, b: bias})
        return w, b, forward(x.values, q_weights * w_scales.reshape(shape)) + q_bias * b_scales

    def conv2d(self, x: Activation, out_channels: int, kernel: int = 3, stride: int = 1, padding: str = "SAME",
               activation: str = "RELU6", name: str = "conv", spread: float = 1.5, mean: float = 0.75) -> Activation:
        weights = self.rng.normal(0.0, 1.0, (out_channels, kernel, kernel, x.values.shape[3]))
        options = {"padding": padding, "stride_h": stride, "stride_w": stride, "activation": activation}
        return self._weighted("CONV_2D", name, x, weights, 0,
                              lambda v, w: conv_forward(v, w, stride, padding, depthwise=False), options, spread, mean)

    def depthwise_conv2d(self, x: Activation, kernel: int = 3, stride: int = 1, multiplier: int = 1,
                         padding: str = "SAME", activation: str = "RELU6", name: str = "depthwise",
                         spread: float = 1.5, mean: float = 0.75) -> Activation:
        weights = self.rng.normal(0.0, 1.0, (1, kernel, kernel, x.values.shape[3] * multiplier))
        options = {"padding": padding, "stride_h": stride, "stride_w": stride, "depth_multiplier": multiplier,
                   "activation": activation}
        return self._weighted("DEPTHWISE_CONV_2D", name, x, weights, 3,
                              lambda v, w: conv_forward(v, w, stride, padding, depthwise=True), options, spread, mean)

    def fully_connected(self, x: Activation, units: int, activation: str = "NONE", name: str = "fc",
                        spread: float = 2.0, mean: float = 0.0) -> Activation:
        """Per-tensor int8 weights (units, inputs), as TFLite writes FULLY_CONNECTED; input of shape (1, inputs)."""
        weights = self.rng.normal(0.0, 1.0, (units, x.values.shape[-1]))
        return self._weighted("FULLY_CONNECTED", name, x, weights, None, lambda v, w: v @ w.T,
                              {"activation": activation}, spread, mean)

    # ---- layers without weights ----

    def _pool(self, opcode: str, x: Activation, size: int | tuple[int, int], stride: int, padding: str,
              name: str) -> Activation:
        filter_h, filter_w = (size, size) if isinstance(size, int) else size
        windows = [w for _, _, w in tap_windows(x.values, (filter_h, filter_w), stride, padding, np.nan)]
        reduce = np.nanmax if opcode == "MAX_POOL_2D" else np.nanmean
        y = self._fixed(name, reduce(np.stack(windows), axis=0), x.scale, x.zero_point)
        self.model.operator(opcode, [x.index], [y.index], {"padding": padding, "stride_h": stride,
                                                           "stride_w": stride, "filter_h": filter_h,
                                                           "filter_w": filter_w})
        return y

    def average_pool(self, x: Activation, size: int | tuple[int, int], stride: int | None = None,
                     padding: str = "VALID", name: str = "avg_pool") -> Activation:
        """A square window of `size`, or (height, width) with stride 1 by default."""
        return self._pool("AVERAGE_POOL_2D", x, size, stride or (size if isinstance(size, int) else 1), padding, name)

    def max_pool(self, x: Activation, size: int, stride: int | None = None, padding: str = "VALID",
                 name: str = "max_pool") -> Activation:
        return self._pool("MAX_POOL_2D", x, size, stride or size, padding, name)

    def _elementwise(self, opcode: str, a: Activation, b: Activation, values: np.ndarray, activation: str,
                     name: str) -> Activation:
        y = self._calibrated(name, _ACTIVATIONS[activation](values))
        self.model.operator(opcode, [a.index, b.index], [y.index], {"activation": activation})
        return y

    def add(self, a: Activation, b: Activation, activation: str = "NONE", name: str = "add") -> Activation:
        return self._elementwise("ADD", a, b, a.values + b.values, activation, name)

    def mul(self, a: Activation, b: Activation, activation: str = "NONE", name: str = "mul") -> Activation:
        return self._elementwise("MUL", a, b, a.values * b.values, activation, name)

    def mean(self, x: Activation, axes: Sequence[int], keep_dims: bool = True, name: str = "mean") -> Activation:
        if 0 in axes:
            raise ValueError("the batch axis cannot be reduced")
        y = self._calibrated(name, x.values.mean(axis=tuple(axes), keepdims=keep_dims))
        axes_tensor = self.model.constant(self._name(f"{name}/axes"), np.asarray(axes, dtype=np.int32))
        self.model.operator("MEAN", [x.index, axes_tensor], [y.index], {"keep_dims": keep_dims})
        return y

    def softmax(self, x: Activation, beta: float = 1.0, name: str = "softmax") -> Activation:
        shifted = beta * (x.values - x.values.max(axis=-1, keepdims=True))
        exp = np.exp(shifted)
        y = self._fixed(name, exp / exp.sum(axis=-1, keepdims=True), *self.probability_quantization)
        self.model.operator("SOFTMAX", [x.index], [y.index], {"beta": beta})
        return y

    def logistic(self, x: Activation, name: str = "logistic") -> Activation:
        y = self._fixed(name, 1.0 / (1.0 + np.exp(-x.values)), *self.probability_quantization)
        self.model.operator("LOGISTIC", [x.index], [y.index])
        return y

    def quantize(self, x: Activation, name: str = "quantize") -> Activation:
        """float32 -> int8, calibrated on the float values."""
        y = self._calibrated(name, x.values)
        self.model.operator("QUANTIZE", [x.index], [y.index])
        return y

    def dequantize(self, x: Activation, name: str = "dequantize") -> Activation:
        y = self._like(name, x.values, None)
        self.model.operator("DEQUANTIZE", [x.index], [y.index])
        return y

    # ---- data movement: the output keeps the input's quantization ----

    def _moved(self, opcode: str, inputs: Sequence[int], x: Activation, values: np.ndarray, name: str,
               options: dict | None = None) -> Activation:
        y = self._like(name, values, x.scale, x.zero_point)
        self.model.operator(opcode, inputs, [y.index], options)
        return y

    def reshape(self, x: Activation, shape: Sequence[int], name: str = "reshape") -> Activation:
        """`shape` includes the batch dimension 1."""
        if shape[0] != 1:
            raise ValueError("the reshaped batch dimension must stay 1")
        values = x.values.reshape((x.values.shape[0], *shape[1:]))
        return self._moved("RESHAPE", [x.index], x, values, name, {"new_shape": tuple(shape)})

    def squeeze(self, x: Activation, dims: Sequence[int], name: str = "squeeze") -> Activation:
        if 0 in dims:
            raise ValueError("the batch axis cannot be squeezed")
        values = x.values.squeeze(axis=tuple(dims))
        return self._moved("SQUEEZE", [x.index], x, values, name, {"squeeze_dims": tuple(dims)})

    def transpose(self, x: Activation, perm: Sequence[int], name: str = "transpose") -> Activation:
        if perm[0] != 0:
            raise ValueError("the batch axis must stay first")
        perm_tensor = self.model.constant(self._name(f"{name}/perm"), np.asarray(perm, dtype=np.int32))
        return self._moved("TRANSPOSE", [x.index, perm_tensor], x, x.values.transpose(perm), name)

    def pad(self, x: Activation, paddings: Sequence[tuple[int, int]], name: str = "pad") -> Activation:
        """Zero padding (the quantized zero point); `paddings` has one (before, after) pair per dimension."""
        if tuple(paddings[0]) != (0, 0):
            raise ValueError("the batch axis cannot be padded")
        table = self.model.constant(self._name(f"{name}/paddings"), np.asarray(paddings, dtype=np.int32))
        return self._moved("PAD", [x.index, table], x, np.pad(x.values, paddings), name)

    def concatenate(self, xs: Sequence[Activation], axis: int, name: str = "concat") -> Activation:
        """The inputs must share one quantization (TFLM's int8 CONCATENATION does not rescale)."""
        if len({(x.scale, x.zero_point) for x in xs}) != 1:
            raise ValueError("concatenated tensors must share one scale and zero point")
        values = np.concatenate([x.values for x in xs], axis=axis)
        return self._moved("CONCATENATION", [x.index for x in xs], xs[0], values, name, {"axis": axis})


def calibration_images(rng: np.random.Generator, count: int, height: int, width: int, channels: int,
                       ) -> np.ndarray:
    """Seeded images in [-1, 1]: half blocky low-frequency patterns with some noise, half white noise."""
    images = rng.uniform(-1.0, 1.0, (count, height, width, channels))
    for image in images[: count // 2]:
        cell = int(rng.integers(4, 17))
        coarse = rng.uniform(-1.0, 1.0, (-(-height // cell), -(-width // cell), channels))
        blocks = np.repeat(np.repeat(coarse, cell, axis=0), cell, axis=1)[:height, :width]
        image[...] = np.clip(0.8 * blocks + 0.2 * image, -1.0, 1.0)
    return images
