"""How the generated C presents itself to a product: its name prefix, who owns the pool, where the weights go."""

from __future__ import annotations

import re
from dataclasses import dataclass

from firmware_gen.abi import DEFAULT_PREFIX, is_c_identifier
from firmware_gen.errors import UserError

_SECTION_NAME = re.compile(r"\.?[A-Za-z_][A-Za-z0-9_.$]*")


RAM_WEIGHTS_SECTION = ".data.fg_ram_weights"  # + ".<symbol>": start-up copies .data.* from flash into RAM


@dataclass(frozen=True)
class RamWeight:
    """A constant table the firmware copies from flash into RAM at start-up (--weights-in-ram), and why: the
    estimated wait-state cycles per inference its reads from flash cost (driver/ram_weights.py)."""

    symbol: str  # the C array: a step's table (stepN_suffix) or a constant tensor (NAME_const_N)
    bytes: int
    saved_cycles: float  # estimated, per inference


@dataclass(frozen=True)
class GenerationOptions:
    name: str = DEFAULT_PREFIX  # --name: every external symbol starts with it, every macro with it upper-cased
    pool_from_app: bool = False  # --pool-from-app: the application passes the pool (NAME_model_set_pool)
    weights_section: str | None = None  # --weights-section: the section of the constant tensors
    # Only the compact weight layouts, whatever flash the board has (ops/convolution/wide_layout.py; the tests of
    # those kernels)
    compact_weights: bool = False
    ram_weights: tuple[RamWeight, ...] = ()  # tables placed in RAM, copied there from flash at start-up
    ram_memory: str = ""  # the memory configuration the estimate behind ram_weights assumed
    # The kernel variants chosen as for flash without wait states (Isa.flash_wait_per_byte 0): every table whose reads
    # from flash the estimate charges is in RAM, so the variants that weigh flash reads (staged copies) gain nothing
    wait_free_variants: bool = False

    def ram_weight(self, symbol: str) -> RamWeight | None:
        """The constant array's placement in RAM, if it is there."""
        return next((w for w in self.ram_weights if w.symbol == symbol), None)

    def section_attribute(self, symbol: str) -> str:
        """The section attribute of a constant array: RAM (a .data section), --weights-section, or none."""
        if self.ram_weight(symbol) is not None:
            return f'section("{RAM_WEIGHTS_SECTION}.{symbol}")'
        return f'section("{self.weights_section}")' if self.weights_section else ""

    def check(self, interface: str, named_pools: bool) -> None:
        """Refuse what cannot be generated, as the user's mistake."""
        if not is_c_identifier(self.name):
            raise UserError(f"--name {self.name!r}: not a C identifier (letters, digits and _, not starting with "
                            f"a digit)")
        if self.weights_section is not None and not _SECTION_NAME.fullmatch(self.weights_section):
            raise UserError(f"--weights-section {self.weights_section!r}: not a section name (e.g. .ext_flash)")
        if self.pool_from_app and interface != "unpacked":
            raise UserError("--pool-from-app needs the unpacked interface (the packed tensor descriptors are "
                            "constants pointing into a static pool)")
        if self.pool_from_app and named_pools:
            raise UserError("--pool-from-app supplies the one default pool: it cannot be combined with --pool")
