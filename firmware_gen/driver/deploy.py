"""From a model file to a result on a board: generate, cross-compile (cached), run."""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen import __version__
from firmware_gen.backend.options import GenerationOptions
from firmware_gen.driver import build_cache, zephyr_deploy
from firmware_gen.driver.compiler import CompiledModel, generate
from firmware_gen.driver.patch_choice import call_count
from firmware_gen.errors import DoesNotFitError, OutputPathError, UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import Isa
from firmware_gen.link.runner import RunResult, run_model, run_sequence
from firmware_gen.ops import check_supported
from firmware_gen.ops.convolution.wide_layout import constant_bytes, flash_for_constants
from firmware_gen.planner import PlanningOptions
from firmware_gen.resources import BOARDS_DIR, PACKAGE_DIR, PROJECT_DIR, RUNTIME_DIR
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.cache_limit import cache_root
from firmware_gen.target.cross_build import FirmwareBuild, build_firmware
from firmware_gen.target.linker_script import pool_region
from firmware_gen.target.zephyr_tree import ZephyrTree

Progress = Callable[[str], None]


def stderr_progress(message: str) -> None:
    print(f"firmware-gen: {message}", file=sys.stderr, flush=True)


def quiet(message: str) -> None:
    del message


@dataclass
class Deployment:
    graph: Graph  # as compiled: constants folded, one operator per step of the firmware
    compiled: CompiledModel
    firmware: FirmwareBuild


def _cache_root() -> Path:
    return cache_root() / "firmware"


def _runtime_digest() -> str:
    root = PROJECT_DIR
    digest = hashlib.sha256(__version__.encode())
    for folder in (RUNTIME_DIR, BOARDS_DIR, PACKAGE_DIR):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in {".c", ".h", ".py", ".j2", ".toml", ".ld"}:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _with_board_ram(options: PlanningOptions, board: Board) -> PlanningOptions:
    """For --patches auto: the RAM the single pool may take on the board (its region less the stack reserved there),
    beyond which a patch stage is tried (driver/patch_choice.py). The board is part of the build's cache key, so
    the key need not carry this."""
    if options.patches != "auto" or options.pools or options.ram_bytes is not None:
        return options
    region = board.region_for("pool")
    stack = board.stack_bytes if "stack" in region.holds else 0
    return dataclasses.replace(options, ram_bytes=region.size - stack)


def prepare(model: bytes, source: str, board: Board | str, interface: str = "unpacked",
            out_dir: Path | None = None, progress: Progress = quiet, options: PlanningOptions = PlanningOptions(),
            semihosting: bool | None = None, generation: GenerationOptions = GenerationOptions(),
            zephyr: ZephyrTree | None = None) -> Deployment:
    """Generate and cross-compile `model` for `board`, planned with `options` (each named pool goes to the memory
    region of the board of that name). Without out_dir the build is cached by the
    model, the board, the interface, the planning options and the compiler's own sources, so `run` rebuilds only
    when something changed. A failed build leaves nothing behind. semihosting: end the run through semihosting
    (default: on QEMU machines only; a real board, or QEMU reached through a serial port, resets instead).
    zephyr: build zephyr_app/ with the model as a Zephyr module against this Zephyr tree instead of bare metal."""
    board = load_board(board) if isinstance(board, str) else board
    semihosting = board.emulated if semihosting is None else semihosting
    if zephyr is not None:
        board = zephyr_deploy.check_request(zephyr, board, options, generation)
    for pool in options.pools:
        if pool.name:  # the unnamed default pool goes where the board puts "pool"
            pool_region(board, pool.name)
    graph = read_model(model, source)
    check_supported(graph)
    key = _cache_key(model, board, interface, options, generation, semihosting, zephyr)
    root = zephyr_deploy.cache_dir() if zephyr else _cache_root()
    entry, destination = root / key[:32], None
    cached = build_cache.load(entry)
    if out_dir is None:
        if cached is not None:
            return Deployment(cached[0].graph, *cached)
        out_dir = build_cache.private_dir(entry)  # built privately, then published whole
    else:
        destination, entry = Path(out_dir), None
        out_dir = build_cache.private_dir(destination)  # built beside, then moved in
        if cached is not None:  # the cached build, copied: what building again would give
            return _install_cached(cached, destination, out_dir)
    out_dir = Path(out_dir)
    existed = out_dir.exists()
    try:
        build = _Build(graph, source, board, interface, generation, semihosting, zephyr, key, progress)
        compiled, firmware = _build_within_flash(build, _with_board_ram(options, board), out_dir)
    except BaseException as error:
        if not existed:
            shutil.rmtree(out_dir, ignore_errors=True)
        if destination is not None:
            _refuse_if_out_of_space(destination, error)
        raise
    if destination is None:
        firmware = build_cache.publish(entry, out_dir, compiled, firmware)
    elif destination is not None:
        firmware = build_cache.install(destination, out_dir, firmware)
    return Deployment(compiled.graph, compiled, firmware)


@dataclass(frozen=True)
class _Build:
    """What one build of `prepare` is made of, but the planning options."""
    graph: Graph
    source: str
    board: Board
    interface: str
    generation: GenerationOptions
    semihosting: bool
    zephyr: ZephyrTree | None
    key: str
    progress: Progress


def _generate(build: _Build, options: PlanningOptions, isa: Isa, out_dir: Path) -> CompiledModel:
    build.progress(f"generating C for {Path(build.source).name} ({len(build.graph.operators)} operators, "
                   f"{build.interface})")
    return generate(build.graph, out_dir / "model", source=Path(build.source).name, interface=build.interface,
                    options=options, isa=isa, generation=build.generation)


def _cross_compile(build: _Build, compiled: CompiledModel, out_dir: Path) -> FirmwareBuild:
    board, zephyr = build.board, build.zephyr
    if zephyr is None:
        build.progress(f"cross-compiling for {board.name} ({board.core}) with arm-none-eabi-gcc")
        return build_firmware(out_dir / "model", board, out_dir / "build", semihosting=build.semihosting)
    build.progress(f"building zephyr_app for Zephyr {zephyr.version}'s {board.name} ({board.core}) with CMake")
    return zephyr_deploy.build_on_zephyr(out_dir, board, zephyr, compiled, build.source, build.key)


def _build_within_flash(build: _Build, options: PlanningOptions, out_dir: Path) -> tuple[CompiledModel,
                                                                                         FirmwareBuild]:
    """Generate and build; when the firmware overflows the flash, again with less in it until one fits (_less_flash),
    each attempt's constants fewer than the last's; with nothing left to take out, the first build's error. When the
    patch stages of fewer calls run out (none fits the RAM, or the chooser leaves the model whole), the first build's
    stage is kept and its weight layouts narrowed instead."""
    first: tuple[DoesNotFitError, CompiledModel, PlanningOptions, Isa] | None = None
    isa, constants, stages = build.board.isa, None, True
    if build.generation.wait_free_variants:
        isa = dataclasses.replace(isa, flash_wait_per_byte=0.0)
    while True:
        try:
            compiled: CompiledModel | None = _generate(build, options, isa, out_dir)
        except DoesNotFitError:
            if first is None:
                raise
            compiled = None
        if first is not None and (compiled is None or (stages and first[1].stage and compiled.stage is None)):
            if not stages:
                raise first[0] from None
            error, compiled, options, isa = first  # the stages ran out: the first one, narrower
            stages = False
        else:
            try:
                return compiled, _cross_compile(build, compiled, out_dir)
            except DoesNotFitError as overflow:
                error = overflow
                first = first or (error, compiled, options, isa)
        retry = _less_flash(build, compiled, options, isa, error, constants, stages)
        if retry is None:
            raise first[0] from None
        options, isa, constants = retry
        for built in ("model", "build"):
            shutil.rmtree(out_dir / built, ignore_errors=True)


def _less_flash(build: _Build, compiled: CompiledModel, options: PlanningOptions, isa: Isa, error: DoesNotFitError,
                constants: int | None, stages: bool = True) -> tuple[PlanningOptions, Isa, int | None] | None:
    """What to build again with after `error`, or None:
    - with a patch stage the chooser took (a forced one is the user's) and `stages`, stages of fewer kernel calls,
      whose table in flash is smaller (the chooser does not weigh flash);
    - else, with the flash overflowed by N bytes and the weights laid out wider than the compact layouts, a budget
      for the wide layouts that takes N bytes of constants out (the budget counts a fixed reserve for the code, which
      kernels' code or Zephyr's can exceed), as long as each attempt takes constants out."""
    if stages and compiled.stage is not None and not options.patch_stage:
        calls = call_count(compiled.stage.stage)
        build.progress(f"{error}; trying a patch stage of fewer than {calls} kernel calls")
        return dataclasses.replace(options, stage_calls_below=calls), isa, constants
    now = constant_bytes(compiled.graph, compiled.calls)
    wide = isa.flash_bytes and not build.generation.compact_weights
    if not wide or not error.flash_over or (constants is not None and now >= constants):
        return None
    budget = min(isa.flash_bytes, flash_for_constants(now)) - error.flash_over
    build.progress(f"{error}; trying narrower weight layouts, their constants within {now - error.flash_over:,} B")
    return options, dataclasses.replace(isa, flash_bytes=budget), now


def _cache_key(model: bytes, board: Board, interface: str, options: PlanningOptions, generation: GenerationOptions,
               semihosting: bool, zephyr: ZephyrTree | None) -> str:
    """What a build depends on: the model, the board (all it states) and the kernels its ISA allows, the options, the
    compiler's own sources, the end of run, and the Zephyr tree."""
    return hashlib.sha256(model + board.identity().encode() + ",".join(sorted(board.isa.features)).encode()
                          + interface.encode() + options.cache_key().encode() + _runtime_digest().encode()
                          + repr(generation).encode() + (b"" if semihosting else b"no-semihosting")
                          + (zephyr_deploy.cache_key(zephyr) if zephyr else b"")).hexdigest()


def _install_cached(cached: tuple, destination: Path, out_dir: Path) -> Deployment:
    compiled, firmware = cached
    try:
        firmware = build_cache.install(destination, build_cache.copy_entry(firmware, out_dir), firmware)
    except OSError as error:
        _refuse_if_out_of_space(destination, error)
        raise
    return Deployment(compiled.graph, compiled, firmware)


def _refuse_if_out_of_space(destination: Path, error: BaseException) -> None:
    """A build that failed because the output's file system is full (ENOSPC, in Python's words or gcc's and as's,
    about a hidden folder beside destination): our one line naming destination instead."""
    full = os.strerror(errno.ENOSPC)
    if (isinstance(error, OSError) and (error.errno == errno.ENOSPC or full in str(error))) or (
            isinstance(error, UserError) and full in str(error)):
        raise OutputPathError(f"-o {destination}: cannot write ({full})") from None


def _where(deployment: Deployment, serial_url: str | None) -> str:
    board, system = deployment.firmware.board, deployment.firmware.system
    under = f" under {system}" if system else ""
    note = f"; {board.qemu_note}" if board.qemu_note else ""
    return f"{board.name}{under} via {serial_url or f'QEMU ({board.qemu_machine}, -icount shift=0{note})'}"


def run(deployment: Deployment, inputs: list[np.ndarray], serial_url: str | None = None,
        progress: Progress = quiet, baudrate: int | None = None, cycles: bool = False) -> RunResult:
    """cycles: under QEMU, also estimate the cycles from the execution trace (slower: see docs/cycle_model.md)."""
    progress(f"running on {_where(deployment, serial_url)}" + (", tracing for the cycle estimate" if cycles else ""))
    return run_model(deployment.firmware, inputs, serial_url=serial_url, baudrate=baudrate, cycles=cycles)


def run_frames(deployment: Deployment, frames: list[list[np.ndarray]], serial_url: str | None = None,
               progress: Progress = quiet, baudrate: int | None = None) -> list[RunResult]:
    """A sequence: one run per frame through one model instance (state carried)."""
    progress(f"running {len(frames)} invocations on {_where(deployment, serial_url)}")
    return run_sequence(deployment.firmware, frames, serial_url=serial_url, baudrate=baudrate)
