"""The stages a graph offers: a prefix of the schedule from a model input whose operators all run on patches.

An operator joins the stage when it is windowed (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE/MAX_POOL_2D), elementwise on
int8 (an activation or QUANTIZE: a lookup table) or an ADD of two tensors of one shape (a residual), and reads only
tensors the stage computed (the first operator: the model input). The stage may end at an operator whose output
is the only one of its tensors read after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.patch_kernels import ADDS, ELEMENTWISE, layer_window
from firmware_gen.ops.patch_stage import WINDOWED, PatchStage, make_stage, used_later
from firmware_gen.ops.row_stage import RowStage, make_row_stage


@dataclass(frozen=True)
class Prefix:
    positions: tuple[int, ...]  # the operators that may join, in schedule order
    sources: tuple[tuple[int, ...], ...]  # the tensors each reads
    ends: frozenset[int]  # the positions a stage may end at
    refusal: str  # why the next operator cannot join ("" at the end of the graph)


def _reads(graph: Graph, calls: dict[int, KernelCall], position: int) -> tuple[tuple[int, ...], str]:
    """The activation tensors the operator reads, or why it cannot run on patches."""
    op = graph.operators[position]
    call = calls.get(op.index)
    label = f"operator {op.index} ({op.opcode})"
    if call is None or len(op.outputs) != 1:
        return (), f"{label} cannot run on patches"
    if op.opcode == "ADD":
        reads = tuple(op.inputs[:2])
        if any(graph.tensors[t].shape != graph.tensors[op.outputs[0]].shape for t in reads):
            return (), f"{label} broadcasts, which patches do not"
    elif op.opcode in WINDOWED or call.function in ELEMENTWISE | ADDS:
        reads = (op.inputs[0],)
    else:
        return (), f"{label} cannot run on patches"
    tensors = [graph.tensors[t] for t in (*reads, op.outputs[0])]
    if any(str(t.dtype) != "int8" or len(t.shape) != 4 or t.shape[0] != 1 for t in tensors):
        return (), f"{label} is not an int8 layer of one image"
    return reads, ""


def stage_prefix(graph: Graph, calls: dict[int, KernelCall]) -> Prefix:
    """The operators that may run on patches from the first on, and where a stage of them may end."""
    positions: list[int] = []
    sources: list[tuple[int, ...]] = []
    ends: set[int] = set()
    if not graph.operators or not graph.operators[0].inputs or graph.operators[0].inputs[0] not in graph.inputs:
        return Prefix((), (), frozenset(), "a patch stage starts at a model input; the first operator reads none")
    produced = {graph.operators[0].inputs[0]}
    refusal = ""
    for position, op in enumerate(graph.operators):
        reads, refusal = _reads(graph, calls, position)
        outside = [t for t in reads if t not in produced or (position and t == graph.operators[0].inputs[0])]
        if not refusal and outside:
            refusal = f"operator {op.index} ({op.opcode}) reads t{outside[0]}, which the stage does not compute"
        if refusal:
            break
        positions.append(position)
        sources.append(reads)
        produced.add(op.outputs[0])
        inner = produced - {op.outputs[0], graph.operators[0].inputs[0]}
        if not any(used_later(graph, t, position) for t in inner):
            ends.add(position)
    return Prefix(tuple(positions), tuple(sources), frozenset(ends), refusal)


def stage_at(graph: Graph, calls: dict[int, KernelCall], prefix: Prefix, last: int,
             grid: tuple[int, int]) -> PatchStage:
    """The stage of the prefix's operators up to position `last`, its output in `grid`."""
    positions = prefix.positions[:last + 1]
    return make_stage(positions, [layer_window(graph, calls, p) for p in positions], grid,
                      graph.operators[0].inputs[0], tuple(graph.operators[p].outputs[0] for p in positions),
                      prefix.sources[:last + 1])


def row_stage_at(graph: Graph, calls: dict[int, KernelCall], prefix: Prefix, last: int, strips: int = 1,
                 batch: int = 1) -> RowStage:
    """The stage of the prefix's operators up to position `last`, run in row buffers in `strips` column strips (its
    highest-resolution layers `batch` rows a call)."""
    positions = prefix.positions[:last + 1]
    return make_row_stage(positions, [layer_window(graph, calls, p) for p in positions], graph.operators[0].inputs[0],
                          tuple(graph.operators[p].outputs[0] for p in positions), prefix.sources[:last + 1], strips,
                          batch)


def build_stage(graph: Graph, calls: dict[int, KernelCall], last: int, grid: tuple[int, int] | None,
                strips: int = 1, batch: int = 1) -> PatchStage | RowStage:
    """The stage ending at position `last` with `grid` (None: in row buffers, in `strips` column strips);
    UserError naming the operator when it cannot be one."""
    prefix = stage_prefix(graph, calls)
    where = f"cannot end a patch stage at operator {graph.operators[last].index}"
    if last not in prefix.positions:
        raise UserError(f"{where}: {prefix.refusal}")
    if last not in prefix.ends:
        inner = {graph.operators[p].outputs[0]: graph.operators[p] for p in prefix.positions[:last]}
        op = next(op for t, op in inner.items() if used_later(graph, t, last))
        raise UserError(f"{where}: operator {op.index} ({op.opcode}) has an output read after it")
    if grid:
        return stage_at(graph, calls, prefix, last, grid)
    return row_stage_at(graph, calls, prefix, last, strips, batch)
