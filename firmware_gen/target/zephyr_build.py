"""Build zephyr_app/ (its serial-protocol build) for a board with a generated model module, through Zephyr's own
CMake and Ninja, and say how much memory it takes and how QEMU runs it.

Zephyr's output goes to a log file outside the build (a failed build leaves nothing in the output directory, and
the message names the log). A model that does not fit is the project's DoesNotFitError with the numbers (ld's
overflow and the board's size from Zephyr's .config), not a linker error. The QEMU line is the board's own (Zephyr's
`run_qemu` target), with the console on the host's socket, -icount shift=0 for exact counts and semihosting for the
firmware's exit. The build folder keeps only what running and inspecting need (its CMake cache names the private
folder it was built in, so it could not be rebuilt once published anyway).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from firmware_gen.abi import pool_output_section
from firmware_gen.errors import DoesNotFitError, UserError
from firmware_gen.manifest import read_manifest
from firmware_gen.resources import ZEPHYR_APP_DIR
from firmware_gen.target.boards import Board
from firmware_gen.target.cross_build import FirmwareBuild, RegionUsage, _end_group
from firmware_gen.target.elf_image import read_elf
from firmware_gen.target.zephyr_tree import (
    ZephyrError,
    ZephyrTree,
    build_environment,
    check_board,
    check_host_tools,
)

KEPT_FILES = ("zephyr/zephyr.elf", "zephyr/zephyr.map", "zephyr/.config", "zephyr/zephyr.dts")
CONSOLE_SERIAL = "@console"  # in FirmwareBuild.qemu_machine_args: where QEMU's first serial (uart0) goes; the
# same marker as link/qemu.py's ZEPHYR_CONSOLE_SERIAL (the target stage cannot import the link)
_OVERFLOW = re.compile(r"region `([^']+)' overflowed by (\d+) bytes")
_REGION_LINE = re.compile(r"^\s*([A-Za-z_][\w]*):\s+(\d+) (B|KB|MB|GB)\s+(\d+) (B|KB|MB|GB)\s+[\d.]+%\s*$", re.M)
_DROPPED_QEMU_OPTIONS = {"-nographic": 0, "-pidfile": 1, "-mon": 1, "-chardev": 1, "-kernel": 1}  # option: values
_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}
_CONFIG_SIZE_KB = {"RAM": "CONFIG_SRAM_SIZE", "SRAM": "CONFIG_SRAM_SIZE", "FLASH": "CONFIG_FLASH_SIZE"}


def _logged(command: list[str], log: Path, env: dict[str, str]) -> int:
    """Run command with its output appended to log, in a process group of its own (ended with us)."""
    with log.open("a") as out:
        out.write(f"$ {shlex.join(command)}\n")
        out.flush()
        with subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                              start_new_session=True) as process:
            try:
                return process.wait()
            except BaseException:
                _end_group(process)
                raise


def _config(build: Path) -> dict[str, str]:
    """The build's Kconfig values (zephyr/.config), as text; empty before CMake wrote it."""
    path = build / "zephyr" / ".config"
    lines = path.read_text().splitlines() if path.is_file() else []
    pairs = (line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
    return {key: value.strip('"') for key, value in pairs}


def _does_not_fit(text: str, build: Path, board: Board, pool_bytes: int, log: Path) -> DoesNotFitError | None:
    overflows = dict(_OVERFLOW.findall(text))
    if not overflows:
        return None
    config, parts = _config(build), []
    for region, over in overflows.items():
        size_kb = config.get(_CONFIG_SIZE_KB.get(region.upper(), ""), "")
        if size_kb.isdigit():
            size = int(size_kb) * 1024
            parts.append(f"needs {size + int(over):,} B of {region}; {board.name} has {size:,} B under Zephyr")
        else:
            parts.append(f"needs {int(over):,} B more {region} than {board.name} has under Zephyr")
    return DoesNotFitError(f"the firmware does not fit: {'; '.join(parts)} (workspace pool {pool_bytes:,} B; "
                           f"Zephyr's link: {log})", int(overflows.get("FLASH", 0)))


def _regions(text: str) -> list[RegionUsage]:
    """Zephyr's own memory report (the last one the link printed): used and size of each region."""
    return [RegionUsage(name, 0, int(size) * _UNITS[size_unit], int(used) * _UNITS[used_unit], {})
            for name, used, used_unit, size, size_unit in _REGION_LINE.findall(text) if int(size)]


def qemu_machine_args(run_command: str) -> tuple[str, ...]:
    """The board's QEMU arguments from Zephyr's run_qemu command, without its terminal, monitor, pid file and kernel;
    the console serial marked CONSOLE_SERIAL, other serials null, -icount at shift 0."""
    tokens = shlex.split(run_command.split("&&")[-1])[1:]  # after `cd BUILD &&` and the qemu binary
    args: list[str] = []
    serials, i = 0, 0
    while i < len(tokens):
        token = tokens[i]
        if token in _DROPPED_QEMU_OPTIONS:
            i += 1 + _DROPPED_QEMU_OPTIONS[token]
        elif token in ("-serial", "-icount"):
            args += [token, "shift=0,align=off,sleep=off" if token == "-icount"
                     else CONSOLE_SERIAL if serials == 0 else "null"]
            serials += token == "-serial"
            i += 2
        else:
            args.append(token)
            i += 1
    if serials == 0:
        args += ["-serial", CONSOLE_SERIAL]
    return tuple(args)


def run_qemu_command(build: Path, env: dict[str, str]) -> str:
    """Zephyr's own QEMU command for the build (its run_qemu target)."""
    done = subprocess.run([shutil.which("ninja") or "ninja", "-C", str(build), "-t", "commands", "run_qemu"],
                          capture_output=True, text=True, env=env)
    lines = [line for line in done.stdout.splitlines() if "qemu-system-" in line]
    if done.returncode != 0 or not lines:
        raise ZephyrError(f"Zephyr's build in {build} has no QEMU run target for this board (run_qemu)")
    return lines[-1]


def _prune(build: Path) -> None:
    for path in sorted(build.iterdir()):
        if path.name != "zephyr":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    for path in sorted((build / "zephyr").iterdir()):
        if f"zephyr/{path.name}" not in KEPT_FILES:
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def with_ccache_across_builds(env: dict[str, str], build: Path) -> dict[str, str]:
    """Zephyr's CMake compiles through ccache when it is installed. Each model's build has a directory of its own
    (the cache's key/build), so its generated headers' paths, and the compilation directory that -g hashes, differ
    from model to model and ccache would miss the whole kernel again: paths under the cache's directory of builds are
    hashed relative to the build (base_dir) and the directory left out (hash_dir off; the debug info then names the
    first build's directory). The user's own CCACHE_ settings win."""
    return {"CCACHE_BASEDIR": str(build.resolve().parent.parent), "CCACHE_NOHASHDIR": "1", **env}


def configure_command(tree: ZephyrTree, board: Board, model_dir: Path, build: Path) -> list[str]:
    command = [shutil.which("cmake") or "cmake", "-GNinja", "-S", str(ZEPHYR_APP_DIR), "-B", str(build),
               f"-DBOARD={board.name}", f"-DFIRMWARE_GEN_MODEL_DIR={model_dir.resolve()}", "-DFIRMWARE_GEN_LINK=uart",
               f"-DPython3_EXECUTABLE={sys.executable}"]
    # The FPU as the board file's CPU has it: without it Zephyr builds soft-float, where GCC offers no MVE.
    command += ["-DCONFIG_FPU=y"] if board.fpu else []
    return command + ([f"-DZEPHYR_MODULES={';'.join(map(str, tree.modules))}"] if tree.modules else [])


def build_zephyr_firmware(model_dir: Path, board: Board, tree: ZephyrTree, build: Path, log: Path) -> FirmwareBuild:
    """zephyr_app built for board with the module in model_dir, into build (pruned after); Zephyr's output in log.
    Raises ZephyrError (naming the log) when Zephyr's CMake or build fails, DoesNotFitError when the model does
    not fit."""
    check_host_tools()
    check_board(tree, board)
    manifest = read_manifest(model_dir)
    env = with_ccache_across_builds(build_environment(tree), build)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    if _logged(configure_command(tree, board, model_dir, build), log, env) != 0:
        raise ZephyrError(f"Zephyr's CMake failed for board {board.name} (Zephyr at {tree.base}): see {log}")
    if _logged([shutil.which("ninja") or "ninja", "-C", str(build)], log, env) != 0:
        too_big = _does_not_fit(log.read_text(errors="replace"), build, board, manifest.workspace_bytes, log)
        if too_big is not None:
            raise too_big
        raise ZephyrError(f"Zephyr's build failed for board {board.name}: see {log}")
    machine_args = qemu_machine_args(run_qemu_command(build, env)) if board.emulated else ()
    config = _config(build)
    _prune(build)
    elf = build / "zephyr" / "zephyr.elf"
    sections = read_elf(elf).sections
    regions = _regions(log.read_text(errors="replace"))
    pool = sections.get(pool_output_section(""))
    if pool is None:
        raise UserError(f"{elf}: no {pool_output_section('')} section: the model module's linker snippet was not used")
    used = {r.name.upper(): r.used for r in regions}
    return FirmwareBuild(board=board, elf=elf, model_dir=model_dir, interface=manifest.interface,
                         flash_bytes=used.get("FLASH", 0), ram_bytes=used.get("RAM", used.get("SRAM", 0)),
                         workspace_bytes=pool.size, regions=regions, qemu_machine_args=machine_args,
                         stack_bytes=int(config.get("CONFIG_MAIN_STACK_SIZE", "0")) or None,
                         system=f"Zephyr {tree.version}")
