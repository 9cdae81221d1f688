"""The float model an int8 graph was quantized from, as a post-training quantizer starts from it: the same
operators on float32 tensors, for `validate --reference` (quantization error against the float model).

The twin is written from the int8 graph's `ModelBuilder`: every quantized activation becomes an unquantized float32
tensor of the same shape; weights and biases take their float values before quantization where the builder kept
them (`float_constants`, by tensor index), else their dequantized values; other constants (shapes, axes,
permutations, paddings) stay as they are. QUANTIZE and DEQUANTIZE become nothing (their output is their input).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from firmware_gen.modelgen.writer import ModelBuilder

_CONVERSIONS = ("QUANTIZE", "DEQUANTIZE")


def _dequantized(tensor) -> np.ndarray:
    values = np.frombuffer(tensor.data or b"", dtype=np.dtype(tensor.dtype).newbyteorder("<")).reshape(tensor.shape)
    scales, zero_points = np.asarray(tensor.scales), np.asarray(tensor.zero_points)
    if scales.size > 1:  # per channel along the quantized axis
        shape = [1] * values.ndim
        shape[tensor.axis] = -1
        scales, zero_points = scales.reshape(shape), zero_points.reshape(shape)
    return (values.astype(np.float64) - zero_points) * scales


class _Twin:
    def __init__(self, source: ModelBuilder, float_constants: Mapping[int, np.ndarray]) -> None:
        self.source, self.float_constants = source, float_constants
        self.model = ModelBuilder(name=f"{source.name}_float")
        self.index: dict[int, int] = {}
        self.same_as = {op.outputs[0]: op.inputs[0] for op in source.operators if op.opcode in _CONVERSIONS}

    def tensor(self, old: int) -> int:
        """The twin's index of the int8 graph's tensor `old` (written on first use); -1 stays absent."""
        if old < 0:
            return old
        while old in self.same_as:
            old = self.same_as[old]
        if old not in self.index:
            self.index[old] = self._write(self.source.tensors[old], old)
        return self.index[old]

    def _write(self, tensor, old: int) -> int:
        if tensor.data is None:
            return self.model.tensor(tensor.name, tensor.shape, "float32")
        if old in self.float_constants:
            data = np.asarray(self.float_constants[old], dtype=np.float32).reshape(tensor.shape)
        elif tensor.scales is not None:
            data = _dequantized(tensor).astype(np.float32)
        else:
            data = np.frombuffer(tensor.data, dtype=np.dtype(tensor.dtype).newbyteorder("<")).reshape(tensor.shape)
        return self.model.constant(tensor.name, data)

    def build(self) -> bytes:
        for op in self.source.operators:
            if op.opcode not in _CONVERSIONS:
                self.model.operator(op.opcode, [self.tensor(i) for i in op.inputs],
                                    [self.tensor(i) for i in op.outputs], op.options)
        self.model.inputs = [self.tensor(i) for i in self.source.inputs]
        self.model.outputs = [self.tensor(i) for i in self.source.outputs]
        return self.model.build()


def float_twin(source: ModelBuilder, float_constants: Mapping[int, np.ndarray] | None = None) -> bytes:
    """The float32 model of the int8 graph in `source` (a TFLite flatbuffer)."""
    return _Twin(source, float_constants or {}).build()
