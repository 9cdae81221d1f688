"""From a model file to a result on a board: generate, cross-compile (cached), run, compare with the oracle."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen import __version__
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import CompiledModel, generate
from firmware_gen.frontend.ir import Graph
from firmware_gen.frontend.tflite_reader import check_supported, read_model
from firmware_gen.link.runner import RunResult, run_model
from firmware_gen.planner import PoolSpec
from firmware_gen.resources import BOARDS_DIR, PACKAGE_DIR, PROJECT_DIR, RUNTIME_DIR
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.cross_build import FirmwareBuild, build_firmware
from firmware_gen.target.linker_script import pool_region

Progress = Callable[[str], None]


def stderr_progress(message: str) -> None:
    print(f"firmware-gen: {message}", file=sys.stderr, flush=True)


def quiet(message: str) -> None:
    del message


@dataclass
class Deployment:
    graph: Graph
    compiled: CompiledModel
    firmware: FirmwareBuild


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "firmware-gen" / "firmware"


def _runtime_digest() -> str:
    root = PROJECT_DIR
    digest = hashlib.sha256(__version__.encode())
    for folder in (RUNTIME_DIR, BOARDS_DIR, PACKAGE_DIR):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in {".c", ".h", ".py", ".j2", ".toml", ".ld"}:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _planning_key(overlap: bool, pools: list[PoolSpec] | None, io_in_pool: bool) -> bytes:
    pool_text = ",".join(f"{p.name}:{p.size_limit}:{p.priority}" for p in pools or [])
    return f"overlap={overlap};pools={pool_text};io_in_pool={io_in_pool}".encode()


def prepare(model: bytes, source: str, board: Board | str, interface: str = "unpacked",
            out_dir: Path | None = None, progress: Progress = quiet, overlap: bool = True,
            pools: list[PoolSpec] | None = None, io_in_pool: bool = True,
            semihosting: bool | None = None) -> Deployment:
    """Generate and cross-compile `model` for `board`, planned with `overlap`, `pools` (each named after a memory
    region of the board) and `io_in_pool` (see compiler.generate). Without out_dir the build is cached by the
    model, the board, the interface, the planning options and the compiler's own sources, so `run` rebuilds only
    when something changed. A failed build leaves nothing behind. semihosting: end the run through semihosting
    (default: on QEMU machines only; a real board, or QEMU reached through a serial port, resets instead)."""
    board = load_board(board) if isinstance(board, str) else board
    semihosting = board.emulated if semihosting is None else semihosting
    for pool in pools or []:
        if pool.name:  # the unnamed default pool goes where the board puts "pool"
            pool_region(board, pool.name)
    graph = read_model(model, source)
    check_supported(graph)
    if out_dir is None:
        key = hashlib.sha256(model + board.name.encode() + interface.encode()
                             + _planning_key(overlap, pools, io_in_pool) + _runtime_digest().encode()
                             + (b"" if semihosting else b"no-semihosting"))
        out_dir = _cache_root() / key.hexdigest()[:32]
    out_dir = Path(out_dir)
    existed = out_dir.exists()
    try:
        progress(f"generating C for {Path(source).name} ({len(graph.operators)} operators, {interface})")
        compiled = generate(graph, out_dir / "model", source=Path(source).name, interface=interface,
                            overlap=overlap, pools=pools, io_in_pool=io_in_pool)
        progress(f"cross-compiling for {board.name} ({board.core}) with arm-none-eabi-gcc")
        firmware = build_firmware(out_dir / "model", board, out_dir / "build", semihosting=semihosting)
    except BaseException:
        if not existed:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    return Deployment(graph, compiled, firmware)


def run(deployment: Deployment, inputs: list[np.ndarray], serial_url: str | None = None,
        progress: Progress = quiet, baudrate: int | None = None) -> RunResult:
    where = serial_url or f"QEMU ({deployment.firmware.board.qemu_machine}, -icount shift=0)"
    progress(f"running on {deployment.firmware.board.name} via {where}")
    return run_model(deployment.firmware, inputs, serial_url=serial_url, baudrate=baudrate)


def outputs_equal_oracle(model: bytes, graph: Graph, inputs: list[np.ndarray],
                         outputs: list[np.ndarray]) -> list[bool]:
    oracle = run_tflm(model, inputs, len(graph.tensors))
    return [np.array_equal(np.asarray(ours).ravel(), np.asarray(theirs).ravel())
            for ours, theirs in zip(outputs, oracle.outputs, strict=True)]


def run_demo(board: str = "qemu_cortex_m3", seed: int = 0, progress: Progress = stderr_progress,
             overlap: bool = True) -> int:
    """MobileNetV1 0.25 (96x96x3, int8, seeded weights) on an emulated board: profile, then TFLM's verdict."""
    from firmware_gen.check.host_validation import random_inputs
    from firmware_gen.check.profile import build_profile, format_profile
    from firmware_gen.modelgen.mobilenet import mobilenet_v1

    progress(f"building the demo model: MobileNetV1 alpha 0.25, 96x96x3 int8, weights seeded with {seed}")
    model = mobilenet_v1(seed=seed)
    with tempfile.TemporaryDirectory(prefix="fg-demo-") as scratch:
        path = Path(scratch) / "mobilenet_v1_025_96.tflite"
        path.write_bytes(model)
        deployment = prepare(model, str(path), board, progress=progress, overlap=overlap)
        print(deployment.firmware.summary())
        inputs = random_inputs(deployment.graph, seed)
        result = run(deployment, inputs, progress=progress)
        print(format_profile(build_profile(deployment.graph, result)))
        progress("running the same input through TensorFlow Lite Micro")
        equal = outputs_equal_oracle(model, deployment.graph, inputs, result.outputs)
    scores = ", ".join(str(v) for v in np.asarray(result.outputs[0]).ravel()[:8])
    if all(equal):
        print(f"outputs equal TensorFlow Lite Micro's, byte for byte (output 0: [{scores}])")
        return 0
    print(f"outputs DIFFER from TensorFlow Lite Micro's (output 0: [{scores}])")
    return 1
