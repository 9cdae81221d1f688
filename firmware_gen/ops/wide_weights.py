"""The paired weight layouts, given to the layers that gain most per byte while the board's flash allows it: the
blocked convolutions' (ops/convolution/wide_layout.py: why a layer's gain per extra byte is its count of output
pixels) and the one-batch fully connected layers' (ops/fully_connected), whose kernel reads either layout. The
linker's fit check still has the last word.
"""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph
from firmware_gen.isa import PORTABLE, Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.fused_output import fuse_compact
from firmware_gen.ops.convolution.wide_layout import (
    CODE_RESERVE,
    PAIRED,
    WIDE_CODE,
    constant_bytes,
    output_pixels,
    paired_call,
)
from firmware_gen.ops.fully_connected.fully_connected import paired_fully_connected


def _extra_bytes(call: KernelCall, wide: KernelCall) -> int:
    return sum(t.values.nbytes for t in wide.tables) - sum(t.values.nbytes for t in call.tables)


def _wide_calls(graph: Graph, calls: dict[int, KernelCall]) -> dict[int, KernelCall]:
    """Each call that has a paired layout, in it: the blocked convolutions, and the one-batch fully connected layers
    (whose kernel reads either layout: no code to add)."""
    operators = {op.index: op for op in graph.operators}
    wide = {index: paired_call(call) for index, call in calls.items() if call.function in PAIRED}
    for index, call in calls.items():
        if (paired := paired_fully_connected(graph, operators[index], call)) is not None:
            wide[index] = paired
    return wide


def widen(graph: Graph, calls: dict[int, KernelCall], flash_bytes: int, isa: Isa = PORTABLE) -> dict[int, KernelCall]:
    """`calls` with the paired layout for the layers that gain most per byte, within the flash left over: the
    constants of the compact calls as `isa` runs them (ops/convolution/fused_output.py: int8 shifts where the output
    stage is fused), CODE_RESERVE, and the code of each wide kernel family the first time a layer takes it."""
    settled = fuse_compact(calls, isa)
    budget = flash_bytes - CODE_RESERVE - constant_bytes(graph, settled)
    wide_calls = _wide_calls(graph, calls)
    candidates = sorted(wide_calls, key=lambda index: -output_pixels(graph, calls[index]))
    widened, linked = dict(calls), set()
    for index in candidates:
        wide = wide_calls[index]
        family, code = WIDE_CODE.get(wide.function, ("", 0))
        extra = _extra_bytes(settled[index], wide) + (0 if family in linked else code)
        if extra <= budget:
            widened[index] = wide
            budget -= extra
            linked.add(family)
    return widened

