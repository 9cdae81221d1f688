"""A profiling firmware's run under QEMU with its execution trace on, and the cycle estimate of its invoke and of
each step (target/cycle_model.py). The window is the first invoke: from the entry of fg_model_invoke to the first
output frame sent after it; the steps are the firmware's step hooks, fg_hook_step_begin .. fg_hook_step_end."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from firmware_gen.link.exec_trace import Markers, TraceCounts, TraceReader
from firmware_gen.target.boards import Board
from firmware_gen.target.cross_build import FirmwareBuild
from firmware_gen.target.cycle_model import CycleEstimate, check_core, estimate_cycles
from firmware_gen.target.disassembly import symbol_addresses
from firmware_gen.target.memory_timing import MemoryTiming, board_memory

_INVOKE, _RESULTS, _STEP_BEGIN, _STEP_END = ("fg_model_invoke", "fg_frame_send_output", "fg_hook_step_begin",
                                             "fg_hook_step_end")


def firmware_markers(elf: Path) -> Markers:
    found = symbol_addresses(elf, (_INVOKE, _RESULTS, _STEP_BEGIN, _STEP_END))
    return Markers(found[_INVOKE], found[_RESULTS], found[_STEP_BEGIN], found[_STEP_END])


def check_timing(board: Board) -> None:
    """Refuses, before any run, a board whose core has no timing model."""
    check_core(board.core, board.source or board.name)


@contextlib.contextmanager
def firmware_trace(firmware: FirmwareBuild) -> Iterator[TraceReader]:
    check_timing(firmware.board)
    markers = firmware_markers(firmware.elf)
    with tempfile.TemporaryDirectory(prefix="fg-trace-") as scratch, TraceReader(Path(scratch), markers) as reader:
        yield reader


def firmware_estimate(firmware: FirmwareBuild, counts: TraceCounts, memory: MemoryTiming | None = None,
                      core: str | None = None, samples: dict | None = None) -> CycleEstimate:
    """The estimate on the board's core and memory, or those given; samples: see estimate_cycles."""
    board = firmware.board
    return estimate_cycles(counts, firmware.elf, core or board.core, memory or board_memory(board),
                           muls_cycles=board.muls_cycles, source=board.source or board.name, samples=samples)
