"""Target boards: one TOML file per board in boards/ (CPU flags, memory regions, UART, cycle counter, QEMU machine)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tomllib

from firmware_gen.errors import UserError

BOARDS_DIR = Path(__file__).resolve().parent.parent / "boards"
# What the linker script can place in a memory region. "pool" is the model's workspace (.bss.fg_pool).
MEMORY_KINDS = ("code", "rodata", "data", "bss", "pool", "stack")
UART_KINDS = ("pl011", "cmsdk")
CYCLE_COUNTER_KINDS = ("dwt", "systick")
# Under QEMU -icount shift=N every guest instruction takes 2**N ns of virtual time; the runner uses shift 0.
ICOUNT_SHIFT = 0


class BoardError(UserError):
    """An unknown board name or a board file that does not describe a usable board."""


@dataclass(frozen=True)
class MemoryRegion:
    name: str
    origin: int
    size: int
    holds: tuple[str, ...]

    @property
    def end(self) -> int:
        return self.origin + self.size


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    core: str
    gcc_flags: tuple[str, ...]
    fpu: bool
    regions: tuple[MemoryRegion, ...]
    stack_bytes: int
    uart_kind: str
    uart_base: int
    cycle_counter: str  # the preferred counter; SysTick is always the fallback
    systick_hz: int
    qemu_machine: str
    qemu_flags: tuple[str, ...]

    def region_for(self, kind: str) -> MemoryRegion:
        """The region that holds one kind of memory (the first that lists it)."""
        return next(r for r in self.regions if kind in r.holds)

    @property
    def instructions_per_tick(self) -> float:
        """Guest instructions per SysTick tick under QEMU -icount shift=ICOUNT_SHIFT."""
        return 1e9 / (self.systick_hz * 2**ICOUNT_SHIFT)


def list_boards() -> list[str]:
    return sorted(path.stem for path in BOARDS_DIR.glob("*.toml"))


def load_board(name: str) -> Board:
    """A board by name (boards/<name>.toml) or by the path of a TOML file in the same format."""
    path = Path(name) if name.endswith(".toml") else BOARDS_DIR / f"{name}.toml"
    if not path.is_file():
        raise BoardError(f"unknown board '{name}'; known boards: {', '.join(list_boards())}")
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        raise BoardError(f"{path}: not valid TOML ({error})") from None
    try:
        board = _board_from_dict(data)
    except (KeyError, TypeError, ValueError) as error:
        raise BoardError(f"{path}: not a valid board description ({type(error).__name__}: {error})") from None
    _check(board, path)
    return board


def _board_from_dict(data: dict) -> Board:
    regions = tuple(MemoryRegion(str(m["name"]), int(m["origin"]), int(m["size"]), tuple(m["holds"]))
                    for m in data["memory"])
    return Board(
        name=str(data["name"]),
        description=str(data.get("description", "")),
        core=str(data["cpu"]["core"]),
        gcc_flags=tuple(data["cpu"]["gcc_flags"]),
        fpu=bool(data["cpu"]["fpu"]),
        regions=regions,
        stack_bytes=int(data["stack"]["bytes"]),
        uart_kind=str(data["uart"]["kind"]),
        uart_base=int(data["uart"]["base"]),
        cycle_counter=str(data["cycle_counter"]["kind"]),
        systick_hz=int(data["cycle_counter"]["systick_hz"]),
        qemu_machine=str(data["qemu"]["machine"]),
        qemu_flags=tuple(data["qemu"].get("extra_flags", ())),
    )


def _check(board: Board, path: Path) -> None:
    problems = []
    for kind in MEMORY_KINDS:
        if not any(kind in r.holds for r in board.regions):
            problems.append(f"no memory region holds '{kind}'")
    for region in board.regions:
        unknown = set(region.holds) - set(MEMORY_KINDS)
        if unknown:
            problems.append(f"region '{region.name}' holds unknown kinds {sorted(unknown)} (known: {MEMORY_KINDS})")
        if region.size <= 0 or region.origin < 0 or region.end > 2**32:
            problems.append(f"region '{region.name}' is not inside the 32-bit address space")
    if board.uart_kind not in UART_KINDS:
        problems.append(f"uart kind '{board.uart_kind}' is not one of {UART_KINDS}")
    if board.cycle_counter not in CYCLE_COUNTER_KINDS:
        problems.append(f"cycle_counter kind '{board.cycle_counter}' is not one of {CYCLE_COUNTER_KINDS}")
    if board.systick_hz <= 0 or board.stack_bytes <= 0:
        problems.append("systick_hz and stack bytes must be positive")
    if problems:
        raise BoardError(f"{path}: " + "; ".join(problems))
