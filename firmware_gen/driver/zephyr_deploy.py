"""`build|run|validate MODEL --board B --zephyr`: the model generated as a Zephyr module and zephyr_app/ built with
it by Zephyr's CMake (target/zephyr_build.py), cached like the bare-metal firmware (deploy.prepare)."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.backend.zephyr_module import write_zephyr_module
from firmware_gen.driver.compiler import CompiledModel
from firmware_gen.errors import UserError
from firmware_gen.planner import PlanningOptions
from firmware_gen.resources import ZEPHYR_APP_DIR
from firmware_gen.target.boards import Board
from firmware_gen.target.cache_limit import cache_root
from firmware_gen.target.cross_build import FirmwareBuild
from firmware_gen.target.zephyr_build import build_zephyr_firmware
from firmware_gen.target.zephyr_tree import ZephyrTree, check_board, check_host_tools

CACHE_KIND = "zephyr-firmware"
# Zephyr boards whose CPU has none of the ISA extensions of the project's board file of that name: Zephyr 3.4's
# mps2_an521 runs on the SSE-200's CPU 0 (SOC_MPS2_AN521_CPU0: no FPU, no DSP, which is how QEMU models CPU 0; Zephyr
# compiles it +nodsp), the board file's firmware on CPU 1.
ZEPHYR_CPU_WITHOUT_EXTENSIONS = frozenset({"mps2_an521"})
LOG_KIND = "zephyr-logs"


def zephyr_board(board: Board) -> Board:
    """The project's board as Zephyr's board of that name runs it: the CPU Zephyr runs on may have fewer ISA
    extensions than the board file's (its kernel variants are chosen from these)."""
    if board.name not in ZEPHYR_CPU_WITHOUT_EXTENSIONS:
        return board
    soft = tuple(f for f in board.gcc_flags if not f.startswith(("-mfpu=", "-mfloat-abi="))) + ("-mfloat-abi=soft",)
    return dataclasses.replace(board, features=frozenset(), fpu=False, gcc_flags=soft, init=None)


def check_request(tree: ZephyrTree, board: Board, options: PlanningOptions, generation: GenerationOptions) -> Board:
    """What a --zephyr build cannot do, refused before any work, each in one line; the board as Zephyr runs it."""
    check_host_tools()
    check_board(tree, board)
    if not board.emulated:
        raise UserError(f"--zephyr runs under QEMU: {board.name} is a real board (build it with west and "
                        "zephyr_app/, see README.md 'On Zephyr')")
    if any(pool.name for pool in options.pools):
        raise UserError("--zephyr places one workspace pool (Zephyr's RAM); named --pool regions are for bare metal")
    if generation.pool_from_app or generation.name != GenerationOptions().name:
        raise UserError("--zephyr builds zephyr_app, which owns the pool and calls the fg_ names: drop "
                        "--pool-from-app and --name")
    return zephyr_board(board)


def cache_key(tree: ZephyrTree) -> bytes:
    """What a cached Zephyr build depends on besides the model and firmware-gen: the tree and zephyr_app/."""
    digest = hashlib.sha256(tree.identity().encode())
    for path in sorted(ZEPHYR_APP_DIR.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(ZEPHYR_APP_DIR)).encode() + path.read_bytes())
    return digest.hexdigest().encode()


def cache_dir() -> Path:
    return cache_root() / CACHE_KIND


def log_path(source: str, board: Board, key: str) -> Path:
    """Where Zephyr's CMake and Ninja output goes: outside the build, so that it outlives a failed one."""
    return cache_root() / LOG_KIND / f"{Path(source).stem}-{board.name}-{key[:12]}.log"


def build_on_zephyr(out_dir: Path, board: Board, tree: ZephyrTree, compiled: CompiledModel, source: str,
                    key: str) -> FirmwareBuild:
    """out_dir/model (generated) made a Zephyr module, zephyr_app built with it in out_dir/build."""
    write_zephyr_module(out_dir / "model", source=Path(source).name, board=board)
    return build_zephyr_firmware(out_dir / "model", board, tree, out_dir / "build", log_path(source, board, key))
