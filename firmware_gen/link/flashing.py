"""Flash a firmware image into a real board through its debug probe, with pyOCD (the `boards` extra); a board
flashed through its chip's USB bootloader gets a UF2 file instead (link/uf2_flashing.py).

pyOCD talks to the probes found on these boards (ST-LINK, CMSIS-DAP/DAPLink, J-Link through SEGGER's library)
and knows the flash algorithms of the chips (built in, or from a CMSIS pack). After programming the chip is reset,
so the firmware is waiting for the host's HELLO_REQUEST when `firmware-gen run` opens the serial port.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_gen.errors import UserError
from firmware_gen.link.uf2_flashing import flash_uf2, require_a_way
from firmware_gen.target.boards import Board

PYOCD_INSTALL = "pip install 'firmware-gen[boards]' (or: pip install pyocd)"


class FlashError(UserError):
    """pyOCD missing, no probe or several, or programming failed."""


@dataclass(frozen=True)
class ProbeInfo:
    unique_id: str
    description: str


def _pyocd(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise FlashError(f"flashing needs pyOCD, which is not installed: {PYOCD_INSTALL}") from None


def connected_probes() -> list[ProbeInfo]:
    helpers = _pyocd("pyocd.core.helpers")
    probes = helpers.ConnectHelper.get_all_connected_probes(blocking=False, print_wait_message=False)
    return [ProbeInfo(str(p.unique_id), str(p.description)) for p in probes]


def choose_probe(board: Board, probes: list[ProbeInfo], probe_id: str | None) -> ProbeInfo:
    """The one probe to use: probe_id (a unique id or part of one) when given, else the only one connected."""
    listing = ", ".join(f"{p.unique_id} ({p.description})" for p in probes)
    if probe_id:
        chosen = [p for p in probes if probe_id.lower() in p.unique_id.lower()]
        if len(chosen) == 1:
            return chosen[0]
        if not chosen:
            raise FlashError(f"no debug probe matches --probe {probe_id}; connected: {listing or 'none'}")
        raise FlashError(f"--probe {probe_id} matches {len(chosen)} probes ({', '.join(p.unique_id for p in chosen)})"
                         ": give more of the id")
    if not probes:
        name = board.probe.name if board.probe else "debug probe"
        raise FlashError(f"no debug probe found: connect {board.name} by the USB connector of its {name} "
                         "(on Linux, pyOCD also needs the probe's udev rules to use it without root)")
    if len(probes) > 1:
        raise FlashError(f"{len(probes)} debug probes connected: {listing}; choose one with --probe ID")
    return probes[0]


def _normalised(pyocd_target: Any, name: str) -> str:
    normalise = getattr(pyocd_target, "normalise_target_type_name", None)
    return normalise(name) if normalise else name.lower()


def check_target_support(board: Board) -> None:
    """pyOCD knows the board's chip: built in, or from an installed CMSIS pack. `flash` never downloads a pack (it
    may run offline): a missing one is named, with the one command that installs it."""
    assert board.probe is not None
    targets = _pyocd("pyocd.target")
    name = _normalised(targets, board.probe.pyocd_target)
    if name in targets.TARGET:
        return
    _pyocd("pyocd.target.pack.pack_target").ManagedPacks.populate_target(board.probe.pyocd_target)
    if name in targets.TARGET:
        return
    pack = board.probe.pyocd_pack
    if pack is None:
        raise FlashError(f"pyOCD does not know the target '{board.probe.pyocd_target}' of {board.name}: "
                         f"upgrade pyOCD ({PYOCD_INSTALL})")
    family = f" ({board.probe.pyocd_pack_name})" if board.probe.pyocd_pack_name else ""
    raise FlashError(f"pyOCD has no target '{board.probe.pyocd_target}' for {board.name}: it comes from the CMSIS "
                     f"pack of {pack}{family}, which is not installed and which flash does not download; install "
                     f"it once with: pyocd pack install {pack}")


def _pack_hint(board: Board) -> str:
    pack = board.probe.pyocd_pack if board.probe else None
    return f" (pyOCD needs the chip's CMSIS pack for this target: pyocd pack install {pack})" if pack else ""


def program(board: Board, elf: Path, probe: ProbeInfo) -> None:
    """Erase what the image needs, program it, verify, and reset the chip so the firmware runs."""
    session_module = _pyocd("pyocd.core.session")
    programmer = _pyocd("pyocd.flash.file_programmer")
    exceptions = _pyocd("pyocd.core.exceptions")
    assert board.probe is not None
    try:
        helpers = _pyocd("pyocd.core.helpers")
        (debug_probe,) = helpers.ConnectHelper.get_all_connected_probes(blocking=False, unique_id=probe.unique_id,
                                                                         print_wait_message=False)
        with session_module.Session(debug_probe, target_override=board.probe.pyocd_target) as session:
            programmer.FileProgrammer(session).program(str(elf), file_format="elf")
            session.target.reset()
    except ValueError:
        raise FlashError(f"the probe {probe.unique_id} went away before programming") from None
    except exceptions.TargetSupportError as error:
        raise FlashError(f"pyOCD does not know the target '{board.probe.pyocd_target}' ({error})"
                         f"{_pack_hint(board)}") from None
    except exceptions.Error as error:
        raise FlashError(f"pyOCD could not flash {board.name} through {probe.unique_id}: "
                         f"{type(error).__name__}: {error}{_pack_hint(board)}") from None


def refuse_before_building(board: Board, model: str = "MODEL") -> None:
    """What can be refused before the firmware is built: a QEMU board, a UF2 board without a way to flash it."""
    refuse_emulated(board, model)
    if board.flash_method == "uf2":
        require_a_way(board)


def refuse_emulated(board: Board, model: str = "MODEL") -> None:
    if board.emulated:
        raise FlashError(f"{board.name} is a QEMU machine: QEMU boards are not flashed (QEMU loads the image at "
                         f"each run); use `firmware-gen run {model} --board {board.name}`")


def flash(board: Board, elf: Path, probe_id: str | None = None,
          progress: Callable[[str], None] = lambda message: None) -> ProbeInfo:
    """Flash elf into board through its probe (probe_id chooses among several), or as a UF2 file through the chip's
    USB bootloader (flash.method uf2). Returns the probe used (for UF2: how, and where)."""
    refuse_emulated(board)
    if board.flash_method == "uf2":
        how, where = flash_uf2(board, elf, progress)
        return ProbeInfo(where, how)
    check_target_support(board)
    probe = choose_probe(board, connected_probes(), probe_id)
    progress(f"flashing {elf} ({board.probe.pyocd_target if board.probe else '?'}) through {probe.description} "
             f"{probe.unique_id}")
    program(board, elf, probe)
    return probe
