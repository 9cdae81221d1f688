"""Legalization into TVM's packed calling convention (`--interface packed`).

Input: the schedule as `legalize` produced it from a finished memory plan; every tensor already has its final
pointer. This stage only wraps those pointers into DLTensor descriptors and TVMValue argument arrays, and
picks the shim that unpacks them. It runs after planning by construction: the planner never sees a
descriptor, so it cannot mistake one for the buffer behind it (TVM issue 8062, fixed by PR 8096).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from firmware_gen.backend.c_literals import pointer_type
from firmware_gen.backend.legalize import Step, TensorRef
from firmware_gen.frontend.ir import DType, Graph

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
    variadic_outputs: int = 0  # > 0: the last N tensor arguments are gathered into one pointer array


@dataclass(frozen=True)
class PackedArg:
    """One tensor argument of a step: the DLTensor the caller passes and the spec the shim checks it against.
    Descriptors and shape arrays are shared: a tensor passed to several steps (the output of one step is the
    input of the next) has one DLTensor, and equal shapes have one array. Flash is tight on small boards."""

    name: str  # C name of the (shared) DLTensor
    ref: TensorRef
    dl_type: tuple[str, int]
    shape: tuple[int, ...]
    shape_name: str = ""  # C name of the (shared) int64_t shape array


@dataclass(frozen=True)
class PackedStep:
    step: Step
    shim: PackedShim | None  # None for a view (no code)
    args: tuple[PackedArg | None, ...]  # None: an absent optional input, passed as kTVMNullptr
    registry_name: str
    signature_name: str = ""  # C names of the step's (shared) signature and type-code array
    type_codes_name: str = ""

    @property
    def num_args(self) -> int:
        return 1 + len(self.args)

    @property
    def type_codes(self) -> tuple[str, ...]:
        return ("kTVMOpaqueHandle", *("kTVMDLTensorHandle" if arg else "kTVMNullptr" for arg in self.args))

    @property
    def specs(self) -> tuple[tuple[tuple[str, int], int, str] | None, ...]:
        """What the shim checks each tensor argument against: (dlpack type, ndim, shape array), None if absent."""
        return tuple((arg.dl_type, len(arg.shape), arg.shape_name) if arg else None for arg in self.args)


@dataclass
class PackedTables:
    """The descriptor tables of a packed model, each entry once, in order of first use."""

    shapes: dict[str, tuple[int, ...]]  # C name -> dims
    tensors: dict[str, PackedArg]  # C name -> the descriptor
    signatures: dict[str, tuple]  # C name -> PackedStep.specs
    type_codes: dict[str, tuple[str, ...]]  # C name -> codes


def _shim(graph: Graph, step: Step) -> PackedShim:
    call = step.call
    assert call is not None
    refs = step.inputs + step.outputs
    arg_types = tuple(pointer_type(graph.tensors[r.index].dtype if r.index >= 0 else DType.INT8,
                                   const=position < len(step.inputs))
                      for position, r in enumerate(refs))
    variadic = len(step.inputs) if call.variadic_inputs else 0
    variadic_outputs = len(step.outputs) if call.variadic_outputs else 0
    name = f"fg_packed_{call.function}" + (f"_{variadic or variadic_outputs}" if variadic or variadic_outputs else "")
    return PackedShim(name, call.function, call.params_type, arg_types, variadic, variadic_outputs)


class _Names:
    """A C name per distinct value: prefix + number in order of first use."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.names: dict[object, str] = {}

    def __call__(self, value: object, name: str | None = None) -> str:
        return self.names.setdefault(value, name or f"{self.prefix}{len(self.names)}")


def pack(graph: Graph, steps: list[Step]) -> tuple[list[PackedStep], list[PackedShim]]:
    """The packed form of a legalized schedule, and the distinct shims it needs."""
    packed, shims = [], {}
    shape_names, tensor_names = _Names("fg_shape_"), _Names("")
    signature_names, type_code_names = _Names("fg_signature_"), _Names("fg_type_codes_")
    for step in steps:
        shim = _shim(graph, step) if step.call is not None else None
        if shim is None:
            packed.append(PackedStep(step, None, (), f"step{step.index}_{step.op.opcode.lower()}"))
            continue
        shims.setdefault(shim.name, shim)
        args = []
        for position, ref in enumerate(step.inputs + step.outputs):
            if ref.index < 0:
                args.append(None)
                continue
            tensor = graph.tensors[ref.index]
            dl_type = _DL_TYPES[tensor.dtype]
            name = tensor_names((ref.storage, dl_type, tensor.shape), f"step{step.index}_arg{position}")
            args.append(PackedArg(name, ref, dl_type, tensor.shape, shape_names(tensor.shape)))
        draft = PackedStep(step, shim, tuple(args), f"step{step.index}_{step.op.opcode.lower()}")
        packed.append(dataclasses.replace(draft, signature_name=signature_names(draft.specs),
                                          type_codes_name=type_code_names(draft.type_codes)))
    return packed, list(shims.values())


def packed_tables(packed: list[PackedStep]) -> PackedTables:
    tables = PackedTables({}, {}, {}, {})
    for p in packed:
        for arg in p.args:
            if arg is not None:
                tables.shapes.setdefault(arg.shape_name, arg.shape)
                tables.tensors.setdefault(arg.name, arg)
        if p.shim is not None:
            tables.signatures.setdefault(p.signature_name, p.specs)
            tables.type_codes.setdefault(p.type_codes_name, p.type_codes)
    return tables
