"""A firmware's reads from wait-stated memory per symbol, estimated under QEMU: a traced run (the blocks each step
executes), a second run that samples the registers at the entry of each step's pointer-heavy blocks (which table
a kernel's loop reads in that step), and the attribution of target/flash_reads.py. Two runs of the firmware."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from firmware_gen.link.cycle_run import firmware_markers
from firmware_gen.link.exec_trace import TraceCounts
from firmware_gen.link.qemu import free_tcp_port
from firmware_gen.link.register_sample import SegmentSampler
from firmware_gen.link.runner import run_model
from firmware_gen.target.cross_build import FirmwareBuild
from firmware_gen.target.cycle_model import CycleEstimate, blocks_to_sample_by_segment, estimate_cycles
from firmware_gen.target.flash_reads import SymbolReads, flash_reads
from firmware_gen.target.memory_timing import MemoryTiming, board_memory


@dataclass
class FlashProfile:
    estimate: CycleEstimate  # of the whole invoke, with every step's blocks placed by their own sample
    reads: dict[str, SymbolReads]  # symbol -> its reads from wait-stated memory per inference
    instructions: int  # exact, from the trace


def segment_samples(firmware: FirmwareBuild, inputs: Sequence[np.ndarray | bytes], counts: TraceCounts,
                    core: str) -> dict:
    """{step: {pc: registers}} at the first execution of each step's pointer-heavy blocks (a second run)."""
    sampler = SegmentSampler(free_tcp_port(), firmware_markers(firmware.elf),
                             blocks_to_sample_by_segment(counts, firmware.elf, core))
    sampler.start()
    run_model(firmware, inputs, qemu_flags=sampler.qemu_flags)
    sampler.result()
    return sampler.segment_samples


def flash_profile(firmware: FirmwareBuild, inputs: Sequence[np.ndarray | bytes], memory: MemoryTiming | None = None,
                  core: str | None = None, counts: TraceCounts | None = None) -> FlashProfile:
    """The estimate and the per-symbol reads on `core` and `memory` (default: the board's); counts: a trace of
    the same firmware already run (else one is run)."""
    board = firmware.board
    core = core or board.core
    memory = memory or board_memory(board)
    if counts is None:
        counts = run_model(firmware, inputs, cycles=True).trace
    samples = segment_samples(firmware, inputs, counts, core) if memory.data_waits else {}
    estimate = estimate_cycles(counts, firmware.elf, core, memory, muls_cycles=board.muls_cycles,
                               source=board.source or board.name, segment_samples=samples)
    return FlashProfile(estimate, flash_reads(counts, firmware.elf, core, memory, segment_samples=samples),
                        estimate.instructions)
