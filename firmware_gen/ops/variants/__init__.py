"""Kernel variants per instruction-set class, chosen at generation time from the board's ISA features.

An operator's lowering produces the portable call (`fg_conv2d_pointwise_s8`, ...). A `Variant` may replace it
with a function of the same results for a CPU class: the same params struct and arguments, the function named
after the variant, and any constants the variant's inner loop wants laid out ahead of time (weights reordered,
per-layer constants) in its own tables. Each module here lists the variants of one instruction-set class in
`VARIANTS`; `specialize` takes the first that the board's ISA has the features for and whose preconditions the
layer meets (most demanding ISA first), else keeps the portable call. The portable kernels stay the reference
every variant is tested against; the host build always uses them.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import ARMV7M, Isa
from firmware_gen.ops.base import KernelCall

# (graph, operator, the portable call[, the board's Isa: Variant.takes_isa]) -> the variant's call, or None when the
# layer does not meet its preconditions.
Specializer = Callable[..., KernelCall | None]


@dataclass(frozen=True)
class Variant:
    function: str  # the C function of the variant
    replaces: str  # the portable function whose results it computes
    requires: frozenset[str]  # ISA features (firmware_gen.isa)
    specialize: Specializer
    description: str = ""  # what the variant does, for the comment of each step that calls it
    precedence: int = 0  # before the other variants of its class when higher (one that beats another on its layers)
    # The call's params -> the bytes an overlapping output must lie a whole number of before the input for the
    # kernel to run fast (KernelCall.overlap_granule); None: fast at any overlap the operator allows.
    overlap_granule: Callable[[dict], int] | None = None
    # Its specialize takes the board's Isa as a fourth argument: the variant sizes its run-time arrays to the board's
    # stack (Isa.stack_bytes), or weighs its memory (Isa.flash_wait_per_byte).
    takes_isa: bool = False
    # Its constants take more flash than the variant after it: where the board's flash is short, that one is put
    # back instead (ops/variant_choice.py weighs both; `specialize` with compact=True passes this one over).
    wide: bool = False


def whole_input_pixels(params: dict) -> int:
    """The granule of a depthwise kernel that runs channel by channel (fg_depthwise_channel_major): one int8 input
    pixel, so that each output byte lands on an input byte of its own channel."""
    return int(params["in_c"])


def renamed(call: KernelCall, variant: Variant, **changes: object) -> KernelCall:
    """The portable call, calling the variant's function instead (and any field changed)."""
    renamed = dataclasses.replace(call, function=variant.function, isa=_isa_label(variant.requires),
                                  variant=variant.description, **changes)
    if variant.overlap_granule is None:
        return renamed
    return dataclasses.replace(renamed, overlap_granule=variant.overlap_granule(renamed.params))


def call_table(call: KernelCall, suffix: str) -> np.ndarray:
    """The values of the call's constant table named `suffix`."""
    return next(t.values for t in call.tables if t.suffix == suffix)


def _isa_label(requires: frozenset[str]) -> str:
    return Isa(requires).name


def _discover() -> list[Variant]:
    variants: list[Variant] = []
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        variants.extend(getattr(module, "VARIANTS", ()))
    # The most demanding ISA first (Armv7-M, which every DSP or MVE core has too, counts for nothing), then the
    # higher precedence; else stable.
    return sorted(variants, key=lambda v: (-len(v.requires - {ARMV7M}), -v.precedence))


VARIANTS: list[Variant] = _discover()


def specialize(graph: Graph, op: Operator, call: KernelCall, isa: Isa, compact: bool = False) -> KernelCall:
    """The fastest variant of `call` the ISA offers and the layer allows (compact: none of the wide ones); the call
    itself if none."""
    for variant in VARIANTS:
        if variant.replaces == call.function and isa.has(variant.requires) and not (compact and variant.wide):
            chosen = (variant.specialize(graph, op, call, isa) if variant.takes_isa else
                      variant.specialize(graph, op, call))
            if chosen is not None:
                return chosen
    return call


def is_wide(call: KernelCall) -> bool:
    """Whether `call` is that of a wide variant (Variant.wide)."""
    return any(variant.wide and variant.function == call.function for variant in VARIANTS)
