"""Cross-compile a generated model into the profiling firmware of a board, and say how much memory it takes.

The firmware is the model + its kernels + runtime_c/ports (startup, UART, cycle counter, exit) +
runtime_c/firmware (the serial protocol), linked with a script generated from the board's memory regions.
An image that does not fit fails here with the numbers, never later in QEMU (which checks no sizes).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from firmware_gen.abi import DEFAULT_PREFIX, pool_output_section
from firmware_gen.errors import DoesNotFitError, ToolchainError, UserError
from firmware_gen.manifest import ModelInterface, ModelManifest, read_manifest
from firmware_gen.resources import RUNTIME_DIR
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.build_flags import alias_flags, board_flags, prefix_maps
from firmware_gen.target.call_graph_info import CALLGRAPH_FLAG
from firmware_gen.target.elf_image import Section, read_elf
from firmware_gen.target.linker_script import SECTION_KIND, pool_region, render_linker_script
from firmware_gen.target.object_cache import cached_object, flags_key
from firmware_gen.target.rp2040_boot2 import seal_boot_stage
from firmware_gen.target.stack_bound import StackBound
from firmware_gen.target.stack_fit import check_stack_fits, read_firmware_stack

CROSS_GCC = "arm-none-eabi-gcc"
INSTALL_HINT = "apt-get install --no-install-recommends gcc-arm-none-eabi libnewlib-arm-none-eabi"
PORTS_DIR = RUNTIME_DIR / "ports"
FIRMWARE_DIR = RUNTIME_DIR / "firmware"
COMPILE_FLAGS = ("-std=c99", "-Os", "-g", "-pipe", "-ffunction-sections", "-fdata-sections", "-Wall", "-Wextra",
                 "-Werror", "--specs=nano.specs", "-DFG_ENABLE_HOOKS", CALLGRAPH_FLAG)
LINK_FLAGS = ("--specs=nano.specs", "--specs=nosys.specs", "-nostartfiles", "-Wl,--gc-sections",
              "-Wl,--emit-relocs")  # the relocations tell stored function addresses from data (thumb_code)
_CACHE = "cross-objects"
_KIND_LABEL = {"code": "code", "rodata": "constants", "data": "data", "bss": "bss", "pool": "workspace pool",
               "stack": "stack"}


@dataclass(frozen=True)
class RegionUsage:
    name: str
    origin: int
    size: int
    used: int
    contents: dict[str, int]  # kind -> bytes

    @property
    def fits(self) -> bool:
        return self.used <= self.size


@dataclass
class FirmwareBuild:
    board: Board
    elf: Path
    model_dir: Path
    interface: ModelInterface
    flash_bytes: int  # code + constants + initial values of data
    ram_bytes: int  # data + bss + workspace pool + stack
    workspace_bytes: int
    regions: list[RegionUsage]
    stack: StackBound | None = None  # the worst case from the compiler's call graph (None: not analysed)
    qemu_machine_args: tuple[str, ...] = ()  # a Zephyr build's QEMU line (target/zephyr_build.py); (): the board's
    stack_bytes: int | None = None  # the program's stack, when not the board file's (Zephyr's main stack)
    system: str = ""  # what the model runs on besides its kernels: "" (bare metal) or "Zephyr 3.4.99"

    @property
    def fits(self) -> bool:
        return all(r.fits for r in self.regions)

    def summary(self) -> str:
        stack = f"{'main ' if self.system else ''}stack {self.stack_bytes or self.board.stack_bytes:,} B"
        under = f" under {self.system}" if self.system else ""
        lines = [f"{self.elf.name} for {self.board.name}{under}: flash {self.flash_bytes:,} B, "
                 f"RAM {self.ram_bytes:,} B (workspace pool {self.workspace_bytes:,} B, {stack})"]
        for r in self.regions:
            if r.used:
                lines.append(f"  {r.name:<10} {r.used:>10,} / {r.size:>10,} B ({100 * r.used / r.size:.1f}%)")
        return "\n".join(lines)


def find_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolchainError(f"{name} not found; install the Arm cross toolchain: {INSTALL_HINT}")
    return path


def _run(command: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The tool in a process group of its own: if firmware-gen is stopped meanwhile, the whole group gets SIGTERM,
    on which gcc's driver removes its temporary files (a SIGKILL of the driver alone left them, and its children)."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True, cwd=cwd) as process:
        try:
            stdout, stderr = process.communicate()
        except BaseException:
            _end_group(process)
            raise
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if done.returncode != 0 and ("nano.specs" in done.stderr or "-lc_nano" in done.stderr):
        raise ToolchainError(f"newlib-nano is missing ({done.stderr.strip().splitlines()[0]}): {INSTALL_HINT}")
    return done


def _end_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _sources(model_dir: Path, manifest: ModelManifest, board: Board) -> tuple[list[Path], list[Path]]:
    """C files and include directories: the model with the runtime copy beside it (as its manifest lists them),
    the ports for the board's UART, and the firmware."""
    sources = [model_dir / name for name in manifest.sources] + port_sources(board)
    sources += sorted(FIRMWARE_DIR.glob("*.c"))
    return sources, [*(model_dir / d for d in manifest.include_dirs), PORTS_DIR, FIRMWARE_DIR]


def port_sources(board: Board) -> list[Path]:
    """The board port: startup, cycle counter, end of run, the board's UART driver and its init, if any."""
    sources = [PORTS_DIR / name for name in ("startup.c", "cycles.c", "semihosting.c", f"uart_{board.uart_kind}.c")]
    sources += [PORTS_DIR / f"boot2_{board.boot_stage}.c"] if board.boot_stage else []
    return sources + ([PORTS_DIR / f"board_{board.init}.c"] if board.init else [])


def _compile(sources: list[Path], includes: list[Path], board: Board, obj_dir: Path, extra_cflags: Sequence[str],
             shared: Collection[Path] = (), shared_includes: Sequence[Path] = ()) -> list[Path]:
    """Every source into obj_dir, as NNN_NAME.o in the order given. The `shared` ones (runtime kernels and board
    ports, which include nothing of the model) are compiled with shared_includes only, through the object
    cache."""
    flags = [find_tool(CROSS_GCC), *board_flags(board), *COMPILE_FLAGS, *extra_cflags]
    shared_command = [*flags, *(f"-I{d.resolve()}" for d in shared_includes)]
    shared_key = flags_key(shared_command) if shared else None
    obj_dir.mkdir(parents=True, exist_ok=True)
    objects = []
    for number, source in enumerate(sources):
        objects.append(obj_dir / f"{number:03d}_{source.stem}.o")
        if source in shared:
            cached = cached_object(_CACHE, shared_key, source,
                                   lambda path, s=source: _compile_one(shared_command, s, path, board, obj_dir.parent),
                                   companions=(".ci",))
            shutil.copyfile(cached, objects[-1])
            shutil.copyfile(cached.with_suffix(".ci"), objects[-1].with_suffix(".ci"))
        else:
            own_command = [*flags, *(f"-I{d.resolve()}" for d in includes)]
            _compile_one(own_command, source, objects[-1], board, obj_dir.parent)
    return objects


def _compile_one(command: list[str], source: Path, obj: Path, board: Board, cwd: Path) -> None:
    """From cwd (the build's folder, mapped to `build` in the debug information)."""
    done = _run([*command, "-c", str(source.resolve()), "-o", str(obj.resolve())], cwd=cwd)
    if done.returncode != 0:
        raise ToolchainError(f"{CROSS_GCC} could not compile {source} for {board.name}:\n{done.stderr[-4000:]}")


def _link(objects: list[Path], board: Board, elf: Path, measure: bool, pools: Sequence[str] = (),
          rodata_sections: Sequence[str] = (), prefix: str = DEFAULT_PREFIX) -> subprocess.CompletedProcess:
    script = elf.with_suffix(".measure.ld" if measure else ".ld")
    script.write_text(render_linker_script(board, measure=measure, pools=pools, rodata_sections=rodata_sections,
                                           prefix=prefix))
    # From the ELF's folder, with relative names: the map names no temporary folder.
    command = [find_tool(CROSS_GCC), *board.gcc_flags, *LINK_FLAGS, f"-T{script.name}",
               *(os.path.relpath(o, elf.parent) for o in objects), f"-Wl,-Map={elf.with_suffix('.map').name}",
               "-o", elf.name]
    if measure:
        command.append("-Wl,--no-check-sections")
    return _run(command, cwd=elf.parent)


def _sections(elf: Path) -> dict[str, Section]:
    return read_elf(elf).sections  # the ELF's own section headers (pyelftools), not a tool's printout


def _placed_sections(board: Board, pools: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Output section -> (region name, kind) for every section the script places, named pools included."""
    placed = {name: (board.region_for(kind).name, kind) for name, kind in SECTION_KIND.items()}
    placed.update({pool_output_section(pool): (pool_region(board, pool).name, "pool") for pool in pools})
    return placed


def _region_usage(board: Board, sections: dict[str, Section], pools: Sequence[str] = ()) -> list[RegionUsage]:
    # (region name, kind, start address, size) of every placed piece; .data also has its load image in code.
    pieces = []
    for name, (region_name, kind) in _placed_sections(board, pools).items():
        section = sections.get(name)
        if section is None or section.size == 0:
            continue
        pieces.append((region_name, kind, section.vma, section.size))
        if kind == "data":
            pieces.append((board.region_for("code").name, "data", section.lma, section.size))
    usage = []
    for region in board.regions:
        mine = [p for p in pieces if p[0] == region.name]
        used = max((start + size for _, _, start, size in mine), default=region.origin) - region.origin
        contents: dict[str, int] = {}
        for _, kind, _, size in mine:
            contents[kind] = contents.get(kind, 0) + size
        usage.append(RegionUsage(region.name, region.origin, region.size, used, contents))
    return usage


def _does_not_fit(board: Board, regions: list[RegionUsage]) -> DoesNotFitError:
    """The regions that overflow, in one line; with the bytes by which the constants' region (the flash) does."""
    parts = [f"needs {r.used:,} B of {r.name} ("
             + ", ".join(f"{_KIND_LABEL[k]} {b:,} B" for k, b in r.contents.items())
             + f"); {board.name} has {r.size:,} B" for r in regions if not r.fits]
    flash = board.region_for("rodata").name
    return DoesNotFitError("the firmware does not fit: " + "; ".join(parts),
                           sum(r.used - r.size for r in regions if r.name == flash and not r.fits))


def build_firmware(model_dir: str | Path, board: Board | str, out_dir: str | Path,
                   extra_cflags: Sequence[str] = (), semihosting: bool = True) -> FirmwareBuild:
    """Cross-compile model_dir (a `firmware-gen generate` output) into out_dir/firmware.elf for board.
    semihosting=False for a real board without a debugger (the firmware then sleeps at the end instead of exiting).
    Raises DoesNotFitError (with the sizes) when the image is larger than the board's memory."""
    board = load_board(board) if isinstance(board, str) else board
    model_dir, out_dir = Path(model_dir), Path(out_dir)
    manifest = read_manifest(model_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sources, includes = _sources(model_dir, manifest, board)
    if manifest.pool_from_app:
        raise UserError(f"{model_dir} was generated with --pool-from-app: the profiling firmware owns its pool; "
                        f"generate it without --pool-from-app to build it")
    cflags = [*extra_cflags, *([] if semihosting else ["-DFG_NO_SEMIHOSTING"]), *alias_flags(manifest, out_dir),
              *prefix_maps(model_dir, out_dir)]
    pools = manifest.named_pools
    for pool in pools:
        pool_region(board, pool)  # an unknown region name fails before compiling
    shared = {*(model_dir / name for name in manifest.sources if name.startswith("runtime/")), *port_sources(board)}
    shared_includes = [*(model_dir / d for d in manifest.include_dirs if d != "."), PORTS_DIR, FIRMWARE_DIR]
    objects = _compile(sources, includes, board, out_dir / "obj", cflags, shared, shared_includes)
    try:
        firmware = link_firmware(objects, board, out_dir / "firmware.elf", model_dir, manifest.interface, pools,
                                 rodata_sections=[manifest.weights_section] if manifest.weights_section else [],
                                 prefix=manifest.prefix)
        firmware.stack = read_firmware_stack(firmware.elf, objects, manifest, board)
    finally:
        for obj in objects:  # they name the build's folders: the output stays the same wherever it is built
            obj.with_suffix(".ci").unlink(missing_ok=True)
    check_stack_fits(firmware.stack, board)
    return firmware


def link_firmware(objects: list[Path], board: Board, elf: Path, model_dir: Path, interface: ModelInterface,
                  pools: Sequence[str] = (), rodata_sections: Sequence[str] = (),
                  prefix: str = DEFAULT_PREFIX) -> FirmwareBuild:
    """Link the objects into elf with the board's script, and measure it. Raises DoesNotFitError (with the sizes)
    when the image is larger than the board's memory. rodata_sections, prefix: render_linker_script's."""
    linked = _link(objects, board, elf, False, pools, rodata_sections, prefix)
    if linked.returncode != 0:
        too_big = "overflow" in linked.stderr or "firmware-gen:" in linked.stderr
        if too_big and _link(objects, board, elf, True, pools, rodata_sections, prefix).returncode == 0:
            regions = _region_usage(board, _sections(elf), pools)
            elf.unlink()  # a measuring image is not runnable
            if not all(r.fits for r in regions):
                raise _does_not_fit(board, regions)
        raise ToolchainError(f"linking the firmware for {board.name} failed:\n{linked.stderr[-4000:]}")
    seal_boot_stage(board, elf)  # a second stage's checksum, over the linked bytes
    sections = _sections(elf)
    regions = _region_usage(board, sections, pools)

    def size(name: str) -> int:
        return sections[name].size if name in sections else 0

    workspace = sum(size(pool_output_section(pool)) for pool in ("", *pools))
    return FirmwareBuild(
        board=board, elf=elf, model_dir=model_dir, interface=interface,
        flash_bytes=size(".text") + size(".ARM.exidx") + size(".rodata") + size(".data"),
        ram_bytes=size(".data") + size(".bss") + workspace + size(".stack"),
        workspace_bytes=workspace,
        regions=regions,
    )
