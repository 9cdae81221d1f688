"""The choice of each layer's kernel variant within the board's flash, made once.

Every layer has candidates: its portable call, the variant its ISA offers (ops/variants: the first whose features
the board has and whose preconditions the layer meets; after a wide one, the compact variant too), and where the
board's flash is known the paired weight layout (ops/convolution/wide_layout.py, ops/fully_connected), each with its
output stage fused where the layer allows (ops/convolution/fused_output.py). A candidate is a record: its call, the
constant bytes it puts in flash, the wide kernel code it links, and its ESTIMATED cycles (ops/variant_cost.py).
`choose` sees only those records: each layer starts on its candidate of fewest bytes (the faster one of equal bytes),
then the changes that save the most estimated cycles per extra byte are made while the flash lasts, a kernel's code
counted with the first layer that links it. With no flash known (the host build, compact weights) every layer takes
its fastest candidate of no wide layout.

What stays after this choice: the compact fused 1x1 layers run expanded where the memory plan allows
(driver/compiler.py), since only the plan knows the pool; their estimate here assumes that they do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import ARMV6M, Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.fused_output import COMPACT_REQUIRES, compact_fusable, compact_fused_call
from firmware_gen.ops.convolution.wide_layout import CODE_RESERVE, PAIRED, WIDE_CODE, constant_bytes, paired_call
from firmware_gen.ops.fully_connected.fully_connected import paired_fully_connected
from firmware_gen.ops.variant_cost import estimated_cycles

# The paired layout's 64-bit sums want a long multiply: Armv6-M has none (its variants serve those layers).
PAIRED_EXCLUDED = frozenset({ARMV6M})


@dataclass(frozen=True)
class Candidate:
    """One way to run a layer."""

    call: KernelCall
    bytes: int  # its constant tables and the constant tensors it reads
    cycles: float  # ESTIMATED cycles per inference (ops/variant_cost.py)
    code: tuple[str, int] = ("", 0)  # the wide kernel family it links and that family's code bytes (WIDE_CODE)


def layer_candidates(graph: Graph, op: Operator, portable: KernelCall, isa: Isa, macs: int) -> list[Candidate]:
    """The ways `isa` can run the layer: the portable call, the ISA's variant (and after a wide one, Variant.wide,
    the compact variant that follows it), and (with a flash budget) the paired layout, each fused where it can be."""
    from firmware_gen.ops.variants import is_wide, specialize  # the variant modules import the operator package

    variant = specialize(graph, op, portable, isa)
    calls = [portable, variant, *([specialize(graph, op, portable, isa, compact=True)] if is_wide(variant) else [])]
    if isa.flash_bytes and not isa.has(PAIRED_EXCLUDED):
        calls.append(paired_call(portable) if portable.function in PAIRED else
                     paired_fully_connected(graph, op, portable))
    fused = [compact_fused_call(call) if isa.has(COMPACT_REQUIRES) and compact_fusable(call) else call
             for call in calls if call is not None]
    unique = {id(call): call for call in fused}.values()
    outputs = graph.tensors[portable.outputs[0]].num_elements if portable.outputs else 0
    return [Candidate(call, constant_bytes(graph, {op.index: call}), estimated_cycles(call, macs, outputs, portable),
                      WIDE_CODE.get(call.function, ("", 0))) for call in unique]


def _extra_bytes(candidate: Candidate, now: Candidate, linked: set[str]) -> int:
    family, code = candidate.code
    return candidate.bytes - now.bytes + (code if family and family not in linked else 0)


def _best_change(layers: Mapping[int, Sequence[Candidate]], chosen: Mapping[int, Candidate], linked: set[str],
                 room: int) -> tuple[int, Candidate] | None:
    """The change within `room` bytes that saves the most estimated cycles per extra byte (one that costs no bytes
    first), or None."""
    best, best_key = None, None
    for index, candidates in layers.items():
        for candidate in candidates:
            saving = chosen[index].cycles - candidate.cycles
            extra = _extra_bytes(candidate, chosen[index], linked)
            if saving <= 0 or extra > room:
                continue
            key = (extra <= 0, saving / max(extra, 1))
            if best_key is None or key > best_key:
                best, best_key = (index, candidate), key
    return best


def choose(layers: Mapping[int, Sequence[Candidate]], budget: int | None) -> dict[int, Candidate]:
    """Each layer's candidate: the fastest set found greedily within `budget` bytes of constants and wide code, or
    each layer's fastest when `budget` is None."""
    if budget is None:
        return {index: min(candidates, key=lambda c: c.cycles) for index, candidates in layers.items()}
    chosen = {index: min(candidates, key=lambda c: (c.bytes, c.cycles)) for index, candidates in layers.items()}
    linked = {c.code[0] for c in chosen.values() if c.code[0]}
    room = budget - sum(c.bytes for c in chosen.values()) - sum(dict(c.code for c in chosen.values()).values())
    while (change := _best_change(layers, chosen, linked, room)) is not None:
        index, candidate = change
        room -= _extra_bytes(candidate, chosen[index], linked)
        chosen[index] = candidate
        linked |= {candidate.code[0]} - {""}
    return chosen


def choose_calls(graph: Graph, portable: Mapping[int, KernelCall], isa: Isa,
                 macs: Mapping[int, int]) -> dict[int, KernelCall]:
    """Operator index -> the kernel call chosen for it within the board's flash (isa.flash_bytes less CODE_RESERVE;
    none known: 0), given each operator's portable call and MACs."""
    operators = {op.index: op for op in graph.operators}
    layers = {index: layer_candidates(graph, operators[index], call, isa, macs[index])
              for index, call in portable.items()}
    budget = isa.flash_bytes - CODE_RESERVE if isa.flash_bytes else None
    return {index: candidate.call for index, candidate in choose(layers, budget).items()}
