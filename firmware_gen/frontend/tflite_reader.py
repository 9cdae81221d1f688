"""TFLite flatbuffer -> IR.

Every index and buffer bound is checked before use: a truncated or corrupt file, several subgraphs, dynamic
shapes, unsupported dtypes and unsupported operators end in one `UserError` naming what is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import tflite
from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOperator import BuiltinOperator
from tflite.Padding import Padding
from tflite.TensorType import TensorType

from firmware_gen.errors import ModelFormatError, UnsupportedModelError
from firmware_gen.frontend.dataflow import check_dataflow
from firmware_gen.frontend.ir import DType, Graph, Operator, Quantization, Tensor

_OPCODE_NAMES = {value: name for name, value in vars(BuiltinOperator).items() if not name.startswith("_")}
_ACTIVATIONS = {value: name for name, value in vars(ActivationFunctionType).items() if not name.startswith("_")}
_PADDINGS = {value: name for name, value in vars(Padding).items() if not name.startswith("_")}
_TENSOR_TYPES = {value: name for name, value in vars(TensorType).items() if not name.startswith("_")}
_DTYPES = {
    TensorType.INT8: DType.INT8,
    TensorType.UINT8: DType.UINT8,
    TensorType.INT16: DType.INT16,
    TensorType.INT32: DType.INT32,
    TensorType.INT64: DType.INT64,
    TensorType.FLOAT32: DType.FLOAT32,
    TensorType.BOOL: DType.BOOL,
}


def _activation(options: Any) -> str:
    return _ACTIVATIONS.get(options.FusedActivationFunction(), "UNKNOWN")


def _window(options: Any) -> dict[str, Any]:
    return {
        "padding": _PADDINGS.get(options.Padding(), "UNKNOWN"),
        "stride_h": options.StrideH(),
        "stride_w": options.StrideW(),
        "activation": _activation(options),
    }


def _conv(options: Any) -> dict[str, Any]:
    return {**_window(options), "dilation_h": options.DilationHFactor(), "dilation_w": options.DilationWFactor()}


def _depthwise(options: Any) -> dict[str, Any]:
    return {**_conv(options), "depth_multiplier": options.DepthMultiplier()}


def _pool(options: Any) -> dict[str, Any]:
    return {**_window(options), "filter_h": options.FilterHeight(), "filter_w": options.FilterWidth()}


def _fully_connected(options: Any) -> dict[str, Any]:
    return {"activation": _activation(options), "keep_num_dims": bool(options.KeepNumDims()),
            "weights_format": options.WeightsFormat()}


def _reshape(options: Any) -> dict[str, Any]:
    return {"new_shape": None if options.NewShapeIsNone() else tuple(int(d) for d in options.NewShapeAsNumpy())}


def _squeeze(options: Any) -> dict[str, Any]:
    return {"squeeze_dims": () if options.SqueezeDimsIsNone() else tuple(int(d) for d in options.SqueezeDimsAsNumpy())}


# opcode -> (options table class, decoder). Operators absent here take no options.
OPTION_DECODERS: dict[str, tuple[type, Callable[[Any], dict[str, Any]]]] = {
    "CONV_2D": (tflite.Conv2DOptions, _conv),
    "DEPTHWISE_CONV_2D": (tflite.DepthwiseConv2DOptions, _depthwise),
    "FULLY_CONNECTED": (tflite.FullyConnectedOptions, _fully_connected),
    "AVERAGE_POOL_2D": (tflite.Pool2DOptions, _pool),
    "MAX_POOL_2D": (tflite.Pool2DOptions, _pool),
    "ADD": (tflite.AddOptions, lambda o: {"activation": _activation(o)}),
    "MUL": (tflite.MulOptions, lambda o: {"activation": _activation(o)}),
    "SOFTMAX": (tflite.SoftmaxOptions, lambda o: {"beta": float(o.Beta())}),
    "CONCATENATION": (tflite.ConcatenationOptions, lambda o: {"axis": o.Axis(), "activation": _activation(o)}),
    "MEAN": (tflite.ReducerOptions, lambda o: {"keep_dims": bool(o.KeepDims())}),
    "RESHAPE": (tflite.ReshapeOptions, _reshape),
    "SQUEEZE": (tflite.SqueezeOptions, _squeeze),
    # stateful models (issue 12)
    "SVDF": (tflite.SVDFOptions, lambda o: {"rank": o.Rank(), "activation": _activation(o)}),
}


def _first_bad(scales: tuple[float, ...]) -> float:
    return next(s for s in scales if not math.isfinite(s))


class _Reader:
    """Reads one model, checking every reference against what the file really holds."""

    def __init__(self, data: bytes, source: str) -> None:
        self.data = data
        self.source = source

    def fail(self, what: str) -> ModelFormatError:
        return ModelFormatError(f"{self.source}: {what}")

    def read(self) -> Graph:
        if len(self.data) < 8 or not tflite.Model.ModelBufferHasIdentifier(self.data, 0):
            raise self.fail("not a TFLite model (no 'TFL3' file identifier)")
        try:
            return self._read_model(tflite.Model.GetRootAsModel(self.data, 0))
        except (ModelFormatError, UnsupportedModelError):
            raise
        except Exception as error:  # the flatbuffer reader raises many kinds on a corrupt file
            raise self.fail(f"corrupt or truncated TFLite flatbuffer ({type(error).__name__}: {error})") from None

    def _read_model(self, model: Any) -> Graph:
        if model.SubgraphsLength() != 1:
            raise UnsupportedModelError(f"{self.source}: has {model.SubgraphsLength()} subgraphs; "
                                        "firmware-gen compiles models with exactly one")
        subgraph = model.Subgraphs(0)
        tensors = [self._read_tensor(model, subgraph, i) for i in range(subgraph.TensorsLength())]
        operators = [self._read_operator(model, subgraph, i, len(tensors)) for i in range(subgraph.OperatorsLength())]
        inputs = self._tensor_refs(subgraph.InputsAsNumpy() if subgraph.InputsLength() else [], len(tensors),
                                   "graph input")
        outputs = self._tensor_refs(subgraph.OutputsAsNumpy() if subgraph.OutputsLength() else [], len(tensors),
                                    "graph output")
        if not inputs or not outputs:
            raise self.fail("the graph declares no inputs or no outputs")
        name = Path(self.source).stem if self.source else "model"
        graph = Graph(tensors=tensors, operators=operators, inputs=inputs, outputs=outputs, name=name)
        check_dataflow(graph, self.source)
        return graph

    def _tensor_refs(self, refs: Any, count: int, what: str, optional: bool = False) -> tuple[int, ...]:
        result = []
        for ref in refs:
            ref = int(ref)
            if ref == -1 and optional:
                result.append(-1)
                continue
            if not 0 <= ref < count:
                raise self.fail(f"{what} refers to tensor {ref}, but the graph has {count} tensors")
            result.append(ref)
        return tuple(result)

    def _read_tensor(self, model: Any, subgraph: Any, index: int) -> Tensor:
        raw = subgraph.Tensors(index)
        name = (raw.Name() or b"").decode("utf-8", "replace")
        where = f"tensor {index} '{name}'"
        type_code = raw.Type()
        dtype = _DTYPES.get(type_code)
        if dtype is None:
            type_name = _TENSOR_TYPES.get(type_code, f"type code {type_code}")
            raise UnsupportedModelError(f"{self.source}: {where} has dtype {type_name}; supported: "
                                        + ", ".join(str(d) for d in DType))
        shape = tuple(int(d) for d in raw.ShapeAsNumpy()) if raw.ShapeLength() else ()
        signature = tuple(int(d) for d in raw.ShapeSignatureAsNumpy()) if raw.ShapeSignatureLength() else ()
        if any(d < 0 for d in shape) or any(d < 0 for d in signature[1:]):
            raise UnsupportedModelError(f"{self.source}: {where} has a dynamic shape {list(signature or shape)}; "
                                        "firmware-gen needs static shapes")
        tensor = Tensor(index=index, name=name, shape=shape, dtype=dtype,
                        quantization=self._read_quantization(raw.Quantization(), where),
                        is_variable=bool(raw.IsVariable()))
        tensor.data = self._read_constant(model, raw.Buffer(), tensor)
        return tensor

    def _read_quantization(self, raw: Any, where: str) -> Quantization | None:
        if raw is None or raw.ScaleLength() == 0:
            return None
        scales = tuple(float(s) for s in raw.ScaleAsNumpy())
        zero_points = tuple(int(z) for z in raw.ZeroPointAsNumpy()) if raw.ZeroPointLength() else (0,) * len(scales)
        if len(zero_points) != len(scales):
            raise self.fail(f"{where} has {len(scales)} scales but {len(zero_points)} zero points")
        if not all(math.isfinite(s) for s in scales):
            raise self.fail(f"{where} has a scale that is not a finite number ({_first_bad(scales)})")
        # A single scale's quantized dimension is meaningless (person_detect's rank-1 biases say 3): normalise it.
        axis = int(raw.QuantizedDimension()) if len(scales) > 1 else 0
        return Quantization(scales=scales, zero_points=zero_points, axis=axis)

    def _read_constant(self, model: Any, buffer_index: int, tensor: Tensor) -> np.ndarray | None:
        if not 0 <= buffer_index < model.BuffersLength():
            raise self.fail(f"{tensor.describe()} refers to buffer {buffer_index}, "
                            f"but the file has {model.BuffersLength()} buffers")
        buffer = model.Buffers(buffer_index)
        if buffer.Offset() > 1:  # data stored after the flatbuffer (large-model layout)
            start, size = buffer.Offset(), buffer.Size()
            if start + size > len(self.data):
                raise self.fail(f"{tensor.describe()} data [{start}, {start + size}) lies past the end of the "
                                f"{len(self.data)}-byte file")
            raw = self.data[start:start + size]
        elif buffer.DataLength():
            raw = buffer.DataAsNumpy().tobytes()
        else:
            return None
        if len(raw) != tensor.nbytes:
            raise self.fail(f"{tensor.describe()} needs {tensor.nbytes} bytes of data, its buffer holds {len(raw)}")
        return np.frombuffer(raw, dtype=tensor.dtype.numpy_type).reshape(tensor.shape).copy()

    def _read_operator(self, model: Any, subgraph: Any, index: int, tensor_count: int) -> Operator:
        raw = subgraph.Operators(index)
        opcode_index = raw.OpcodeIndex()
        if not 0 <= opcode_index < model.OperatorCodesLength():
            raise self.fail(f"operator {index} uses operator code {opcode_index}, "
                            f"but the file has {model.OperatorCodesLength()}")
        code = model.OperatorCodes(opcode_index)
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        opcode = _OPCODE_NAMES.get(builtin, f"builtin code {builtin}")
        if opcode == "CUSTOM":
            opcode = f"CUSTOM ({(code.CustomCode() or b'').decode('utf-8', 'replace')})"
        inputs = self._tensor_refs(raw.InputsAsNumpy() if raw.InputsLength() else [], tensor_count,
                                   f"operator {index} ({opcode}) input", optional=True)
        outputs = self._tensor_refs(raw.OutputsAsNumpy() if raw.OutputsLength() else [], tensor_count,
                                    f"operator {index} ({opcode}) output")
        return Operator(index=index, opcode=opcode, inputs=inputs, outputs=outputs,
                        options=self._read_options(raw, opcode))

    def _read_options(self, raw: Any, opcode: str) -> dict[str, Any]:
        decoder = OPTION_DECODERS.get(opcode)
        table = raw.BuiltinOptions()
        if decoder is None or table is None:
            return {}
        options_class, decode = decoder
        options = options_class()
        options.Init(table.Bytes, table.Pos)
        return decode(options)


def read_model(data: bytes, source: str = "model") -> Graph:
    """Parse and check a TFLite flatbuffer (not yet whether firmware-gen supports its operators)."""
    return _Reader(data, source).read()


def load_model(path: str | Path) -> Graph:
    """Read a .tflite file (whether firmware-gen supports its operators is the operator stage's question)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ModelFormatError(f"{path}: cannot read ({error.strerror})") from None
    return read_model(data, str(path))
