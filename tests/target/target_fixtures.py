"""Fixtures of the target tests: the hand-written add-one model, toolchain and QEMU availability, orphan checks."""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import pytest

from firmware_gen.target.boards import Board, load_board

FIXTURE_MODEL = Path(__file__).resolve().parent.parent / "fixtures" / "add_one_model"

needs_cross_gcc = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="arm-none-eabi-gcc missing")
needs_qemu = pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                                reason="qemu-system-arm or arm-none-eabi-gcc missing")


def no_qemu_left(elf: Path, within: float = 60.0) -> bool:
    """No process with elf on its command line, polled for up to `within` seconds: a QEMU that was killed leaves
    the process table only once the kernel has run its exit, which a loaded machine may delay; an orphan stays."""
    deadline = time.monotonic() + within
    while qemu_processes_for(elf) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not qemu_processes_for(elf)


def qemu_processes_for(elf: Path) -> list[int]:
    """Process ids of anything still running with elf on its command line (a QEMU left behind)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(elf).encode() in cmdline:
            pids.append(int(entry.name))
    return pids


def with_flash_wait_states(name: str, wait_states: int = 5, line_bytes: int = 8) -> Board:
    """The QEMU board `name` with its code and read-only data region timed as an STM32L4R5's flash at 120 MHz (5 wait
    states per 8-byte read, the ART hiding them on fetches): the kernel variants that weigh flash reads
    (Isa.flash_wait_per_byte) choose as on that part; QEMU runs it as the board."""
    board = load_board(name)
    timed = tuple(dataclasses.replace(r, wait_states=wait_states, cache="fetch", line_bytes=line_bytes)
                  if "rodata" in r.holds else r for r in board.regions)
    return dataclasses.replace(board, regions=timed)
