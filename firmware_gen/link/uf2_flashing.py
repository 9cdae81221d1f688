"""Flash a board whose chip has a USB bootloader that takes UF2 files (the RP2040's bootrom: hold BOOTSEL while
plugging the board in and it shows a mass-storage drive labelled RPI-RP2, RP2040 Datasheet 2.8.4 "USB mass
storage interface"). The image is copied onto that drive, which writes it to flash and starts it; without a mounted
drive, picotool (Raspberry Pi's tool for the bootrom's PICOBOOT interface, 2.8.5) loads it when installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from firmware_gen.errors import UserError
from firmware_gen.target.boards import Board
from firmware_gen.target.uf2 import elf_to_uf2

DRIVE_LABEL = "RPI-RP2"
INFO_FILE = "INFO_UF2.TXT"  # on the drive: "Board-ID: RPI-RP2" names the RP2040's bootrom
PICOTOOL_INSTALL = ("install picotool (`apt-get install picotool` where the distribution packages it: `apt-cache "
                    "policy picotool` shows a candidate; otherwise build it from https://github.com/raspberrypi/"
                    "picotool)")
PICOTOOL_TIMEOUT_S = 120


class Uf2FlashError(UserError):
    """No bootloader drive and no picotool, several drives, or the copy or load failed."""


def _unescape(field: str) -> str:
    """/proc/mounts writes a space in a path as \\040 (and tab, newline, backslash likewise)."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def boot_drives(mount_table: Path = Path("/proc/mounts")) -> list[Path]:
    """Mount points of RP2040 bootloader drives: those whose INFO_UF2.TXT names the RPI-RP2 board id."""
    try:
        lines = mount_table.read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split()
        if len(fields) < 2:
            continue
        mount_point = Path(_unescape(fields[1]))
        try:
            info = (mount_point / INFO_FILE).read_text(errors="replace")
        except OSError:
            continue
        if f"Board-ID: {DRIVE_LABEL}" in info:
            found.append(mount_point)
    return found


def find_picotool() -> str | None:
    return shutil.which("picotool")


def _copy_to_drive(image: bytes, drive: Path) -> None:
    """Written and synced: the bootrom starts the image when the last block arrives, and then the drive goes away."""
    target = drive / "firmware.uf2"
    try:
        with target.open("wb") as file:
            file.write(image)
            file.flush()
            os.fsync(file.fileno())
    except OSError as error:
        raise Uf2FlashError(f"could not copy the image onto the {DRIVE_LABEL} drive at {drive}: {error}") from None


def _load_with_picotool(picotool: str, image: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="fg-uf2-") as scratch:
        path = Path(scratch) / "firmware.uf2"
        path.write_bytes(image)
        try:
            done = subprocess.run([picotool, "load", "-v", "-x", str(path)], capture_output=True, text=True,
                                  timeout=PICOTOOL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise Uf2FlashError(f"picotool did not finish loading within {PICOTOOL_TIMEOUT_S} s") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise Uf2FlashError(f"picotool could not load the image ({said[-1] if said else f'exit {done.returncode}'}):"
                            " hold the board's BOOTSEL button while plugging it in, then flash again")


def _no_way(board: Board) -> Uf2FlashError:
    return Uf2FlashError(f"flashing {board.name} needs its {DRIVE_LABEL} drive or picotool, and neither is here: "
                         f"hold BOOTSEL while plugging the board in and mount the {DRIVE_LABEL} drive, or "
                         f"{PICOTOOL_INSTALL}")


def require_a_way(board: Board) -> None:
    """Refuses (before anything is built) when there is neither a bootloader drive nor picotool."""
    if not boot_drives() and find_picotool() is None:
        raise _no_way(board)


def flash_uf2(board: Board, elf: Path, progress: Callable[[str], None] = lambda message: None) -> tuple[str, str]:
    """The ELF as a UF2 file onto the board's bootloader drive, else through picotool. Returns (what, where)."""
    assert board.uf2_family is not None
    image = elf_to_uf2(elf, board.region_for("code"), board.uf2_family)
    drives = boot_drives()
    if len(drives) > 1:
        raise Uf2FlashError(f"{len(drives)} {DRIVE_LABEL} drives mounted ({', '.join(map(str, drives))}): "
                            f"leave one board in its bootloader")
    if drives:
        progress(f"copying {len(image):,} B of UF2 onto the {DRIVE_LABEL} drive at {drives[0]}")
        _copy_to_drive(image, drives[0])
        return f"its {DRIVE_LABEL} drive", str(drives[0])
    picotool = find_picotool()
    if picotool is None:
        raise _no_way(board)
    progress(f"loading {len(image):,} B of UF2 with {picotool}")
    _load_with_picotool(picotool, image)
    return "picotool", picotool
