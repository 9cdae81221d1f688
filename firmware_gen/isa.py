"""What a CPU's instruction set offers the kernels, and the board's flash for constants: the only things kernel
selection knows about a board.

A board file lists its CPU's features (`[cpu] features = ["dsp", "mve"]`); the board loader checks them against
the core, and the compiler picks, per layer, the fastest kernel variant whose required features the board has.
"""

from __future__ import annotations

from dataclasses import dataclass

DSP = "dsp"  # Armv7E-M DSP extension: SMLAD, SXTB16, SMMULR, saturating arithmetic (M4, M7, M33, M55)
MVE = "mve"  # Armv8.1-M M-profile Vector Extension (Helium), integer (M55, M85)
FEATURES = (DSP, MVE)

# The features each core can have (a core may be built without some of them, never with more).
CORE_FEATURES: dict[str, frozenset[str]] = {
    "cortex-m0": frozenset(),
    "cortex-m0plus": frozenset(),
    "cortex-m3": frozenset(),
    "cortex-m4": frozenset({DSP}),
    "cortex-m7": frozenset({DSP}),
    "cortex-m33": frozenset({DSP}),
    "cortex-m55": frozenset({DSP, MVE}),
    "cortex-m85": frozenset({DSP, MVE}),
}


@dataclass(frozen=True)
class Isa:
    features: frozenset[str] = frozenset()
    # Bytes of the memory region that holds the constants (and the code): what the lowering may spend on wider,
    # faster weight layouts (ops/wide_layout.py). 0: unknown (the host build), compact layouts only.
    flash_bytes: int = 0

    def has(self, required: frozenset[str]) -> bool:
        return required <= self.features

    @property
    def name(self) -> str:
        """The class of instruction set, as comments and profiles name it."""
        if MVE in self.features:
            return "Armv8.1-M + MVE"
        if DSP in self.features:
            return "Armv7E-M (DSP)"
        return "portable C"


PORTABLE = Isa()  # the host build, and any board without DSP or MVE
