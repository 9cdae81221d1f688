"""UF2 files (Microsoft's USB Flashing Format, github.com/microsoft/uf2): a flash image as 512-byte blocks that a
chip's USB bootloader, showing itself as a mass-storage drive, writes to flash as they are copied onto it.

Each block: magic 0x0A324655 ("UF2\\n"), magic 0x9E5D5157, flags, target address, payload size, block number,
number of blocks, family id (flag 0x00002000: the word names the chip family, so a drive refuses another chip's
file), 476 bytes of data of which the payload is the first, and the end magic 0x0AB16F30. The RP2040's bootrom
takes 256-byte payloads at 256-byte-aligned flash addresses (RP2040 Datasheet 2.8.4.2 "UF2 Format Details"), the
layout of the Pico SDK's elf2uf2: a page the image only partly fills is padded with zeros.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from firmware_gen.errors import ToolchainError, UserError
from firmware_gen.target.boards import MemoryRegion

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID = 0x00002000
BLOCK_BYTES = 512
PAYLOAD_BYTES = 256
DATA_BYTES = 476
_HEADER = struct.Struct("<8I")


class Uf2Error(UserError):
    """A file that is not a well-formed UF2 image."""


@dataclass(frozen=True)
class Uf2Image:
    family: int
    pages: dict[int, bytes]  # target address -> payload, in block order


def _loaded_bytes(elf_path: Path) -> list[tuple[int, bytes]]:
    """(load address, bytes) of every loadable segment with contents."""
    try:
        with elf_path.open("rb") as handle:
            return [(s["p_paddr"], s.data()[:s["p_filesz"]]) for s in ELFFile(handle).iter_segments()
                    if s["p_type"] == "PT_LOAD" and s["p_filesz"]]
    except (OSError, ELFError) as error:
        raise ToolchainError(f"{elf_path}: not a readable ELF file ({error})") from None


def elf_pages(elf_path: Path, flash: MemoryRegion) -> dict[int, bytes]:
    """The ELF's loaded bytes as 256-byte flash pages, zero-padded; every byte must load into `flash`."""
    pages: dict[int, bytearray] = {}
    for address, data in _loaded_bytes(elf_path):
        if not (flash.origin <= address and address + len(data) <= flash.end):
            raise ToolchainError(f"{elf_path}: {len(data)} bytes load at 0x{address:08X}, outside the "
                                 f"{flash.name} region (0x{flash.origin:08X}..0x{flash.end:08X}) a UF2 file writes")
        at = address
        while at < address + len(data):
            page = at & ~(PAYLOAD_BYTES - 1)
            take = min(address + len(data), page + PAYLOAD_BYTES) - at
            pages.setdefault(page, bytearray(PAYLOAD_BYTES))[at - page:at - page + take] = \
                data[at - address:at - address + take]
            at += take
    return {page: bytes(pages[page]) for page in sorted(pages)}


def encode_uf2(pages: dict[int, bytes], family: int) -> bytes:
    """One block per page, in address order."""
    blocks = []
    for number, (address, payload) in enumerate(sorted(pages.items())):
        header = _HEADER.pack(MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID, address, len(payload), number,
                              len(pages), family)
        blocks.append(header + payload.ljust(DATA_BYTES, b"\0") + struct.pack("<I", MAGIC_END))
    return b"".join(blocks)


def elf_to_uf2(elf_path: Path, flash: MemoryRegion, family: int) -> bytes:
    return encode_uf2(elf_pages(elf_path, flash), family)


def decode_uf2(data: bytes) -> Uf2Image:
    """The pages of a UF2 file written for one family, every block checked."""
    if not data or len(data) % BLOCK_BYTES:
        raise Uf2Error(f"a UF2 file is whole {BLOCK_BYTES}-byte blocks; this one has {len(data)} bytes")
    count = len(data) // BLOCK_BYTES
    families, pages = set(), {}
    for number in range(count):
        block = data[number * BLOCK_BYTES:(number + 1) * BLOCK_BYTES]
        start0, start1, flags, address, size, block_no, blocks, family = _HEADER.unpack_from(block)
        (end,) = struct.unpack_from("<I", block, BLOCK_BYTES - 4)
        if (start0, start1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise Uf2Error(f"block {number}: wrong magic numbers")
        if not flags & FLAG_FAMILY_ID or size > DATA_BYTES or (block_no, blocks) != (number, count):
            raise Uf2Error(f"block {number}: flags 0x{flags:08X}, payload {size} B, numbered {block_no} of {blocks}"
                           f" (expected a family id, at most {DATA_BYTES} B, {number} of {count})")
        families.add(family)
        pages[address] = block[32:32 + size]
    if len(families) != 1:
        raise Uf2Error(f"blocks for several families: {sorted(hex(f) for f in families)}")
    return Uf2Image(families.pop(), pages)
