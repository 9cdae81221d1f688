"""A small writer of TFLite flatbuffers, for synthetic test models.

The `tflite` package only reads; this module writes the same schema with the `flatbuffers` Builder. Each table is
a list of `(slot, kind, value)` fields: the slot is the field's position in the schema (the reader's
`self._tab.Offset(4 + 2 * slot)`), the kind names the Builder's `Prepend<kind>Slot` method, or "offset" for a
table, vector or string written beforehand.

Builtin options missing from `options` take the TFLite schema defaults, except that strides, dilations and the depth
multiplier default to 1 (the schema's 0 is not a valid value): padding SAME, activation NONE, keep_num_dims / keep_dims
False, softmax beta 1.0, concatenation axis 0, squeeze_dims () (= every size-1 axis). Pooling needs filter_h, filter_w.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import flatbuffers
import numpy as np
from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.Padding import Padding
from tflite.TensorType import TensorType

from firmware_gen.modelgen import family_options
from firmware_gen.nibbles import pack_int4

SCHEMA_VERSION = 3
FILE_IDENTIFIER = b"TFL3"
_BUFFER_ALIGNMENT = 16  # constant data is read in place by TFLM: keep int32/int64/float data aligned

_TENSOR_TYPES = {name: getattr(TensorType, name.upper())
                 for name in ("int4", "int8", "uint8", "int16", "int32", "int64", "float32", "bool")}

# Operator versions as the TFLite converter writes them for int8 models (TFLM does not check them).
_VERSIONS = {
    "CONV_2D": 3, "DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 4, "AVERAGE_POOL_2D": 2, "MAX_POOL_2D": 2,
    "ADD": 2, "MUL": 2, "RESHAPE": 1, "SQUEEZE": 1, "SOFTMAX": 2, "QUANTIZE": 2, "DEQUANTIZE": 2, "PAD": 2, "PADV2": 2,
    "MEAN": 2, "CONCATENATION": 2, "TRANSPOSE": 2, "LOGISTIC": 2,
    **family_options.VERSIONS,
}

Field = tuple[int, str, Any]  # (schema slot, Builder kind or "offset", value)


def _table(builder: flatbuffers.Builder, fields: Sequence[Field]) -> int:
    """Write one table; every field is written explicitly (no default elision)."""
    builder.StartObject(max((slot for slot, _, _ in fields), default=-1) + 1)
    for slot, kind, value in fields:
        if kind == "offset":
            builder.PrependUOffsetTRelativeSlot(slot, value, 0)
        else:
            getattr(builder, f"Prepend{kind}Slot")(slot, value, None)
    return builder.EndObject()


def _numbers(builder: flatbuffers.Builder, values: Sequence[float | int], dtype: type) -> int:
    return builder.CreateNumpyVector(np.asarray(values, dtype=dtype).reshape(-1))


def _offsets(builder: flatbuffers.Builder, offsets: Sequence[int]) -> int:
    builder.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return builder.EndVector()


def _aligned_bytes(builder: flatbuffers.Builder, payload: bytes) -> int:
    builder.StartVector(1, len(payload), _BUFFER_ALIGNMENT)
    builder.head -= len(payload)
    builder.Bytes[builder.head:builder.head + len(payload)] = payload
    return builder.EndVector()


# ---- builtin options: opcode -> (BuiltinOptions union type, writer of the option fields) ----

def _activation(options: dict[str, Any]) -> int:
    return getattr(ActivationFunctionType, options.get("activation", "NONE"))


def _padding(options: dict[str, Any]) -> int:
    return getattr(Padding, options.get("padding", "SAME"))


def _conv_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    return [(0, "Int8", _padding(o)), (1, "Int32", o.get("stride_w", 1)), (2, "Int32", o.get("stride_h", 1)),
            (3, "Int8", _activation(o)), (4, "Int32", o.get("dilation_w", 1)), (5, "Int32", o.get("dilation_h", 1))]


def _depthwise_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    return [(0, "Int8", _padding(o)), (1, "Int32", o.get("stride_w", 1)), (2, "Int32", o.get("stride_h", 1)),
            (3, "Int32", o.get("depth_multiplier", 1)), (4, "Int8", _activation(o)),
            (5, "Int32", o.get("dilation_w", 1)), (6, "Int32", o.get("dilation_h", 1))]


def _pool_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    return [(0, "Int8", _padding(o)), (1, "Int32", o.get("stride_w", 1)), (2, "Int32", o.get("stride_h", 1)),
            (3, "Int32", o["filter_w"]), (4, "Int32", o["filter_h"]), (5, "Int8", _activation(o))]


def _fully_connected_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    return [(0, "Int8", _activation(o)), (1, "Int8", 0), (2, "Bool", bool(o.get("keep_num_dims", False)))]


def _activation_only(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    return [(0, "Int8", _activation(o))]


def _reshape_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    shape = o.get("new_shape")
    return [] if shape is None else [(0, "offset", _numbers(builder, shape, np.int32))]


def _squeeze_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    return [(0, "offset", _numbers(builder, o.get("squeeze_dims", ()), np.int32))]


def _no_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> list[Field]:
    return []


OptionWriter = Callable[[flatbuffers.Builder, dict[str, Any]], list[Field]]
OPTION_WRITERS: dict[str, tuple[int, OptionWriter]] = {
    "CONV_2D": (BuiltinOptions.Conv2DOptions, _conv_fields),
    "DEPTHWISE_CONV_2D": (BuiltinOptions.DepthwiseConv2DOptions, _depthwise_fields),
    "FULLY_CONNECTED": (BuiltinOptions.FullyConnectedOptions, _fully_connected_fields),
    "AVERAGE_POOL_2D": (BuiltinOptions.Pool2DOptions, _pool_fields),
    "MAX_POOL_2D": (BuiltinOptions.Pool2DOptions, _pool_fields),
    "ADD": (BuiltinOptions.AddOptions, _activation_only),
    "MUL": (BuiltinOptions.MulOptions, _activation_only),
    "SOFTMAX": (BuiltinOptions.SoftmaxOptions, lambda b, o: [(0, "Float32", float(o.get("beta", 1.0)))]),
    "CONCATENATION": (BuiltinOptions.ConcatenationOptions,
                      lambda b, o: [(0, "Int32", o.get("axis", 0)), (1, "Int8", _activation(o))]),
    "MEAN": (BuiltinOptions.ReducerOptions, lambda b, o: [(0, "Bool", bool(o.get("keep_dims", False)))]),
    "RESHAPE": (BuiltinOptions.ReshapeOptions, _reshape_fields),
    "SQUEEZE": (BuiltinOptions.SqueezeOptions, _squeeze_fields),
    "PAD": (BuiltinOptions.PadOptions, _no_fields),
    "PADV2": (BuiltinOptions.PadV2Options, _no_fields),
    "TRANSPOSE": (BuiltinOptions.TransposeOptions, _no_fields),
    "QUANTIZE": (BuiltinOptions.QuantizeOptions, _no_fields),
    "DEQUANTIZE": (BuiltinOptions.DequantizeOptions, _no_fields),
    "LOGISTIC": (BuiltinOptions.NONE, _no_fields),  # the schema has no LogisticOptions
    **family_options.OPTION_WRITERS,
}


@dataclass
class _Tensor:
    name: str
    shape: tuple[int, ...]
    dtype: str
    scales: tuple[float, ...] | None
    zero_points: tuple[int, ...]
    axis: int
    data: bytes | None
    variable: bool = False  # a TFLite variable tensor (is_variable): state kept from one invoke to the next


@dataclass
class _Operator:
    opcode: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    options: dict[str, Any]
    intermediates: tuple[int, ...] = ()  # tensors only the kernel's preparation reads (the converter's LSTM scales)


def _quantization(scale: float | Sequence[float] | None, zero_point: int | Sequence[int],
                  ) -> tuple[tuple[float, ...] | None, tuple[int, ...]]:
    if scale is None:
        return None, ()
    scales = tuple(float(s) for s in np.atleast_1d(np.asarray(scale, dtype=np.float64)))
    zero_points = tuple(int(z) for z in np.atleast_1d(np.asarray(zero_point, dtype=np.int64)))
    if len(zero_points) == 1 and len(scales) > 1:
        zero_points *= len(scales)
    if len(zero_points) != len(scales):
        raise ValueError(f"{len(scales)} scales but {len(zero_points)} zero points")
    return scales, zero_points


class ModelBuilder:
    """Collects tensors and operators of one subgraph, then writes a TFLite flatbuffer with `build()`."""

    def __init__(self, name: str = "model") -> None:
        self.name = name
        self.tensors: list[_Tensor] = []
        self.operators: list[_Operator] = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def tensor(self, name: str, shape: Sequence[int], dtype: str, scale: float | Sequence[float] | None = None,
               zero_point: int | Sequence[int] = 0, axis: int = 0, variable: bool = False) -> int:
        """A non-constant tensor (`variable`: TFLite state, zeroed at start); `scale=None` leaves it unquantized."""
        if dtype not in _TENSOR_TYPES:
            raise ValueError(f"dtype {dtype!r} is not one of {', '.join(_TENSOR_TYPES)}")
        scales, zero_points = _quantization(scale, zero_point)
        self.tensors.append(_Tensor(name, tuple(map(int, shape)), dtype, scales, zero_points, axis, None, variable))
        return len(self.tensors) - 1

    def input(self, name: str, shape: Sequence[int], dtype: str, scale: float | Sequence[float] | None = None,
              zero_point: int | Sequence[int] = 0) -> int:
        index = self.tensor(name, shape, dtype, scale, zero_point)
        self.inputs.append(index)
        return index

    def constant(self, name: str, data: np.ndarray, scale: float | Sequence[float] | None = None,
                 zero_point: int | Sequence[int] = 0, axis: int = 0, int4: bool = False) -> int:
        """A constant tensor holding `data` (its dtype and shape are the tensor's; `int4`: an INT4 tensor of the
        values in [-8, 7], packed two per byte)."""
        data = np.asarray(data)
        index = self.tensor(name, data.shape, "int4" if int4 else data.dtype.name, scale, zero_point, axis)
        little = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<"))
        self.tensors[index].data = pack_int4(data) if int4 else little.tobytes()
        return index

    def operator(self, opcode: str, inputs: Sequence[int], outputs: Sequence[int],
                 options: dict[str, Any] | None = None, intermediates: Sequence[int] = ()) -> int:
        """Append an operator (executed in the order added); `-1` in `inputs` is an absent optional input."""
        if opcode not in OPTION_WRITERS:
            raise ValueError(f"operator {opcode!r} is not one of {', '.join(OPTION_WRITERS)}")
        options, inputs = dict(options or {}), tuple(inputs)
        if opcode == "RESHAPE":  # as converters do: the target shape both as option and as int32 input
            options.setdefault("new_shape", self.tensors[outputs[0]].shape)
            if len(inputs) == 1:
                shape = np.asarray(options["new_shape"], dtype=np.int32)
                inputs += (self.constant(f"{self.tensors[outputs[0]].name}/shape", shape),)
        self.operators.append(_Operator(opcode, inputs, tuple(outputs), options, tuple(intermediates)))
        return len(self.operators) - 1

    def output(self, index: int) -> None:
        self.outputs.append(index)

    def build(self) -> bytes:
        builder = flatbuffers.Builder(1024 + sum(len(t.data or b"") for t in self.tensors))
        buffers = [_table(builder, [])]  # buffer 0: the empty sentinel TFLite requires
        buffer_of: dict[int, int] = {}
        for index, tensor in enumerate(self.tensors):
            if tensor.data is not None:
                buffer_of[index] = len(buffers)
                buffers.append(_table(builder, [(0, "offset", _aligned_bytes(builder, tensor.data))]))
        tensors = [self._write_tensor(builder, t, buffer_of.get(i, 0)) for i, t in enumerate(self.tensors)]
        opcodes = list(dict.fromkeys(op.opcode for op in self.operators))
        operators = [self._write_operator(builder, op, opcodes.index(op.opcode)) for op in self.operators]
        subgraph = _table(builder, [
            (0, "offset", _offsets(builder, tensors)),
            (1, "offset", _numbers(builder, self.inputs, np.int32)),
            (2, "offset", _numbers(builder, self.outputs, np.int32)),
            (3, "offset", _offsets(builder, operators)),
            (4, "offset", builder.CreateString(self.name)),
        ])
        codes = [self._write_opcode(builder, name) for name in opcodes]
        model = _table(builder, [
            (0, "Uint32", SCHEMA_VERSION),
            (1, "offset", _offsets(builder, codes)),
            (2, "offset", _offsets(builder, [subgraph])),
            (3, "offset", builder.CreateString(f"firmware-gen modelgen: {self.name}")),
            (4, "offset", _offsets(builder, buffers)),
        ])
        builder.Finish(model, file_identifier=FILE_IDENTIFIER)
        return bytes(builder.Output())

    @staticmethod
    def _write_tensor(builder: flatbuffers.Builder, tensor: _Tensor, buffer: int) -> int:
        fields: list[Field] = [
            (0, "offset", _numbers(builder, tensor.shape, np.int32)),
            (1, "Int8", _TENSOR_TYPES[tensor.dtype]),
            (2, "Uint32", buffer),
            (3, "offset", builder.CreateString(tensor.name)),
            *([(5, "Bool", True)] if tensor.variable else []),
        ]
        if tensor.scales is not None:
            quantization = _table(builder, [
                (2, "offset", _numbers(builder, tensor.scales, np.float32)),
                (3, "offset", _numbers(builder, tensor.zero_points, np.int64)),
                (6, "Int32", tensor.axis),
            ])
            fields.append((4, "offset", quantization))
        return _table(builder, fields)

    @staticmethod
    def _write_operator(builder: flatbuffers.Builder, op: _Operator, opcode_index: int) -> int:
        options_type, write_fields = OPTION_WRITERS[op.opcode]
        fields: list[Field] = [
            (0, "Uint32", opcode_index),
            (1, "offset", _numbers(builder, op.inputs, np.int32)),
            (2, "offset", _numbers(builder, op.outputs, np.int32)),
        ]
        if options_type != BuiltinOptions.NONE:
            options = _table(builder, write_fields(builder, op.options))
            fields += [(3, "Uint8", options_type), (4, "offset", options)]
        if op.intermediates:
            fields.append((8, "offset", _numbers(builder, op.intermediates, np.int32)))
        return _table(builder, fields)

    @staticmethod
    def _write_opcode(builder: flatbuffers.Builder, opcode: str) -> int:
        code = getattr(BuiltinOperator, opcode)
        return _table(builder, [(0, "Int8", min(code, 127)), (2, "Int32", _VERSIONS[opcode]), (3, "Int32", code)])
