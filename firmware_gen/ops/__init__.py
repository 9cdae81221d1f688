"""The operator stage: its registry (every module in this package that defines `KERNELS`, a list of OpKernel,
contributes them) and what it does over a whole graph: check that every operator can be compiled, lower each into a
kernel call, and collect what the operators tell the planner (views that share storage, overlap allowances)."""

from __future__ import annotations

import importlib
import pkgutil

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import PORTABLE, Isa
from firmware_gen.ops.base import KernelCall, OpKernel
from firmware_gen.ops.fixedpoint import MultiplierOutOfRange
from firmware_gen.ops.overlap import OutputOverlap


def _discover() -> dict[str, OpKernel]:
    registry: dict[str, OpKernel] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for kernel in getattr(module, "KERNELS", ()):
            registry[kernel.opcode] = kernel
    return registry


REGISTRY: dict[str, OpKernel] = _discover()


def supported_opcodes() -> list[str]:
    return sorted(REGISTRY)


def check_supported(graph: Graph) -> None:
    """Raise UnsupportedModelError naming the first operator firmware-gen cannot compile, and why."""
    for op in graph.operators:
        kernel = REGISTRY.get(op.opcode)
        if kernel is None:
            raise UnsupportedModelError(f"{graph.name}: operator {op.index} is {op.opcode}, which firmware-gen "
                                        f"does not support; supported: {', '.join(supported_opcodes())}")
        kernel.check(graph, op)


def view_aliases(graph: Graph) -> dict[int, int]:
    """View tensor -> the tensor whose storage it shares (RESHAPE, SQUEEZE: no code, no copy)."""
    return {op.outputs[0]: op.inputs[0] for op in graph.operators if REGISTRY[op.opcode].is_alias}


def lower(graph: Graph, isa: Isa = PORTABLE) -> dict[int, KernelCall]:
    """Operator index -> its kernel call, the fastest variant `isa` offers (ops/variants); views have none."""
    from firmware_gen.ops.variants import specialize  # the variant modules import this package's kernels

    return {op.index: specialize(graph, op, _lower_one(graph, op), isa) for op in graph.operators
            if not REGISTRY[op.opcode].is_alias}


def _lower_one(graph: Graph, op: Operator) -> KernelCall:
    try:
        return REGISTRY[op.opcode].lower(graph, op)
    except MultiplierOutOfRange as error:
        tensors = ", ".join(graph.tensors[i].describe() for i in (*op.inputs, *op.outputs) if i >= 0)
        raise UnsupportedModelError(f"{graph.name}: {op.describe()}: {error} ({tensors})") from None


def output_overlaps(graph: Graph) -> dict[int, list[OutputOverlap]]:
    """Operator index -> how far its output may overlap its inputs (operators that allow none are left out)."""
    declared = {}
    for op in graph.operators:
        declare = getattr(REGISTRY[op.opcode], "output_overlap", None)
        if declare is not None and (overlaps := declare(graph, op)):
            declared[op.index] = overlaps
    return declared


def macs(graph: Graph) -> dict[int, int]:
    """Operator index -> multiply-accumulates per inference."""
    return {op.index: REGISTRY[op.opcode].macs(graph, op) for op in graph.operators}
