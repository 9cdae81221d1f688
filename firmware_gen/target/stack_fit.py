"""The worst-case stack of a cross build (stack_bound) against the board's reserve: read after the link, and a
firmware whose stack cannot fit refused with the bytes needed, the bytes there are and the deepest path."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from firmware_gen.errors import DoesNotFitError
from firmware_gen.manifest import ModelManifest
from firmware_gen.target.boards import Board
from firmware_gen.target.linker_script import HANDLER_STACK_BYTES
from firmware_gen.target.stack_bound import StackBound, read_stack_bound


def has_fp_context(board: Board) -> bool:
    """Whether an exception may stack the FP registers: code for this board may use the FPU (or MVE)."""
    return any(flag in ("-mfloat-abi=hard", "-mfloat-abi=softfp") for flag in board.gcc_flags)


def read_firmware_stack(elf: Path, objects: Sequence[Path], manifest: ModelManifest,
                        board: Board) -> StackBound | None:
    """The bound from the call-graph file beside each object (None if one is missing: not built for it), the
    kernels' run-time frames as the manifest sizes them."""
    graphs = [obj.with_suffix(".ci") for obj in objects]
    if not all(graph.exists() for graph in graphs):
        return None
    return read_stack_bound(elf, graphs, manifest.symbols, has_fp_context(board), manifest.run_time_frames)


def check_stack_fits(bound: StackBound | None, board: Board) -> None:
    """DoesNotFitError, in one line, when the deepest path needs more than the stack the board reserves."""
    if bound is None:
        return
    for needed, available, what, path in ((bound.thread.bytes, board.stack_bytes, "stack", bound.thread),
                                          (bound.handler.bytes, HANDLER_STACK_BYTES, "exception handlers' stack",
                                           bound.handler)):
        if needed > available:
            raise DoesNotFitError(f"the firmware's {what} does not fit: needs {needed:,} B, {board.name} has "
                                  f"{available:,} B; deepest path: {path.describe()}")
