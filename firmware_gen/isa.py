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
# Armv7-M's Thumb-2 instructions (MLA, SMULL/SMLAL, SSAT, LDRSB with offsets): every core from the M3 on has them, so
# a board file does not list this feature; the board's Isa adds it from the core.
ARMV7M = "armv7m"
# Armv6-M (Cortex-M0, M0+): Thumb-1 only, MULS as the only multiply (no MLA, no long multiply), no SSAT, no divide,
# no unaligned loads. Armv7-M executes all of it, but a board has this feature only when its core is an Armv6-M one:
# its variants are chosen for the M0 class, never on an M3.
ARMV6M = "armv6m"

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

THUMB2_CORES = frozenset({"cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55", "cortex-m85"})
ARMV6M_CORES = frozenset({"cortex-m0", "cortex-m0plus"})


def core_features(core: str, listed: frozenset[str]) -> frozenset[str]:
    """A board's ISA features: those its file lists and those its core implies."""
    if core in ARMV6M_CORES:
        return listed | {ARMV6M}
    return listed | ({ARMV7M} if core in THUMB2_CORES else frozenset())


@dataclass(frozen=True)
class Isa:
    features: frozenset[str] = frozenset()
    # Bytes of the memory region that holds the constants (and the code): what the lowering may spend on wider,
    # faster weight layouts (ops/convolution/wide_layout.py). 0: unknown (the host build), compact layouts only.
    flash_bytes: int = 0
    # Bytes of the board's stack: what a kernel variant may keep on it (ops/convolution/expanded_layout.py). 0: unknown.
    stack_bytes: int = 0
    # ESTIMATED wait-state cycles per byte of constants read from that region (its wait states over the bytes a flash
    # read brings, where no cache hides data reads): what a variant that reads its weights fewer times saves. 0 on
    # every QEMU board (zero-wait-state memories) and on the real boards at the clocks their ports run.
    flash_wait_per_byte: float = 0.0
    # The board's core (a variant whose instruction order loses on one core leaves it alone there); "": not known.
    core: str = ""

    def has(self, required: frozenset[str]) -> bool:
        return required <= self.features

    @property
    def name(self) -> str:
        """The class of instruction set, as comments and profiles name it."""
        if MVE in self.features:
            return "Armv8.1-M + MVE"
        if DSP in self.features:
            return "Armv7E-M (DSP)"
        if ARMV7M in self.features:
            return "Armv7-M"
        if ARMV6M in self.features:
            return "Armv6-M"
        return "portable C"


PORTABLE = Isa()  # the host build, and any board without DSP or MVE
