"""The intermediate representation: a graph of tensors and operators in execution order.

Plain data, produced by the importer (or built directly in tests) and read by every later stage.
Tensor and operator references are indices into `Graph.tensors` / `Graph.operators`; an absent
optional operator input is `-1`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np


class DType(enum.Enum):
    INT8 = ("int8", np.int8, "int8_t")
    # 4-bit weights: held unpacked (one int8 per element) in Tensor.data; two per byte in the file and in flash.
    INT4 = ("int4", np.int8, "int8_t")
    UINT8 = ("uint8", np.uint8, "uint8_t")
    INT16 = ("int16", np.int16, "int16_t")
    INT32 = ("int32", np.int32, "int32_t")
    INT64 = ("int64", np.int64, "int64_t")
    FLOAT32 = ("float32", np.float32, "float")
    BOOL = ("bool", np.bool_, "uint8_t")

    def __init__(self, label: str, numpy_type: type, c_type: str) -> None:
        self.label = label
        self.numpy_type = numpy_type
        self.c_type = c_type

    @property
    def itemsize(self) -> int:
        return np.dtype(self.numpy_type).itemsize

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True)
class Quantization:
    """Affine quantization: real = scale * (q - zero_point), per tensor or per channel along `axis`."""

    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int = 0

    @property
    def per_channel(self) -> bool:
        return len(self.scales) > 1

    @property
    def scale(self) -> float:
        """The per-tensor scale (first entry for per-channel parameters)."""
        return self.scales[0]

    @property
    def zero_point(self) -> int:
        return self.zero_points[0]


@dataclass
class Tensor:
    index: int
    name: str
    shape: tuple[int, ...]
    dtype: DType
    quantization: Quantization | None = None
    data: np.ndarray | None = None  # constant contents, already shaped and typed
    is_variable: bool = False  # TFLite variable tensor: state kept from one invocation to the next (issue 12)

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def num_elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def nbytes(self) -> int:
        if self.dtype is DType.INT4:  # packed two per byte, an odd count padded with a zero nibble
            return (self.num_elements + 1) // 2
        return self.num_elements * self.dtype.itemsize

    def describe(self) -> str:
        return f"tensor {self.index} '{self.name}' {list(self.shape)} {self.dtype}"


@dataclass
class Operator:
    index: int
    opcode: str  # TFLite builtin name, e.g. "CONV_2D"
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    # Builtin options, decoded by the importer. Enumerations are strings ("SAME", "RELU6"); see
    # frontend/builtin_options.OPTION_DECODERS for the keys of each operator.
    options: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        return f"operator {self.index} ({self.opcode})"


@dataclass
class Graph:
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    name: str = "model"

    @property
    def activation_tensors(self) -> list[Tensor]:
        """Every tensor that needs RAM: graph inputs, intermediates and outputs (not constants)."""
        used = {i for op in self.operators for i in (*op.inputs, *op.outputs) if i >= 0}
        used.update(self.inputs)
        used.update(self.outputs)
        return [t for t in self.tensors if t.index in used and not t.is_constant]

    @property
    def state_tensors(self) -> list[Tensor]:
        """The variable tensors operators use: they keep their bytes from one invocation to the next."""
        return [t for t in self.activation_tensors if t.is_variable]
