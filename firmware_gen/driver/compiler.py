"""The pipeline: IR -> lowered calls -> memory plan -> legalized steps -> C sources."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from firmware_gen.backend import codegen
from firmware_gen.backend.legalize import Step, legalize
from firmware_gen.backend.packed import INTERFACES
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.frontend.tflite_reader import check_supported
from firmware_gen.ops import REGISTRY
from firmware_gen.ops.base import KernelCall
from firmware_gen.planner import MemoryPlan, PoolSpec, plan_graph


@dataclass
class CompiledModel:
    graph: Graph
    calls: dict[int, KernelCall]  # operator index -> kernel call; views (RESHAPE...) have none
    aliases: dict[int, int]  # view tensor -> the tensor whose storage it shares
    plan: MemoryPlan
    steps: list[Step]
    interface: str = "unpacked"


def view_aliases(graph: Graph) -> dict[int, int]:
    return {op.outputs[0]: op.inputs[0] for op in graph.operators if REGISTRY[op.opcode].is_alias}


def lower(graph: Graph) -> dict[int, KernelCall]:
    return {op.index: REGISTRY[op.opcode].lower(graph, op) for op in graph.operators
            if not REGISTRY[op.opcode].is_alias}


def compile_graph(graph: Graph, interface: str = "unpacked", overlap: bool = True,
                  pools: list[PoolSpec] | None = None, io_in_pool: bool = True) -> CompiledModel:
    """overlap: let outputs overlap inputs where the kernels allow it. pools: the RAM pools, fastest first.
    io_in_pool=False leaves the model's inputs and outputs in the caller's buffers (fg_model_run reads and writes
    them in place) and plans only the intermediates."""
    if interface not in INTERFACES:
        raise UserError(f"unknown interface {interface!r}; choose one of {', '.join(INTERFACES)}")
    if not io_in_pool and interface != "unpacked":
        raise UserError(f"the {interface} interface needs the inputs and outputs in the pool (its tensor "
                        f"descriptors are constants); use the unpacked interface or keep I/O in the pool")
    check_supported(graph)
    calls = lower(graph)
    aliases = view_aliases(graph)
    # Plan on the raw buffers first: the planner's input has no notion of an interface. Legalization (and, for
    # the packed interface, wrapping pointers into descriptors) only ever sees the finished plan.
    scratch = {index: call.scratch_bytes for index, call in calls.items() if call.scratch_bytes}
    outside = () if io_in_pool else (*graph.inputs, *graph.outputs)
    plan = plan_graph(graph, aliases=aliases, overlap=overlap, scratch=scratch, pools=pools, outside=outside)
    return CompiledModel(graph, calls, aliases, plan, legalize(graph, calls, plan), interface)


def generate(graph: Graph, out_dir: str | Path, source: str = "", interface: str = "unpacked", overlap: bool = True,
             pools: list[PoolSpec] | None = None, io_in_pool: bool = True) -> CompiledModel:
    compiled = compile_graph(graph, interface, overlap, pools, io_in_pool)
    files = codegen.render(graph, compiled.plan, compiled.steps, source, interface)
    codegen.write_output(files, Path(out_dir))
    return compiled
