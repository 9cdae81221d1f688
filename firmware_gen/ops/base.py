"""What every operator module provides, and the kernel-call description that lowering produces.

Lowering turns one IR operator into a `KernelCall`: which C function runs it, the constant parameter
struct it receives (computed at generation time: multipliers, shifts, clamp bounds, geometry) and which
tensors it reads and writes. A `KernelCall` names tensors by index only; it knows nothing of memory.
Offsets are decided later by the planner, and only then does call legalization turn tensor indices into
pointers (pool + offset, or a constant array) for the chosen calling convention.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.overlap import OutputOverlap


@dataclass(frozen=True)
class TableRef:
    """A params field that points at one of the call's `ConstTable`s."""

    suffix: str


@dataclass
class ConstTable:
    """A constant array emitted next to the call, e.g. per-channel multipliers."""

    suffix: str  # the generated name is step<N>_<suffix>
    c_type: str  # "int32_t", "int8_t", ...
    values: np.ndarray


@dataclass
class KernelCall:
    function: str  # e.g. "fg_conv2d_s8"
    params_type: str  # e.g. "fg_conv2d_params"
    # Field name -> value, in declaration order. ints and floats are emitted as literals, TableRef as the
    # table's name, tuples as brace initializers.
    params: dict[str, int | float | TableRef | tuple[int, ...]]
    # Tensors passed after &params: inputs in call order, then outputs. -1 passes NULL.
    inputs: list[int]
    outputs: list[int]
    tables: list[ConstTable] = field(default_factory=list)
    # When True the inputs are passed as one array of pointers (`const T *const inputs[]`) built next to the
    # call, for operators with a variable number of inputs (CONCATENATION).
    variadic_inputs: bool = False
    # When True the outputs are passed as one array of pointers (`T *const outputs[]`) built next to the call, for
    # operators with a variable number of outputs (SPLIT, SPLIT_V, UNPACK); such a call has one input.
    variadic_outputs: bool = False
    # The instruction-set class the function needs, and what its variant does (ops/variants), for comments and
    # profiles; the portable kernels need none.
    isa: str = "portable C"
    variant: str = ""
    # The bytes by which the function's frame grows at run time in this call (its variable-length arrays), sized
    # by the variant that chose the geometry: the worst-case stack adds the largest over a model's calls
    # (target/stack_bound.py), where gcc's call graph can only say "dynamic".
    run_time_stack: int = 0
    # Bytes: the function runs its fast path on an output that overlaps its input only when the output lies a whole
    # number of these before the input (a channel-by-channel kernel: its input pixel); 1: at any overlap. Becomes
    # the overlap allowance's granule, which the planner honours where it costs no pool bytes.
    overlap_granule: int = 1


def run_time_frames(calls: Iterable[KernelCall]) -> dict[str, int]:
    """Function -> the most its frame grows at run time over `calls` (KernelCall.run_time_stack), for the manifest."""
    frames: dict[str, int] = {}
    for call in calls:
        if call.run_time_stack:
            frames[call.function] = max(frames.get(call.function, 0), call.run_time_stack)
    return dict(sorted(frames.items()))


class OpKernel(Protocol):
    opcode: str  # TFLite builtin name
    # True when the output is a view of input 0 (RESHAPE, SQUEEZE): no call, shared storage.
    is_alias: bool

    def check(self, graph: Graph, op: Operator) -> None:
        """Raise UnsupportedModelError naming the op and tensor when this operator cannot be compiled."""

    def macs(self, graph: Graph, op: Operator) -> int:
        """Multiply-accumulates per inference (0 for data movement)."""

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        """The kernel call for this operator (not called for aliases)."""


class OverlappingKernel(Protocol):
    """Optional, on top of OpKernel: a kernel whose output may overlap its input.

    `output_overlap` returns allowances naming tensors by index (input, output), e.g.
    OutputOverlap(op.inputs[0], op.outputs[0], N): the output may end up to N bytes after
    the input's start. Declaring one is a promise about the C kernel: it reads every input byte before it
    overwrites it, for any placement the allowance permits (firmware_gen/ops/overlap.py works the rules out). The
    planner uses it only with overlap=True and only where the input is read for the last time. Operators without
    the method allow no overlap.
    """

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        """The allowances of this operator (may be empty)."""
