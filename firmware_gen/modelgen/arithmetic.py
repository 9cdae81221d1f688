"""A seeded synthetic int8 block that uses the arithmetic and reduction operators of issue 15 together, calibrated
like the other synthetic models (modelgen/calibrated.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from firmware_gen.modelgen.calibrated import Activation, CalibratedBuilder, calibration_images

CALIBRATION_IMAGES = 8


class ArithmeticBuilder(CalibratedBuilder):
    """CalibratedBuilder plus SUB, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, ABS, RSQRT, ADD_N, SUM, REDUCE_MAX,
    REDUCE_MIN and ARG_MAX / ARG_MIN."""

    def _op(self, opcode: str, inputs: Sequence[Activation | int], y: Activation, options: dict | None = None,
            ) -> Activation:
        indices = [x if isinstance(x, int) else x.index for x in inputs]
        self.model.operator(opcode, indices, [y.index], options or {})
        return y

    def sub(self, a: Activation, b: Activation, name: str = "sub") -> Activation:
        return self._op("SUB", [a, b], self._calibrated(name, a.values - b.values), {"activation": "NONE"})

    def squared_difference(self, a: Activation, b: Activation, name: str = "squared_difference") -> Activation:
        return self._op("SQUARED_DIFFERENCE", [a, b], self._calibrated(name, (a.values - b.values) ** 2))

    def _same_quantization(self, opcode: str, xs: Sequence[Activation], values: np.ndarray, name: str,
                           ) -> Activation:
        if len({(x.scale, x.zero_point) for x in xs}) != 1:
            raise ValueError(f"{opcode} inputs must share one scale and zero point")
        return self._op(opcode, xs, self._fixed(name, values, xs[0].scale, xs[0].zero_point))

    def maximum(self, a: Activation, b: Activation, name: str = "maximum") -> Activation:
        return self._same_quantization("MAXIMUM", [a, b], np.maximum(a.values, b.values), name)

    def minimum(self, a: Activation, b: Activation, name: str = "minimum") -> Activation:
        return self._same_quantization("MINIMUM", [a, b], np.minimum(a.values, b.values), name)

    def add_n(self, xs: Sequence[Activation], name: str = "add_n") -> Activation:
        if len({(x.scale, x.zero_point) for x in xs}) != 1:
            raise ValueError("ADD_N inputs must share one scale and zero point")
        return self._op("ADD_N", xs, self._calibrated(name, sum(x.values for x in xs)))

    def abs(self, x: Activation, like: Activation | None = None, name: str = "abs") -> Activation:
        """|x|, quantized as `like` when given (to feed MAXIMUM or MINIMUM with it)."""
        values = np.abs(x.values)
        y = self._calibrated(name, values) if like is None else self._fixed(name, values, like.scale, like.zero_point)
        return self._op("ABS", [x], y)

    def rsqrt(self, x: Activation, name: str = "rsqrt") -> Activation:
        """1 / sqrt(x) for x >= 0; TFLM gives the int8 maximum at x = 0, calibrated here as 1 / sqrt(x.scale)."""
        return self._op("RSQRT", [x], self._calibrated(name, 1.0 / np.sqrt(np.maximum(x.values, x.scale))))

    def _axes(self, name: str, axes: Sequence[int]) -> int:
        if 0 in axes:
            raise ValueError("the batch axis cannot be reduced")
        return self.model.constant(self._name(f"{name}/axes"), np.asarray(axes, dtype=np.int32))

    def reduce_sum(self, x: Activation, axes: Sequence[int], keep_dims: bool = False, name: str = "sum",
                   ) -> Activation:
        y = self._calibrated(name, x.values.sum(axis=tuple(axes), keepdims=keep_dims))
        return self._op("SUM", [x, self._axes(name, axes)], y, {"keep_dims": keep_dims})

    def reduce_extreme(self, opcode: str, x: Activation, axes: Sequence[int], keep_dims: bool = False,
                       name: str = "reduce") -> Activation:
        """REDUCE_MAX or REDUCE_MIN; the output keeps the input's quantization, as TFLM requires."""
        reduce = np.max if opcode == "REDUCE_MAX" else np.min
        y = self._fixed(name, reduce(x.values, axis=tuple(axes), keepdims=keep_dims), x.scale, x.zero_point)
        return self._op(opcode, [x, self._axes(name, axes)], y, {"keep_dims": keep_dims})

    def arg_extreme(self, opcode: str, x: Activation, axis: int, name: str = "arg") -> Activation:
        """ARG_MAX or ARG_MIN with int32 indices."""
        find = np.argmax if opcode == "ARG_MAX" else np.argmin
        values = find(x.values, axis=axis).astype(np.float64)
        index = self.model.tensor(self._name(name), (1, *values.shape[1:]), "int32")
        axis_tensor = self.model.constant(self._name(f"{name}/axis"), np.asarray([axis], dtype=np.int32))
        self.model.operator(opcode, [x.index, axis_tensor], [index], {"output_type": "int32"})
        return Activation(index, values, None)


def arithmetic_block(seed: int = 0) -> bytes:
    """8x8x4 -> two 3x3 convolutions a, b -> a - b, (a - b)^2 -> |a - b| -> max / min with a -> ADD_N ->
    SUM over space, MEAN over (height, channels), ARG_MAX / ARG_MIN over channels, RSQRT of the squared
    difference -> REDUCE_MAX / REDUCE_MIN over everything but the batch. Seven outputs."""
    graph = ArithmeticBuilder(name="arithmetic_block", seed=seed)
    x = graph.input("input", calibration_images(graph.rng, CALIBRATION_IMAGES, 8, 8, 4))
    a = graph.conv2d(x, 8, kernel=3, name="conv_a")
    b = graph.conv2d(x, 8, kernel=3, activation="NONE", name="conv_b", mean=0.0)
    difference = graph.sub(a, b)
    square = graph.squared_difference(a, b)
    magnitude = graph.abs(difference, like=a)
    high, low = graph.maximum(a, magnitude), graph.minimum(a, magnitude)
    total = graph.add_n([high, low, a])
    graph.output(graph.reduce_sum(total, axes=(1, 2), name="spatial_sum"))
    graph.output(graph.mean(square, axes=(1, 3), keep_dims=False, name="row_mean"))
    graph.output(graph.arg_extreme("ARG_MAX", total, axis=3, name="arg_max"))
    graph.output(graph.arg_extreme("ARG_MIN", difference, axis=3, name="arg_min"))
    inverse = graph.rsqrt(square)
    graph.output(graph.reduce_extreme("REDUCE_MAX", inverse, axes=(1, 2, 3), name="largest"))
    graph.output(graph.reduce_extreme("REDUCE_MIN", inverse, axes=(1, 2, 3), keep_dims=True, name="smallest"))
    graph.output(graph.abs(difference, name="magnitude"))
    return graph.build()
