"""Legalization into TVM's packed calling convention (`--interface packed`).

Input: the schedule as `legalize` produced it from a finished memory plan; every tensor already has its final
pointer. This stage only wraps those pointers into DLTensor descriptors and TVMValue argument arrays, and
picks the shim that unpacks them. It runs after planning by construction: the planner never sees a
descriptor, so it cannot mistake one for the buffer behind it (TVM issue 8062, fixed by PR 8096).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.c_literals import pointer_type
from firmware_gen.ir import DType, Graph
from firmware_gen.legalize import Step, TensorRef

INTERFACES = ("unpacked", "packed")

# The FG_PACKED_ERR_* codes of runtime_c/include/fg/packed.h, for messages on the host.
PACKED_ERRORS = {
    -1: "wrong argument count",
    -2: "wrong type code",
    -3: "wrong dtype",
    -4: "wrong shape",
    -5: "null argument",
    -6: "no such step",
}


def describe_packed_error(code: int, step: int, graph: Graph) -> str:
    """A readable message for a packed call the firmware refused."""
    what = PACKED_ERRORS.get(code, f"error code {code}")
    if 0 <= step < len(graph.operators):
        return f"packed call of step {step} ({graph.operators[step].opcode}) refused its arguments: {what}"
    return f"packed call of step {step} refused: {what}"

# dlpack type code and bits of each dtype.
_DL_TYPES = {
    DType.INT8: ("kDLInt", 8), DType.UINT8: ("kDLUInt", 8), DType.INT16: ("kDLInt", 16),
    DType.INT32: ("kDLInt", 32), DType.INT64: ("kDLInt", 64), DType.FLOAT32: ("kDLFloat", 32),
    DType.BOOL: ("kDLUInt", 8),
}


@dataclass(frozen=True)
class PackedShim:
    """One packed function per kernel (and input count, for kernels taking a variable number of inputs)."""

    name: str
    kernel: str
    params_type: str
    arg_types: tuple[str, ...]  # C pointer type of each tensor argument, in order
    variadic_inputs: int  # > 0: the first N tensor arguments are gathered into one pointer array


@dataclass(frozen=True)
class PackedArg:
    """One tensor argument of a step: the DLTensor the caller passes and the spec the shim checks it against."""

    name: str  # C name of the DLTensor and of its shape array
    ref: TensorRef
    dl_type: tuple[str, int]
    shape: tuple[int, ...]


@dataclass(frozen=True)
class PackedStep:
    step: Step
    shim: PackedShim | None  # None for a view (no code)
    args: tuple[PackedArg | None, ...]  # None: an absent optional input, passed as kTVMNullptr
    registry_name: str

    @property
    def num_args(self) -> int:
        return 1 + len(self.args)


def _shim(graph: Graph, step: Step) -> PackedShim:
    call = step.call
    assert call is not None
    refs = step.inputs + step.outputs
    arg_types = tuple(pointer_type(graph.tensors[r.index].dtype if r.index >= 0 else DType.INT8,
                                   const=position < len(step.inputs))
                      for position, r in enumerate(refs))
    variadic = len(step.inputs) if call.variadic_inputs else 0
    name = f"fg_packed_{call.function}" + (f"_{variadic}" if variadic else "")
    return PackedShim(name, call.function, call.params_type, arg_types, variadic)


def _arg(graph: Graph, step: Step, position: int, ref: TensorRef) -> PackedArg | None:
    if ref.index < 0:
        return None
    tensor = graph.tensors[ref.index]
    return PackedArg(f"step{step.index}_arg{position}", ref, _DL_TYPES[tensor.dtype], tensor.shape)


def pack(graph: Graph, steps: list[Step]) -> tuple[list[PackedStep], list[PackedShim]]:
    """The packed form of a legalized schedule, and the distinct shims it needs."""
    packed, shims = [], {}
    for step in steps:
        shim = _shim(graph, step) if step.call is not None else None
        if shim is not None:
            shims.setdefault(shim.name, shim)
        args = tuple(_arg(graph, step, i, ref) for i, ref in enumerate(step.inputs + step.outputs))
        packed.append(PackedStep(step, shim, args if shim else (), f"step{step.index}_{step.op.opcode.lower()}"))
    return packed, list(shims.values())
