"""The result of planning: where each alias group lives, in one or several pools."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_POOL = ""  # the name of the single pool of a plan made without pool specs

# What a buffer holds, as the plan records it (the memory timeline colours by it): a model input or output, an
# activation between operators, a kernel's scratch space, or state kept from one invoke to the next.
BUFFER_KINDS = ("input", "output", "intermediate", "scratch", "state")


@dataclass(frozen=True)
class PoolSpec:
    """A RAM region the plan may use. Pools are filled in increasing `priority` (fast, small memory first); a pool
    without a size limit takes whatever the earlier pools could not hold."""

    name: str = DEFAULT_POOL
    size_limit: int | None = None
    priority: int = 0


@dataclass(frozen=True)
class PlannedBuffer:
    tensors: tuple[int, ...]  # the alias group, root first
    offset: int
    size: int
    first_op: int
    last_op: int
    pool: str = DEFAULT_POOL
    kind: str = "intermediate"  # one of BUFFER_KINDS

    def __post_init__(self) -> None:
        if self.kind not in BUFFER_KINDS:
            raise ValueError(f"buffer {self.label}: kind {self.kind!r} is not one of {', '.join(BUFFER_KINDS)}")

    @property
    def tensor(self) -> int:
        return self.tensors[0]

    @property
    def end(self) -> int:
        return self.offset + self.size

    @property
    def label(self) -> str:
        return "=".join(f"t{i}" for i in self.tensors)


@dataclass
class MemoryPlan:
    pool_bytes: int  # all pools together
    lower_bound_bytes: int  # tensor level, with every size rounded up to `alignment`
    algorithm: str
    buffers: list[PlannedBuffer]
    alignment: int = 16
    unaligned_lower_bound_bytes: int = 0  # the same bound on raw sizes, for comparison with other planners
    overlap: bool = False  # whether operators' overlap allowances were used
    proven_optimal: bool = False  # no placement of these buffers (with these allowances) in these pools is smaller
    proven_lower_bound_bytes: int = 0  # the best bound proven for this problem (overlap-aware when overlapping)
    pools: list[PoolSpec] = field(default_factory=lambda: [PoolSpec()])
    pool_sizes: dict[str, int] = field(default_factory=dict)  # pool name -> bytes used
    outside: list[tuple[int, ...]] = field(default_factory=list)  # alias groups in the caller's memory, not planned
    _by_tensor: dict[int, PlannedBuffer] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_tensor = {index: buffer for buffer in self.buffers for index in buffer.tensors}
        if not self.pool_sizes:
            self.pool_sizes = {pool.name: max((b.end for b in self.buffers if b.pool == pool.name), default=0)
                               for pool in self.pools}
            if len(self.pools) == 1:
                self.pool_sizes[self.pools[0].name] = self.pool_bytes

    def is_outside(self, tensor_index: int) -> bool:
        """Whether the tensor lives in the caller's memory (a user buffer) instead of a pool."""
        return any(tensor_index in group for group in self.outside)

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
            "overlap": self.overlap,
            "proven_optimal": self.proven_optimal,
            "proven_lower_bound_bytes": self.proven_lower_bound_bytes,
            "outside": [list(group) for group in self.outside],
            "pools": [{"name": p.name, "bytes": self.pool_sizes[p.name], "limit": p.size_limit}
                      for p in self.pools],
            "buffers": [{"tensor": b.tensor, "tensors": list(b.tensors), "offset": b.offset, "size": b.size,
                         "first_op": b.first_op, "last_op": b.last_op, "pool": b.pool, "kind": b.kind}
                        for b in self.buffers],
        }
