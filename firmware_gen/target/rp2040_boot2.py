"""The RP2040's flash second stage (boot2, runtime_c/ports/boot2_rp2040.c): its checksum, written into the linked
image.

The bootrom copies the first 256 bytes of flash to SRAM and runs them only if the last 4 hold the CRC32 of the
first 252 (RP2040 Datasheet 2.8.1.3.1 "Checksum"): polynomial 0x04c11db7, neither input nor output reflected,
initial value 0xffffffff, no final XOR (the parameters of CRC-32/MPEG-2), stored as a little-endian word. The
assembler cannot compute it, so the second stage ends with a zero word that seal_boot2 replaces in the ELF after
linking; both the UF2 file and a debugger's download then carry the sealed bytes.
"""

from __future__ import annotations

from pathlib import Path

from elftools.elf.elffile import ELFFile

from firmware_gen.errors import ToolchainError
from firmware_gen.target.boards import Board

BOOT2_BYTES = 256
CHECKED_BYTES = BOOT2_BYTES - 4
POLYNOMIAL = 0x04C11DB7


def _table() -> tuple[int, ...]:
    entries = []
    for byte in range(256):
        crc = byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ POLYNOMIAL if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
        entries.append(crc)
    return tuple(entries)


_TABLE = _table()


def boot2_crc(data: bytes) -> int:
    """CRC-32/MPEG-2 of data, most significant bit first, as the bootrom computes it."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _TABLE[(crc >> 24) ^ byte]
    return crc


def boot2_is_valid(first_bytes: bytes) -> bool:
    """True when the first 256 bytes of a flash image carry the checksum the bootrom accepts."""
    return (len(first_bytes) >= BOOT2_BYTES
            and int.from_bytes(first_bytes[CHECKED_BYTES:BOOT2_BYTES], "little") == boot2_crc(
                first_bytes[:CHECKED_BYTES]))


def _file_offset(elf: ELFFile, address: int) -> int:
    """Where the byte loaded at `address` lies in the ELF file (through the loadable segment holding it)."""
    for segment in elf.iter_segments():
        start, size = segment["p_paddr"], segment["p_filesz"]
        if segment["p_type"] == "PT_LOAD" and start <= address and address + BOOT2_BYTES <= start + size:
            return segment["p_offset"] + address - start
    raise ToolchainError(f"no loadable segment holds the {BOOT2_BYTES}-byte second stage at 0x{address:08X}")


def seal_boot2(elf_path: Path, origin: int) -> int:
    """Writes the CRC of the second stage at origin (the start of flash) into its last word, in the ELF file.
    Returns the CRC."""
    with elf_path.open("r+b") as handle:
        offset = _file_offset(ELFFile(handle), origin)
        handle.seek(offset)
        stage = handle.read(CHECKED_BYTES)
        crc = boot2_crc(stage)
        handle.seek(offset + CHECKED_BYTES)
        handle.write(crc.to_bytes(4, "little"))
    return crc


def seal_boot_stage(board: Board, elf_path: Path) -> None:
    """The board's second stage, if it has one, gets its checksum."""
    if board.boot_stage == "rp2040":
        seal_boot2(elf_path, board.region_for("code").origin)
