"""--weights-in-ram: copy the constant tables whose reads from flash cost the most wait states into RAM, within a
budget the user gives.

A user who counts RAM never gets weights copied there unasked: the option is off by default, BYTES bounds what it
may take, and `auto` takes what the firmware leaves free in the region that holds .data (after pool, stack, data
and bss). What it takes shows in the build's RAM (the linker places the tables in .data, its fit check counts
them) and in model_weights.c (each table with the estimated cycles it saves).

The choice is data in, data out (`choose`): each candidate table's bytes and the estimated wait-state cycles its
reads from flash cost per inference, from the firmware built with everything in flash, traced and sampled under
QEMU (link/flash_profile.py, two runs); the most cycles saved per byte of RAM first, while the budget lasts. The
firmware is then built again with those tables in RAM. Estimates: the board file's memory timing (or one given,
as bench/ gives the published board's); a board whose memory charges no data wait states moves nothing. When every
table the estimate charges goes to RAM, the kernel variants that weigh flash reads (staged copies of weights) only
add work: the model is built and profiled once more with the variants chosen as for wait-free flash
(GenerationOptions.wait_free_variants), kept if its tables fit the budget too.

A real board is profiled on the QEMU board it names in cpu.estimate_on: the same model built for the stand-in, its
two runs estimated with the real board's core and memory timing (memory_on_stand_in), so `build` needs no board
attached. Only the chosen symbols cross over, those the real board's own build has (the names are the same when
the variant choices are); the others are named and stay in flash."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen.abi import constant_symbol
from firmware_gen.backend.options import GenerationOptions, RamWeight
from firmware_gen.driver.deploy import Deployment, Progress, prepare, quiet
from firmware_gen.errors import UserError
from firmware_gen.link.flash_profile import FlashProfile, flash_profile
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.cache_limit import cache_root
from firmware_gen.target.memory_timing import MemoryTiming, board_memory, memory_on_stand_in

AUTO = "auto"
_BUDGET = re.compile(r"(\d+)([KM]?)", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024 * 1024}
_SLACK = 16  # the pool after .data is 16-byte aligned: what the tables' end may cost in padding


def parse_budget(text: str) -> int | str:
    """--weights-in-ram's value: BYTES (K/M suffixes: 640K), or auto."""
    if text.lower() == AUTO:
        return AUTO
    match = _BUDGET.fullmatch(text.strip())
    if match is None:
        raise UserError(f"--weights-in-ram {text!r}: not a size (BYTES, e.g. 65536, 64K, 1M) or auto")
    return int(match.group(1)) * _UNITS[match.group(2).upper()]


@dataclass(frozen=True)
class Candidate:
    symbol: str
    bytes: int
    saved_cycles: float  # estimated wait-state cycles per inference its reads from flash cost


def choose(candidates: Iterable[Candidate], budget: int) -> tuple[RamWeight, ...]:
    """The candidates to place in RAM: the most cycles saved per byte first, each taken if it still fits the
    budget (4-byte aligned), none that saves nothing."""
    chosen, left = [], budget
    for c in sorted(candidates, key=lambda c: (-c.saved_cycles / max(c.bytes, 1), c.symbol)):
        size = -(-c.bytes // 4) * 4
        if c.saved_cycles > 0 and size <= left:
            chosen.append(RamWeight(c.symbol, c.bytes, c.saved_cycles))
            left -= size
    return tuple(chosen)


def _every_one_placed(found: Iterable[Candidate], chosen: tuple[RamWeight, ...]) -> bool:
    placed = {w.symbol for w in chosen}
    return all(c.symbol in placed for c in found if c.saved_cycles > 0)


def table_symbols(deployment: Deployment, prefix: str) -> set[str]:
    """The generated constants that may move: every step's tables and parameters, and the constant tensors."""
    compiled = deployment.compiled
    names = {name for step in compiled.steps for name in (*step.tables.values(), step.params_name) if name}
    return names | {constant_symbol(t.index, prefix) for t in compiled.graph.tensors if t.is_constant}


def free_ram(deployment: Deployment) -> int:
    """What the firmware leaves free in the region that holds .data (auto's budget)."""
    firmware = deployment.firmware
    region = firmware.board.region_for("data")
    usage = next(r for r in firmware.regions if r.name == region.name)
    return max(0, usage.size - usage.used)


def _inputs(deployment: Deployment) -> list[bytes]:
    """Inputs for the profiling runs (which tables a kernel reads does not depend on their values)."""
    rng = np.random.default_rng(0)
    return [rng.integers(0, 256, spec.nbytes, dtype=np.uint8).tobytes()
            for spec in deployment.firmware.interface.inputs]


def _cache_file(first: Deployment, memory: MemoryTiming, core: str) -> Path:
    key = hashlib.sha256(first.firmware.elf.read_bytes() + memory.description.encode() + core.encode()).hexdigest()
    return cache_root() / "ram_weights" / f"{key[:32]}.json"


def remember_profile(first: Deployment, memory: MemoryTiming, core: str, profile: FlashProfile,
                     prefix: str = GenerationOptions().name) -> list[Candidate]:
    """The candidate tables of a build from a profile its caller already made of it (bench/ profiles the all-in-flash
    build for its own estimate), cached as _candidates caches its own: which tables a kernel reads, and how often,
    does not depend on the input values."""
    names = table_symbols(first, prefix)
    found = [Candidate(r.name, r.size, r.wait_cycles) for r in profile.reads.values() if r.name in names]
    cached = _cache_file(first, memory, core)
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps([dataclasses.asdict(c) for c in found]))
    partial.replace(cached)  # whole or absent, whoever else writes it
    return found


def _candidates(first: Deployment, memory: MemoryTiming, core: str, prefix: str,
                progress: Progress) -> list[Candidate]:
    """The candidate tables with their estimated savings, cached by the firmware, the memory and the core."""
    cached = _cache_file(first, memory, core)
    if cached.is_file():
        return [Candidate(**c) for c in json.loads(cached.read_text())]
    stand_in = first.firmware.board
    timings = core if stand_in.core == core else f"{stand_in.name}'s {stand_in.core} code with {core} timings"
    progress(f"estimating the flash reads of every table on {stand_in.name} ({timings}; {memory.description}): "
             "two QEMU runs")
    return remember_profile(first, memory, core, flash_profile(first.firmware, _inputs(first), memory, core), prefix)


def stand_in(board: Board) -> Board:
    """The QEMU board the estimate runs on: the board itself, or the one a real board names in cpu.estimate_on."""
    if board.emulated:
        return board
    if board.estimate_on is None:
        raise UserError(f"--weights-in-ram: the choice is made on a cycle estimate from a QEMU run, and {board.name} "
                        f"does not run under QEMU nor name a QEMU board that runs its code ([cpu] estimate_on in "
                        f"{board.source or board.name})")
    return load_board(board.estimate_on)


def _profiled(model: bytes, source: str, board: Board, first: Deployment, memory: MemoryTiming, core: str,
              generation: GenerationOptions, progress: Progress, prepare_args: dict) -> list[Candidate]:
    """The candidates estimated on the board, or for a real board on its stand-in with the board's memory timing,
    kept to those `first` (the board's own build) has."""
    qemu_board = stand_in(board)
    if qemu_board is board:
        return _candidates(first, memory, core, generation.name, progress)
    profiled = prepare(model, source, qemu_board, progress=progress, generation=generation,
                       **{**prepare_args, "semihosting": None})
    found = _candidates(profiled, memory_on_stand_in(memory, board, qemu_board), core, generation.name, progress)
    names = table_symbols(first, generation.name)
    missing = sorted(c.symbol for c in found if c.symbol not in names)
    if missing:
        progress(f"--weights-in-ram: {len(missing)} tables of the {qemu_board.name} build are not in {board.name}'s "
                 f"(another variant chosen), left in flash: {', '.join(missing)}")
    return [c for c in found if c.symbol in names]


def prepare_with_ram_weights(model: bytes, source: str, board: Board | str, budget: int | str, *,
                             memory: MemoryTiming | None = None, core: str | None = None,
                             generation: GenerationOptions = GenerationOptions(),
                             progress: Progress = quiet, **prepare_args) -> tuple[Deployment, tuple[RamWeight, ...]]:
    """prepare(), with the tables the estimate picks within `budget` (bytes, or AUTO) copied into RAM, and those
    tables; memory and core: what the estimate assumes (default: the board's). prepare_args: prepare's other
    arguments (out_dir goes to the final build only). A real board is estimated on its cpu.estimate_on."""
    board = load_board(board) if isinstance(board, str) else board
    if prepare_args.get("zephyr") is not None:
        raise UserError("--weights-in-ram builds bare-metal firmware (its estimate traces our start-up and step "
                        "hooks): it cannot be combined with --zephyr")
    memory = memory or board_memory(board)
    if not memory.data_waits:
        progress(f"--weights-in-ram: no memory region of {board.name} charges data wait states "
                 f"({memory.description}): nothing to gain, every table stays in flash")
        return prepare(model, source, board, progress=progress, generation=generation, **prepare_args), ()
    stand_in(board)  # refused before any build
    out_dir = prepare_args.pop("out_dir", None)
    first = prepare(model, source, board, progress=progress, generation=generation, **prepare_args)
    free = free_ram(first)
    limit = max(0, (free if budget == AUTO else min(int(budget), free)) - _SLACK)
    found = _profiled(model, source, board, first, memory, core or board.core, generation, progress, prepare_args)
    chosen = choose(found, limit)
    if board.isa.flash_wait_per_byte and _every_one_placed(found, chosen):
        # Nothing the estimate charges is read from flash any more: the variants chosen for wait-stated flash (staged
        # copies of weights) only add work. Choose again as for wait-free flash, and keep it if its tables fit too.
        wait_free = dataclasses.replace(generation, wait_free_variants=True)
        again = prepare(model, source, board, progress=progress, generation=wait_free, **prepare_args)
        found_again = _profiled(model, source, board, again, memory, core or board.core, wait_free, progress,
                                prepare_args)
        chosen_again = choose(found_again, limit)
        if _every_one_placed(found_again, chosen_again):
            progress("--weights-in-ram: every table the estimate charges wait states for fits in RAM: the kernel "
                     "variants chosen as for wait-free flash")
            generation, chosen = wait_free, chosen_again
    progress(f"--weights-in-ram: {len(chosen)} tables, {sum(w.bytes for w in chosen):,} B of {limit:,} B "
             f"({'auto: ' if budget == AUTO else ''}{free:,} B free), ~{sum(w.saved_cycles for w in chosen):,.0f} "
             "estimated cycles per inference saved")
    generation = dataclasses.replace(generation, ram_weights=chosen, ram_memory=memory.description)
    final = prepare(model, source, board, progress=progress, generation=generation, out_dir=out_dir, **prepare_args)
    return final, chosen
