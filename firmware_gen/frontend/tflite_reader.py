"""TFLite flatbuffer -> IR.

Every index and buffer bound is checked before use: a truncated or corrupt file, several subgraphs, dynamic
shapes, unsupported dtypes and unsupported operators end in one `UserError` naming what is wrong.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import tflite
from tflite.BuiltinOperator import BuiltinOperator
from tflite.TensorType import TensorType

from firmware_gen.errors import ModelFormatError, UnsupportedModelError
from firmware_gen.frontend.builtin_options import OPTION_DECODERS, TENSOR_TYPE_NAMES
from firmware_gen.frontend.dataflow import check_dataflow
from firmware_gen.frontend.ir import DType, Graph, Operator, Quantization, Tensor
from firmware_gen.nibbles import unpack_int4

_OPCODE_NAMES = {value: name for name, value in vars(BuiltinOperator).items() if not name.startswith("_")}
_DTYPES = {
    TensorType.INT8: DType.INT8,
    TensorType.INT4: DType.INT4,
    TensorType.UINT8: DType.UINT8,
    TensorType.INT16: DType.INT16,
    TensorType.INT32: DType.INT32,
    TensorType.INT64: DType.INT64,
    TensorType.FLOAT32: DType.FLOAT32,
    TensorType.BOOL: DType.BOOL,
}


_CONTROL_FLOW = {"IF", "WHILE", "CALL_ONCE"}  # operators that run other subgraphs


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
            raise UnsupportedModelError(f"{self.source}: has {model.SubgraphsLength()} subgraphs"
                                        f"{self._control_flow(model)}; firmware-gen compiles models with exactly one")
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

    def _control_flow(self, model: Any) -> str:
        """', control flow: operator 3 is WHILE, ...' for the operators of the main subgraph that call others."""
        if not model.SubgraphsLength():
            return ""
        main, found = model.Subgraphs(0), []
        for index in range(main.OperatorsLength()):
            code_index = main.Operators(index).OpcodeIndex()
            if 0 <= code_index < model.OperatorCodesLength():
                code = model.OperatorCodes(code_index)
                name = _OPCODE_NAMES.get(max(code.BuiltinCode(), code.DeprecatedBuiltinCode()), "")
                if name in _CONTROL_FLOW:
                    found.append(f"operator {index} is {name}")
        return f" (control flow: {', '.join(found)})" if found else ""

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
            type_name = TENSOR_TYPE_NAMES.get(type_code, f"type code {type_code}")
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
        if dtype is DType.INT4:
            self._check_int4(tensor)
        return tensor

    def _check_int4(self, tensor: Tensor) -> None:
        """TFLite Micro runs 4-bit tensors only as constant, symmetric weights."""
        if tensor.data is None:
            raise UnsupportedModelError(f"{self.source}: {tensor.describe()} is a 4-bit activation; firmware-gen, as "
                                        "TFLite Micro, takes int4 only for constant weights")
        zero_points = tensor.quantization.zero_points if tensor.quantization else ()
        if any(zero_points):
            raise UnsupportedModelError(f"{self.source}: {tensor.describe()} has zero point "
                                        f"{next(z for z in zero_points if z)}; 4-bit weights must be symmetric "
                                        "(zero point 0)")

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
            packing = " (two 4-bit values per byte)" if tensor.dtype is DType.INT4 else ""
            raise self.fail(f"{tensor.describe()} needs {tensor.nbytes} bytes of data{packing}, its buffer holds "
                            f"{len(raw)}")
        if tensor.dtype is DType.INT4:
            return unpack_int4(raw, tensor.num_elements).reshape(tensor.shape)
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
