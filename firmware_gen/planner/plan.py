"""The result of planning: where each alias group lives in the one workspace pool."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PlannedBuffer:
    tensors: tuple[int, ...]  # the alias group, root first
    offset: int
    size: int
    first_op: int
    last_op: int

    @property
    def tensor(self) -> int:
        return self.tensors[0]

    @property
    def end(self) -> int:
        return self.offset + self.size


@dataclass
class MemoryPlan:
    pool_bytes: int
    lower_bound_bytes: int  # with every size rounded up to `alignment`
    algorithm: str
    buffers: list[PlannedBuffer]
    alignment: int = 16
    unaligned_lower_bound_bytes: int = 0  # the same bound on raw sizes, for comparison with other planners
    _by_tensor: dict[int, PlannedBuffer] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_tensor = {index: buffer for buffer in self.buffers for index in buffer.tensors}

    def buffer_of(self, tensor_index: int) -> PlannedBuffer:
        try:
            return self._by_tensor[tensor_index]
        except KeyError:
            raise KeyError(f"tensor {tensor_index} is not in the memory plan") from None

    def offset_of(self, tensor_index: int) -> int:
        return self.buffer_of(tensor_index).offset

    def to_json(self) -> dict[str, Any]:
        return {
            "pool_bytes": self.pool_bytes,
            "lower_bound_bytes": self.lower_bound_bytes,
            "algorithm": self.algorithm,
            "buffers": [{"tensor": b.tensor, "tensors": list(b.tensors), "offset": b.offset, "size": b.size,
                         "first_op": b.first_op, "last_op": b.last_op} for b in self.buffers],
        }
