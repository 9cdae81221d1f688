"""`firmware-gen selftest`: is the board, its probe and its cable what the board file says, before any model runs
on it? Builds the self-test firmware, flashes it (a real board), runs its checks (link/selftest.py), reports one
line per check."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from firmware_gen.abi import Feature
from firmware_gen.link.flashing import flash
from firmware_gen.link.selftest import CheckResult, run_selftest
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.selftest_build import build_selftest


def claimed_features(board: Board) -> list[Feature]:
    """The CPU features the board file claims: [cpu] fpu, and the ISA extensions of [cpu] features (dsp, mve)."""
    names = {name.lower() for name in board.features} | ({"fpu"} if board.fpu else set())
    return [feature for feature in Feature if feature.name.lower() in names]


@dataclass
class SelftestReport:
    board: str
    where: str
    checks: list[CheckResult]

    @property
    def passed(self) -> bool:
        return not any(c.status == "fail" for c in self.checks)

    def to_json(self) -> dict:
        return {"board": self.board, "where": self.where, "passed": self.passed,
                "checks": [c.to_json() for c in self.checks]}

    def format(self) -> str:
        width = max(len(c.name) for c in self.checks)
        lines = [f"self-test of {self.board} ({self.where}):"]
        lines += [f"  {c.status.upper():<4}  {c.name:<{width}}  {c.value}" for c in self.checks]
        failed = [c.name for c in self.checks if c.status == "fail"]
        lines.append(f"failed: {', '.join(failed)}" if failed else "all checks passed")
        return "\n".join(lines)


def selftest(board: Board | str, *, port: str | None = None, baudrate: int | None = None, probe: str | None = None,
             flash_first: bool = True, stall_timeout: float = 10.0,
             progress: Callable[[str], None] = lambda message: None) -> SelftestReport:
    """Build the self-test for board, flash it (a real board, unless flash_first is False) and run it under QEMU
    or over port."""
    board = load_board(board) if isinstance(board, str) else board
    with tempfile.TemporaryDirectory(prefix="fg-selftest-") as scratch:
        progress(f"cross-compiling the self-test for {board.name} ({board.core})")
        firmware = build_selftest(board, Path(scratch), semihosting=port is None)
        if port is not None and not board.emulated and flash_first:
            flash(board, firmware.elf, probe, progress=progress)
        where = port or f"QEMU {board.qemu_machine}"
        progress(f"running the self-test on {board.name} via {where}")
        checks = run_selftest(firmware, claimed_features(board), serial_url=port, baudrate=baudrate,
                              stall_timeout=stall_timeout)
    return SelftestReport(board.name, where, checks)
