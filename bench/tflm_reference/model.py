"""The benchmark's single model and its cases: every case is one operator of firmware-gen's model and, for the
TFLM side, the C++ that sets up the operator's parameters the way TFLM Micro's Prepare does (`setup`) and the call
its Eval makes into the reference kernel (`call`), both written against the tensors' C arrays."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from firmware_gen.modelgen.writer import ModelBuilder

SHAPE = (1, 16, 16, 16)


@dataclass
class Case:
    label: str
    op_index: int  # the operator of the model this case times on our side
    output: int  # the tensor both sides write
    elements: int  # the largest element count of the inputs and the output
    state: str  # C++ declarations at the case's namespace scope (its parameters)
    setup: str  # C++ run once before timing (TFLM's Prepare)
    call: str  # C++ timed (TFLM's Eval)


@dataclass
class BenchModel:
    """A ModelBuilder with the shared inputs and the cases added to it so far."""

    builder: ModelBuilder = field(default_factory=lambda: ModelBuilder("reference_kernels"))
    cases: list[Case] = field(default_factory=list)

    def __post_init__(self) -> None:
        b = self.builder
        self.x = b.input("x", SHAPE, "int8", scale=0.05, zero_point=3)
        self.y = b.input("y", SHAPE, "int8", scale=0.04, zero_point=-5)
        self.row = b.input("row", (1, 1, 1, 16), "int8", scale=0.03, zero_point=1)

    def quant(self, tensor: int) -> tuple[float, int]:
        """The tensor's (scale, zero point) as float32 then double, as TFLM reads them."""
        t = self.builder.tensors[tensor]
        return float(np.float32(t.scales[0])), int(t.zero_points[0])

    def shape(self, tensor: int) -> tuple[int, ...]:
        return self.builder.tensors[tensor].shape

    def tensor(self, shape, quant, dtype: str = "int8") -> int:
        name = f"t{len(self.builder.tensors)}"
        if dtype != "int8":
            return self.builder.tensor(name, shape, dtype)
        return self.builder.tensor(name, shape, dtype, scale=quant[0], zero_point=quant[1])

    def add(self, label: str, opcode: str, inputs: list[int], output: int, code: tuple[str, str, str],
            options: dict | None = None, more_outputs: tuple[int, ...] = ()) -> None:
        """code: (state, setup, call) of the TFLM side. An operator of several outputs (SPLIT) is compared on its
        first, `output`; `more_outputs` are its others."""
        op_index = self.builder.operator(opcode, inputs, [output, *more_outputs], options or {})
        for tensor in (output, *more_outputs):
            self.builder.output(tensor)
        elements = max(int(np.prod(self.shape(t))) for t in (*inputs, output))
        self.cases.append(Case(label, op_index, output, elements, *code))


def shape_expr(model: BenchModel, tensor: int) -> str:
    """The C++ RuntimeShape of a tensor (its dims array is emitted by the harness as d<index>)."""
    return f"tflite::RuntimeShape({len(model.shape(tensor))}, d{tensor})"


def io(model: BenchModel, *tensors: int) -> str:
    """`shape, data` argument pairs, the reference kernels' calling convention."""
    return ", ".join(f"{shape_expr(model, t)}, t{t}" for t in tensors)
