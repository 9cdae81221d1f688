"""Call legalization: a finished memory plan + lowered kernel calls -> the concrete steps of the schedule.

This stage runs strictly after planning. The planner works on raw buffers (tensor indices, sizes, live
ranges); only here do tensors become C pointer expressions (`fg_pool + OFFSET`, a constant array, the caller's
`inputs[i]` / `outputs[i]` when the model's I/O stays outside the pool), and only
here would they be wrapped into argument structs for another calling convention. Planning the wrapped form
instead is the bug of TVM PR 8096: the planner saw struct handles, not the buffers behind them, and reused
memory that was still live.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_gen.abi import DEFAULT_PREFIX, constant_symbol, pool_symbol
from firmware_gen.backend.c_literals import c_comment_safe, pointer_type
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.planner import MemoryPlan


@dataclass(frozen=True)
class TensorRef:
    """One tensor as the generated C reaches it."""

    index: int
    expression: str  # typed pointer expression, e.g. "(const int8_t *)(fg_pool + 128)"
    address: str  # "pool+128", "const", "NULL": for comments
    nbytes: int
    storage: str = "NULL"  # untyped address, e.g. "fg_pool + 128" or "fg_const_7"


@dataclass
class Step:
    index: int  # the position in the schedule (operators folded at generation time have none)
    op: Operator
    call: KernelCall | None  # None: a view (RESHAPE, SQUEEZE), no code
    inputs: list[TensorRef]
    outputs: list[TensorRef]
    params_name: str = ""
    tables: dict[str, str] = field(default_factory=dict)  # table suffix -> C name

    @property
    def arguments(self) -> list[TensorRef]:
        return self.inputs + self.outputs

    @property
    def kernel(self) -> str:
        """The function this step calls and the instruction-set class it was chosen for, for comments."""
        if self.call is None:
            return "no code (a view of its input)"
        detail = f"{self.call.isa}: {self.call.variant}" if self.call.variant else self.call.isa
        return c_comment_safe(f"{self.call.function} ({detail})")

    @property
    def summary(self) -> str:
        """One line naming the op and where its tensors live, for comments."""
        def show(refs: list[TensorRef]) -> str:
            return ", ".join(f"t{r.index}@{r.address}" for r in refs if r.index >= 0)
        number = f"operator {self.op.index}, " if self.op.index != self.index else ""  # others were folded
        return c_comment_safe(f"{number}{self.op.opcode}({show(self.inputs)}) -> {show(self.outputs)}")


def user_buffers(graph: Graph, plan: MemoryPlan) -> dict[int, str]:
    """Tensor -> the caller's pointer that holds it ("inputs[0]", "outputs[1]": the arguments of fg_model_run),
    for the tensors the plan keeps outside the pools."""
    storage = {}
    for group in plan.outside:
        names = [f"inputs[{k}]" for k, i in enumerate(graph.inputs) if i in group]
        names += [f"outputs[{k}]" for k, i in enumerate(graph.outputs) if i in group]
        if len(names) != 1:
            raise UserError(f"tensors {', '.join(f't{i}' for i in group)} share one buffer but are "
                            f"{' and '.join(names) or 'no model input or output'}: the caller's buffers cannot hold "
                            f"them; keep the inputs and outputs in the pool")
        storage.update(dict.fromkeys(group, names[0]))
    return storage


def tensor_ref(graph: Graph, plan: MemoryPlan, index: int, writable: bool,
               outside: dict[int, str] | None = None, prefix: str = DEFAULT_PREFIX) -> TensorRef:
    if index < 0:
        return TensorRef(index, "NULL", "NULL", 0)
    tensor = graph.tensors[index]
    if tensor.is_constant:
        symbol = constant_symbol(index, prefix)
        return TensorRef(index, symbol, "const", tensor.nbytes, symbol)
    cast = pointer_type(tensor.dtype, const=not writable)
    if outside and index in outside:
        return TensorRef(index, f"({cast})({outside[index]})", outside[index], tensor.nbytes, outside[index])
    buffer = plan.buffer_of(index)
    symbol = pool_symbol(buffer.pool, prefix)
    storage = f"{symbol} + {buffer.offset}"
    address = f"{symbol}+{buffer.offset}" if buffer.pool else f"pool+{buffer.offset}"
    return TensorRef(index, f"({cast})({storage})", address, tensor.nbytes, storage)


def legalize(graph: Graph, calls: dict[int, KernelCall], plan: MemoryPlan,
             prefix: str = DEFAULT_PREFIX) -> list[Step]:
    """The schedule with every tensor resolved against `plan` (direct C calls, typed arguments); `prefix` starts
    the names of the model's pools and constants (generate --name)."""
    outside = user_buffers(graph, plan)
    steps = []
    for position, op in enumerate(graph.operators):  # a step is a position; op.index the file's number
        call = calls.get(op.index)
        input_indices = call.inputs if call is not None else [op.inputs[0]]
        output_indices = call.outputs if call is not None else list(op.outputs)
        step = Step(
            index=position,
            op=op,
            call=call,
            inputs=[tensor_ref(graph, plan, i, False, outside, prefix) for i in input_indices],
            outputs=[tensor_ref(graph, plan, i, True, outside, prefix) for i in output_indices],
        )
        if call is not None:
            step.params_name = f"step{position}_params"
            step.tables = {table.suffix: f"step{position}_{table.suffix}" for table in call.tables}
        steps.append(step)
    return steps
