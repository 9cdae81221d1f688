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
from firmware_gen.ops.constant_folding import fold_constants
from firmware_gen.ops.overlap import OutputOverlap
from firmware_gen.ops.support.fixedpoint import MultiplierOutOfRange


def _discover() -> dict[str, OpKernel]:
    registry: dict[str, OpKernel] = {}
    for module_info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        module = importlib.import_module(module_info.name)
        for kernel in getattr(module, "KERNELS", ()):
            registry[kernel.opcode] = kernel
    return registry


REGISTRY: dict[str, OpKernel] = _discover()


def fold(graph: Graph) -> Graph:
    """The graph with the operators whose results are known at generation time folded into constants
    (ops/constant_folding.py), and each PAD its convolution can do itself folded into it (ops/pad_folding.py)."""
    from firmware_gen.ops.pad_folding import fold_pads

    return fold_pads(fold_constants(graph, REGISTRY))


def supported_opcodes() -> list[str]:
    return sorted(REGISTRY)


# Operators that are not computations on tensors, named by what they are when refused.
_KINDS = {"IF": "control flow", "WHILE": "control flow", "CALL_ONCE": "control flow",
          "VAR_HANDLE": "a resource variable operator", "READ_VARIABLE": "a resource variable operator",
          "ASSIGN_VARIABLE": "a resource variable operator"}


# Operators TFLite Micro registers no kernel for (so there is nothing to be bit-exact with), and what to use instead.
_NOT_IN_TFLM = {"TILE": "Keras 3's UpSampling2D converts to RESHAPE + TILE; Resizing(interpolation=\"nearest\") "
                        "converts to RESIZE_NEAREST_NEIGHBOR, which firmware-gen compiles"}


def _refusal(graph: Graph, op: Operator) -> str | None:
    from firmware_gen.ops.weights_4bit import int4_refusal

    kernel = REGISTRY.get(op.opcode)
    if kernel is None:
        kind = "a custom operator" if op.opcode.startswith("CUSTOM") else _KINDS.get(op.opcode)
        if kind is not None:
            return f"{graph.name}: operator {op.index} is {op.opcode}, {kind}, which firmware-gen does not compile"
        if op.opcode in _NOT_IN_TFLM:
            return (f"{graph.name}: operator {op.index} is {op.opcode}, which TensorFlow Lite Micro has no kernel "
                    f"for and firmware-gen does not support ({_NOT_IN_TFLM[op.opcode]})")
        return (f"{graph.name}: operator {op.index} is {op.opcode}, which firmware-gen does not support; "
                f"supported: {', '.join(supported_opcodes())}")
    if (int4 := int4_refusal(graph, op)) is not None:
        return int4
    try:
        kernel.check(graph, op)
    except UnsupportedModelError as error:
        return str(error)
    return None


def refusals(graph: Graph) -> dict[int, str]:
    """Operator index -> why firmware-gen cannot compile it, for every such operator once constants are folded."""
    from firmware_gen.ops.weights_4bit import int4_refusal

    int4 = {op.index: message for op in graph.operators if (message := int4_refusal(graph, op)) is not None}
    folded = fold(graph)
    return {op.index: message for op in folded.operators if (message := _refusal(folded, op)) is not None} | int4


def check_supported(graph: Graph) -> None:
    """Raise UnsupportedModelError naming the first operator firmware-gen cannot compile (constants folded), and
    why."""
    problems = refusals(graph)
    if problems:
        raise UnsupportedModelError(problems[min(problems)])


def view_aliases(graph: Graph) -> dict[int, int]:
    """View tensor -> the tensor whose storage it shares (RESHAPE, SQUEEZE: no code, no copy)."""
    return {op.outputs[0]: op.inputs[0] for op in graph.operators if REGISTRY[op.opcode].is_alias}


def lower(graph: Graph, isa: Isa = PORTABLE) -> dict[int, KernelCall]:
    """Operator index -> its kernel call, the fastest variant `isa` offers (ops/variants) within the board's flash
    (ops/variant_budget.py); views have none. Where the board's flash allows, the portable blocked convolutions read
    a wider, faster weight layout (ops/wide_weights.py); on Armv7-M, a compact 1x1 convolution left has its
    output
    stage fused (ops/convolution/fused_output.py)."""
    from firmware_gen.ops.convolution.fused_output import fuse_compact
    from firmware_gen.ops.variant_budget import fit_variants
    from firmware_gen.ops.variants import is_wide, specialize  # the variant modules import this package's kernels
    from firmware_gen.ops.wide_weights import widen

    operators = [op for op in graph.operators if not REGISTRY[op.opcode].is_alias]
    portable = {op.index: _lower_one(graph, op) for op in operators}
    calls = {op.index: specialize(graph, op, portable[op.index], isa) for op in operators}
    if isa.flash_bytes:
        fallback = {op.index: specialize(graph, op, portable[op.index], isa, compact=True)
                    if is_wide(calls[op.index]) else portable[op.index] for op in operators}
        calls = widen(graph, fit_variants(graph, fallback, calls, isa.flash_bytes), isa.flash_bytes, isa)
    return fuse_compact(calls, isa)


def _lower_one(graph: Graph, op: Operator) -> KernelCall:
    from firmware_gen.ops.weights_4bit import lower_int4, uses_int4

    try:
        return lower_int4(graph, op) if uses_int4(graph, op) else REGISTRY[op.opcode].lower(graph, op)
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
