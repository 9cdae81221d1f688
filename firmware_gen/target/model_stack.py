"""The stack a generated model needs on a board's CPU, for an application that calls it (zephyr_app, or any
integration): the deepest path from the model's run entry (`fg_model_run`) down through the kernels, with an
exception frame on top, from the compiler's call graph (stack_bound).

The model and its runtime are compiled for the board's CPU as the profiling firmware compiles them (the same
cached objects) and linked on their own with the run entry as the ELF's entry: the C library's functions they
call come in, the application's step hooks (fg_hook_*, not the model's) stay undefined and are named among the
bound's problems, their frames not counted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from firmware_gen.errors import ToolchainError
from firmware_gen.manifest import read_manifest
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.build_flags import prefix_maps
from firmware_gen.target.cross_build import CROSS_GCC, _compile, _run, find_tool
from firmware_gen.target.stack_bound import StackBound
from firmware_gen.target.stack_fit import read_firmware_stack

_LINK_FLAGS = ("--specs=nano.specs", "--specs=nosys.specs", "-nostartfiles", "-Wl,--gc-sections",
               "-Wl,--unresolved-symbols=ignore-all", "-Wl,--emit-relocs")


def model_stack_bound(model_dir: str | Path, board: Board | str) -> StackBound:
    """The bound from the model's run entry (StackBound.thread: the entry is the run function) on board's CPU."""
    board = load_board(board) if isinstance(board, str) else board
    model_dir = Path(model_dir)
    manifest = read_manifest(model_dir)
    sources = [model_dir / name for name in manifest.sources]
    includes = [model_dir / d for d in manifest.include_dirs]
    run = manifest.symbols.get("run", "")
    with tempfile.TemporaryDirectory(prefix="fg-model-stack-") as work:
        out_dir = Path(work)
        shared = {source for source in sources if source.relative_to(model_dir).parts[0] == "runtime"}
        objects = _compile(sources, includes, board, out_dir / "obj", prefix_maps(model_dir, out_dir), shared,
                           [d for d in includes if d != model_dir])
        elf = out_dir / "model.elf"
        done = _run([find_tool(CROSS_GCC), *board.gcc_flags, *_LINK_FLAGS, f"-Wl,-e,{run}", *map(str, objects),
                     "-o", str(elf)])
        if done.returncode != 0:
            raise ToolchainError(f"linking {model_dir}'s model alone for {board.name} failed:\n{done.stderr[-4000:]}")
        bound = read_firmware_stack(elf, objects, manifest, board)
    assert bound is not None  # every object was compiled with its call graph
    return bound


def model_stack_bytes(model_dir: str | Path, board: Board | str) -> int:
    """The worst-case stack bytes of one call of the model's run entry on board's CPU, an exception frame
    included: what a thread that runs the model needs for it, on top of its own frames."""
    return model_stack_bound(model_dir, board).thread.bytes
