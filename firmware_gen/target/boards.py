"""Target boards: one TOML file per board in boards/ (CPU flags, memory regions, UART, cycle counter, and either the
QEMU machine that emulates it or, for a real board, its clock, its debug probe and how pyOCD flashes it)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import tomllib

from firmware_gen.errors import UserError
from firmware_gen.isa import CORE_FEATURES, FEATURES, Isa, core_features
from firmware_gen.resources import BOARDS_DIR, RUNTIME_DIR

PORTS_DIR = RUNTIME_DIR / "ports"
# What the linker script can place in a memory region. "pool" is the model's workspace (.bss.fg_pool).
MEMORY_KINDS = ("code", "rodata", "data", "bss", "pool", "stack")
UART_KINDS = ("pl011", "cmsdk", "stm32_usart", "nrf_uarte", "nrf_uart", "kinetis_uart", "renesas_sci_b")
CYCLE_COUNTER_KINDS = ("dwt", "systick")
FLASH_METHODS = ("pyocd", "uf2")  # through the debug probe; a UF2 file for the chip's USB bootloader
REGION_CACHES = ("none", "fetch", "all")  # what hides a region's wait states: nothing, instruction fetch, every access
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
    wait_states: int | None = None  # core cycles added per access (None: not stated, the estimate assumes 0)
    cache: str = "none"  # what a cache or flash accelerator hides the wait states of: none, fetch or all
    line_bytes: int = 4  # bytes one wait-stated read brings (a flash line: the rest of it is served without waits)

    @property
    def data_wait_per_byte(self) -> float:
        """The wait-state cycles a byte of data read in sequence costs (0 where a cache hides data reads)."""
        return 0.0 if self.cache == "all" else (self.wait_states or 0) / self.line_bytes

    @property
    def end(self) -> int:
        return self.origin + self.size


@dataclass(frozen=True)
class Probe:
    """The debug probe on a real board: what the USB port looks like and what pyOCD calls the chip."""

    name: str
    usb_ids: tuple[tuple[int, int], ...]  # (vendor id, product id) of the probe's USB device
    pyocd_target: str
    pyocd_pack: str | None = None  # the CMSIS pack `pyocd pack install` needs, when the target is not built in
    pyocd_pack_name: str | None = None  # that pack's own name (e.g. Keil.STM32F7xx_DFP), for messages


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    core: str
    gcc_flags: tuple[str, ...]
    fpu: bool
    features: frozenset[str]  # ISA features of the CPU (firmware_gen.isa.FEATURES)
    regions: tuple[MemoryRegion, ...]
    stack_bytes: int
    uart_kind: str
    uart_base: int
    cycle_counter: str  # the preferred counter; SysTick is always the fallback
    systick_hz: int
    qemu_machine: str | None  # None: a real board
    qemu_flags: tuple[str, ...]
    qemu_note: str = ""  # what the machine executes, when not the board's core (an M3 running Armv6-M code)
    core_hz: int = 0  # the core clock the firmware runs at; a QEMU board's nominal one (0: not stated)
    uart_baud: int = 115200
    uart_clock_hz: int = 0  # the UART's kernel clock, from which the baud divisor is computed
    uart_pins: tuple[int, int] | None = None  # (TX, RX) for UARTs with their own pin select (nRF)
    uart_rts_pin: int | None = None  # a pin held high as an output (nRF-DK: RTS towards the J-Link OB's CTS)
    uart_gpio_base: int | None = None  # where the UART driver finds the GPIO port of its pins, when not the default
    init: str | None = None  # runtime_c/ports/board_<init>.c: clocks, pins, watchdog, before anything else runs
    flash_config_offset: int | None = None  # a chip configuration word block that must sit at code + offset
    probe: Probe | None = None
    # A real board whose core QEMU does not emulate: the QEMU board that runs the same instruction set, on which its
    # cycles are estimated with this core's timings (Cortex-M85: the M55's mps3_an547).
    estimate_on: str | None = None
    kernel_variants: bool = True  # False: the portable C kernels only, whatever the CPU offers (a sweep's option)
    source: str = ""  # the board file
    stands_for: str = ""  # the real part whose memory timing the regions state (a QEMU board)
    muls_cycles: int = 1  # a Cortex-M0+'s MULS: 1 (fast multiplier) or 32 (small), by configuration
    boot_stage: str | None = None  # runtime_c/ports/boot2_<stage>.c: a 256-byte flash second stage before the vectors
    flash_method: str = "pyocd"  # FLASH_METHODS
    uf2_family: int | None = None  # the UF2 family id of the chip (flash method uf2)

    @property
    def emulated(self) -> bool:
        """True for a QEMU machine, False for a real board (flashed with pyOCD, run over its serial port)."""
        return self.qemu_machine is not None

    def identity(self) -> str:
        """Everything the board states, the same in every process (sets sorted) and wherever its file is: what a build
        for it depends on (a board file edited under the same name, or a board changed in memory, is another board)."""
        stated = {field: value for field, value in asdict(self).items() if field != "source"}
        return json.dumps(stated, sort_keys=True, default=sorted)

    def region_for(self, kind: str) -> MemoryRegion:
        """The region that holds one kind of memory (the first that lists it)."""
        return next(r for r in self.regions if kind in r.holds)

    @property
    def isa(self) -> Isa:
        features = core_features(self.core, self.features) if self.kernel_variants else frozenset()
        rodata = self.region_for("rodata")
        return Isa(features, rodata.size, self.stack_bytes, rodata.data_wait_per_byte, self.core)

    @property
    def instructions_per_tick(self) -> float:
        """Guest instructions per SysTick tick under QEMU -icount shift=ICOUNT_SHIFT."""
        return 1e9 / (self.systick_hz * 2**ICOUNT_SHIFT)


def list_boards(emulated: bool | None = None) -> list[str]:
    """Board names; emulated=True: only QEMU machines, False: only real boards."""
    names = sorted(path.stem for path in BOARDS_DIR.glob("*.toml"))
    if emulated is None:
        return names
    return [name for name in names if load_board(name).emulated == emulated]


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
        board = replace(_board_from_dict(data), source=str(path))
    except (KeyError, TypeError, ValueError) as error:
        raise BoardError(f"{path}: not a valid board description ({type(error).__name__}: {error})") from None
    _check(board, path)
    return board


def _usb_id(text: str) -> tuple[int, int]:
    vendor, product = text.split(":")
    return int(vendor, 16), int(product, 16)


def _probe_from_dict(data: dict | None) -> Probe | None:
    if data is None:
        return None
    return Probe(str(data["name"]), tuple(_usb_id(str(i)) for i in data["usb_ids"]), str(data["pyocd_target"]),
                 data.get("pyocd_pack"), data.get("pyocd_pack_name"))


def _board_from_dict(data: dict) -> Board:
    regions = tuple(MemoryRegion(str(m["name"]), int(m["origin"]), int(m["size"]), tuple(m["holds"]),
                                 None if "wait_states" not in m else int(m["wait_states"]), str(m.get("cache", "none")),
                                 int(m.get("line_bytes", 4)))
                    for m in data["memory"])
    timing = data.get("timing", {})
    qemu = data.get("qemu")
    core_hz = int(data.get("clock", {}).get("core_hz", 0))
    uart = data["uart"]
    pins = (int(uart["tx_pin"]), int(uart["rx_pin"])) if "tx_pin" in uart else None
    return Board(
        name=str(data["name"]),
        description=str(data.get("description", "")),
        core=str(data["cpu"]["core"]),
        gcc_flags=tuple(data["cpu"]["gcc_flags"]),
        fpu=bool(data["cpu"]["fpu"]),
        features=frozenset(str(f) for f in data["cpu"]["features"]),
        regions=regions,
        stack_bytes=int(data["stack"]["bytes"]),
        uart_kind=str(uart["kind"]),
        uart_base=int(uart["base"]),
        cycle_counter=str(data["cycle_counter"]["kind"]),
        systick_hz=int(data["cycle_counter"].get("systick_hz", core_hz)),  # real boards: SysTick on the core clock
        qemu_machine=None if qemu is None else str(qemu["machine"]),
        qemu_flags=() if qemu is None else tuple(qemu.get("extra_flags", ())),
        qemu_note="" if qemu is None else str(qemu.get("note", "")),
        core_hz=core_hz,
        uart_baud=int(uart.get("baud", 115200)),
        uart_clock_hz=int(uart.get("clock_hz", core_hz if qemu is None else 0)),  # QEMU: no baud divisor
        uart_pins=pins,
        uart_rts_pin=int(uart["rts_pin"]) if "rts_pin" in uart else None,
        uart_gpio_base=int(uart["gpio_base"]) if "gpio_base" in uart else None,
        init=data["cpu"].get("init"),
        flash_config_offset=data.get("flash_config", {}).get("offset"),
        probe=_probe_from_dict(data.get("probe")),
        estimate_on=data["cpu"].get("estimate_on"),
        stands_for=str(timing.get("stands_for", "")),
        muls_cycles=int(timing.get("muls_cycles", 1)),
        boot_stage=data.get("boot", {}).get("stage"),
        flash_method=str(data.get("flash", {}).get("method", "pyocd")),
        uf2_family=int(data["flash"]["uf2_family"]) if "uf2_family" in data.get("flash", {}) else None,
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
        if region.cache not in REGION_CACHES or (region.wait_states or 0) < 0 or region.line_bytes <= 0:
            problems.append(f"region '{region.name}': cache must be one of {REGION_CACHES}, wait_states >= 0 and "
                            f"line_bytes > 0")
        if region.size <= 0 or region.origin < 0 or region.end > 2**32:
            problems.append(f"region '{region.name}' is not inside the 32-bit address space")
    problems += _feature_problems(board)
    if board.uart_kind not in UART_KINDS:
        problems.append(f"uart kind '{board.uart_kind}' is not one of {UART_KINDS}")
    if board.cycle_counter not in CYCLE_COUNTER_KINDS:
        problems.append(f"cycle_counter kind '{board.cycle_counter}' is not one of {CYCLE_COUNTER_KINDS}")
    if board.systick_hz <= 0 or board.stack_bytes <= 0:
        problems.append("systick_hz and stack bytes must be positive")
    if not board.emulated:
        if board.probe is None:
            problems.append("a real board (no [qemu] section) needs a [probe] section")
        if board.core_hz <= 0 or board.uart_clock_hz <= 0 or board.uart_baud <= 0:
            problems.append("a real board needs [clock] core_hz and a positive UART clock and baud rate")
    if board.estimate_on is not None:
        problems += _stand_in_problems(board)
    for field, value, file in (("cpu.init", board.init, f"board_{board.init}.c"),
                               ("boot.stage", board.boot_stage, f"boot2_{board.boot_stage}.c")):
        if value is not None and not (PORTS_DIR / file).is_file():
            problems.append(f"{field} '{value}': no {PORTS_DIR / file}")
    if board.flash_method not in FLASH_METHODS or (board.flash_method == "uf2") != (board.uf2_family is not None):
        problems.append(f"flash.method must be one of {FLASH_METHODS}; uf2 (and only uf2) needs flash.uf2_family")
    if problems:
        raise BoardError(f"{path}: " + "; ".join(problems))


def _feature_problems(board: Board) -> list[str]:
    unknown = sorted(board.features - set(FEATURES))
    if unknown:
        return [f"cpu.features {unknown} unknown (known: {', '.join(FEATURES)})"]
    possible = CORE_FEATURES.get(board.core)
    if possible is None:
        return [] if not board.features else [f"cpu.features: core '{board.core}' is unknown, so its features "
                                              f"cannot be checked (known cores: {', '.join(CORE_FEATURES)})"]
    impossible = sorted(board.features - possible)
    if impossible:
        return [f"cpu.features {impossible}: a {board.core} has no such extension "
                f"(it can have {sorted(possible) or 'none'})"]
    return []


def _stand_in_problems(board: Board) -> list[str]:
    """cpu.estimate_on must name a QEMU board whose core has every ISA feature this board's code uses."""
    try:
        stand_in = load_board(board.estimate_on)
    except BoardError as error:
        return [f"cpu.estimate_on: {error}"]
    if not stand_in.emulated or not board.features <= stand_in.features:
        return [f"cpu.estimate_on '{board.estimate_on}' is not a QEMU board with every feature of {board.core} "
                f"({sorted(board.features)})"]
    return []
