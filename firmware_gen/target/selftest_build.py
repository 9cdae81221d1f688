"""Cross-compile the self-test firmware of a board (runtime_c/selftest/): the board port, the serial link and
frame encoders of the profiling firmware, and no model; compiled and linked as a model's firmware is."""

from __future__ import annotations

from pathlib import Path

from firmware_gen.manifest import ModelInterface
from firmware_gen.resources import RUNTIME_DIR
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.cross_build import (
    FIRMWARE_DIR,
    PORTS_DIR,
    FirmwareBuild,
    _compile,
    link_firmware,
    port_sources,
)

SELFTEST_DIR = RUNTIME_DIR / "selftest"
# The profiling firmware's serial link and frame encoders; its main.c is the self-test's own.
SHARED_FIRMWARE_SOURCES = ("fg_link.c", "fg_frames.c")
NO_MODEL = ModelInterface(inputs=(), outputs=(), num_steps=0)


def build_selftest(board: Board | str, out_dir: str | Path, semihosting: bool = True) -> FirmwareBuild:
    """out_dir/selftest.elf for board. semihosting=False for a real board (the run ends with a reset)."""
    board = load_board(board) if isinstance(board, str) else board
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = [*port_sources(board), *(FIRMWARE_DIR / name for name in SHARED_FIRMWARE_SOURCES),
               *sorted(SELFTEST_DIR.glob("*.c"))]
    cflags = [] if semihosting else ["-DFG_NO_SEMIHOSTING"]
    # The self-test's own directory comes first: its model.h (no model) is the one fg_frames.c includes.
    objects = _compile(sources, [SELFTEST_DIR, PORTS_DIR, FIRMWARE_DIR], board, out_dir / "obj", cflags)
    return link_firmware(objects, board, out_dir / "selftest.elf", SELFTEST_DIR, NO_MODEL)
