"""The cycle side of bench/speed.py: the anchor images (TFLM + CMSIS-NN, ../shared/anchors) traced and estimated
like our firmware, the memory of the boards the field publishes on, and the published figures (issue 23).

Estimates, never measurements: the timing model of firmware_gen/target/cycle_model.py on QEMU's execution trace."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from firmware_gen.link.exec_trace import Markers, run_traced
from firmware_gen.link.register_sample import sample_run
from firmware_gen.target.boards import Board
from firmware_gen.target.cycle_model import blocks_to_sample, estimate_cycles
from firmware_gen.target.disassembly import symbol_addresses
from firmware_gen.target.memory_timing import MemoryTiming

_REPO = Path(__file__).resolve().parent.parent
# The shared data beside the repository (a worktree's one level further up).
ANCHORS = next((p / "shared" / "anchors" for p in (_REPO.parent, _REPO.parent.parent) if (p / "shared").is_dir()),
               _REPO.parent / "shared" / "anchors")
ANCHOR_CONFIG = {"mps2_an385": "m3", "qemu_cortex_m3": "m3", "mps2_an386": "m4", "mps2_an500": "m7",
                 "mps2_an521": "m33", "mps3_an547": "m55"}
# The QEMU machine an anchor image was built for, where it is not the board's (../shared/anchors/README.md: the M33
# images run on mps2-an505, whose M33 executes them as an521's would).
ANCHOR_MACHINE = {"m33": "mps2-an505"}
# The core whose published figures a board is compared with, and the timing model used for that comparison (the
# M55 images are compared with the EK-RA8D1's Cortex-M85, on M85 timings).
PUBLISHED_CORE = {"mps2_an386": "cortex-m4", "mps2_an500": "cortex-m7", "mps2_an521": "cortex-m33",
                  "mps3_an547": "cortex-m85"}
# Boards whose own core has no published figure, estimated on it too from the same traces, with issue 23's target as a
# fraction of the anchor image's estimate: the M55 (<= 0.40x).
OWN_CORE_TARGET = {"mps3_an547": ("cortex-m55", 0.40)}
# MLPerf Tiny closed division, median latency x core clock (issue 23): the best figure per core, and for the M4 and
# M85 the figure of the same kernels (microTVM + CMSIS-NN on the L4R5; TFLM + CMSIS-NN on the RA8D1).
BEST = {"cortex-m4": {"vww_96_int8": 10.7e6, "pretrainedResnet_quant": 19.8e6, "kws_ref_model": 5.18e6,
                      "ad01_int8": 0.49e6},
        "cortex-m7": {"vww_96_int8": 6.66e6, "pretrainedResnet_quant": 11.4e6, "kws_ref_model": 3.16e6,
                      "ad01_int8": 0.30e6},
        "cortex-m33": {"vww_96_int8": 9.48e6, "pretrainedResnet_quant": 16.7e6, "kws_ref_model": 4.64e6,
                       "ad01_int8": 0.49e6},  # NUCLEO-U575ZI-Q at 160 MHz, the best of X-CUBE-AI 10.2, Plumerai, Bosch
        "cortex-m85": {"vww_96_int8": 6.43e6, "pretrainedResnet_quant": 4.07e6, "kws_ref_model": 1.67e6,
                       "ad01_int8": 0.25e6}}
SAME_KERNELS = {"cortex-m4": {"vww_96_int8": 36.1e6, "pretrainedResnet_quant": 46.8e6, "kws_ref_model": 12.0e6,
                              "ad01_int8": 1.03e6},
                "cortex-m85": BEST["cortex-m85"]}
# The published boards' memory (reference manuals): STM32L4R5 at 120 MHz, 5 flash wait states, the ART
# accelerator's prefetch and instruction cache hiding them on fetches, not on data reads (a 64-bit flash read per
# 8 bytes of streamed weights); STM32H7A3 and RA8D1: L1 caches in front of flash (hit rates not modelled: all
# hidden). STM32U575 at 160 MHz: 4 flash wait states (voltage range 1), the 8 KiB ICACHE in front of the flash on
# the code bus, for instruction fetches and data reads alike; its hits on weights read again are not modelled: data
# reads are charged per 16-byte line (the flash's 128-bit read), so the M33 figure leans high.
# Their SRAM (reference manuals): STM32L4R5 640 KiB, STM32U575 786 KiB, STM32H7A3 1.4 MiB, R7FA8D1 1 MiB: the room
# the estimate may give hot tables (driver/ram_weights.py), as issue 23 allows ("the estimate decides").
PUBLISHED_SRAM = {"cortex-m4": 640 * 1024, "cortex-m33": 786 * 1024, "cortex-m7": 1400 * 1024,
                  "cortex-m85": 1024 * 1024}
# Issue 23's targets, estimated cycles per inference on the published board's memory: 10 % below the best published
# figure (the M85's on the M55 image with M85 timings).
TARGET_CYCLES = {"cortex-m4": {"vww_96_int8": 9.6e6, "pretrainedResnet_quant": 17.8e6, "kws_ref_model": 4.6e6,
                               "ad01_int8": 0.44e6},
                 "cortex-m7": {"vww_96_int8": 6.0e6, "pretrainedResnet_quant": 10.2e6, "kws_ref_model": 2.85e6,
                               "ad01_int8": 0.27e6},
                 "cortex-m33": {"vww_96_int8": 8.5e6, "pretrainedResnet_quant": 15.0e6, "kws_ref_model": 4.2e6,
                                "ad01_int8": 0.44e6},
                 "cortex-m85": {"vww_96_int8": 5.8e6, "pretrainedResnet_quant": 3.7e6, "kws_ref_model": 1.5e6,
                                "ad01_int8": 0.23e6}}
PUBLISHED_MEMORY = {"cortex-m4": ("STM32L4R5 (NUCLEO-L4R5ZI, 120 MHz)", 5, "fetch", 8),
                    "cortex-m33": ("STM32U575 (NUCLEO-U575ZI-Q, 160 MHz)", 4, "fetch", 16),
                    "cortex-m7": ("STM32H7A3 (NUCLEO-H7A3ZI-Q, 280 MHz)", 0, "all", 8),
                    "cortex-m85": ("R7FA8D1 (EK-RA8D1, 480 MHz)", 0, "all", 8)}


def published_board(board: Board, core: str) -> Board:
    """The board with the published part's memory timing: code and read-only data in its flash, the rest in
    zero-wait-state SRAM. Built for it, the kernel variants that weigh flash reads (Isa.flash_wait_per_byte) choose
    for that memory; it runs on the board's QEMU machine as the board does."""
    _, flash_waits, cache, line = PUBLISHED_MEMORY[core]
    flash = {"code", "rodata"}
    regions = tuple(replace(r, wait_states=flash_waits, cache=cache, line_bytes=line) if flash & set(r.holds)
                    else replace(r, wait_states=0, cache="none") for r in board.regions)
    return replace(board, regions=regions)


def published_memory(board: Board, core: str) -> MemoryTiming:
    """The memory timing of published_board(board, core)."""
    part, flash_waits, cache, line = PUBLISHED_MEMORY[core]
    timed = published_board(board, core)
    return MemoryTiming(timed.regions, timed.region_for("pool").name, timed.region_for("stack").name,
                        f"{part}-like: flash {flash_waits} ws ({cache} hidden, {line} B per flash read), SRAM 0 ws; "
                        "accesses through pointers placed by a register sample per block (ours: per step)")


def anchor_estimate(board: Board, model: str, cores: tuple[str, ...],
                    memory: MemoryTiming) -> dict[str, tuple[int, float]] | None:
    """{core: (instructions, estimated cycles)} of the anchor image's timed Invoke, one trace estimated on each
    core's timing; None when there is no image."""
    elf = ANCHORS / ANCHOR_CONFIG.get(board.name, "-") / f"{model}.elf"
    if not elf.is_file():
        return None
    marks = symbol_addresses(elf, ("anchor_timed_begin", "anchor_timed_end"))
    machine = ANCHOR_MACHINE.get(ANCHOR_CONFIG[board.name], board.qemu_machine or "")
    command = ["qemu-system-arm", "-M", machine, "-nographic", "-monitor", "none", "-serial",
               "null", "-icount", "shift=0", "-semihosting-config", "enable=on,target=native", "-kernel", str(elf)]
    counts, _ = run_traced(command, Markers(marks["anchor_timed_begin"], marks["anchor_timed_end"]), 900)
    estimates = {}
    for core in cores:
        samples = sample_run(command, blocks_to_sample(counts, elf, core), 900) if memory.data_waits else {}
        estimate = estimate_cycles(counts, elf, core, memory, samples=samples)
        estimates[core] = (estimate.instructions, estimate.cycles)
    return estimates
