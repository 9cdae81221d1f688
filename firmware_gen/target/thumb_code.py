"""What a linked Cortex-M (Thumb) ELF says about its functions where the compiler's call graph is silent: the
calls the compiler added after its graph was made (library helpers such as `__aeabi_uldivmod`), the frames of
library functions compiled without `-fcallgraph-info` (newlib's `memcpy`), and the functions whose address is
stored somewhere (the only ones an indirect call can reach; the vector table's among them): the words the linker
filled with a function's address, as the relocations kept by `-Wl,--emit-relocs` say (never a weight that
happens to equal one).

Only the instructions needed are decoded: BL and B.W (a call and a tail call, Thumb-2 encodings T1 and T4), B
(T2, Thumb-1's tail branch), and PUSH, STMDB SP!, STR Rt, [SP, #-4]!, SUB SP, SUBW SP and VPUSH. Code is walked 16
or 32 bits at a time from the start of each function symbol to its end.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

_R_ARM_ABS32 = 2


@dataclass(frozen=True)
class CodeFunction:
    name: str
    address: int  # without the Thumb bit
    size: int
    frame_bytes: int  # what its pushes and stack reservations take, all added
    calls: frozenset[str]  # the functions it branches to with BL or B.W


@dataclass(frozen=True)
class ThumbImage:
    functions: dict[str, CodeFunction]
    address_taken: dict[str, frozenset[str]]  # function -> the symbols (data, or a function's literal pool) or
    # sections holding its address
    entry: str  # the function at the ELF's entry point (the reset handler)


def _is_32bit(half: int) -> bool:
    return half >> 11 in (0b11101, 0b11110, 0b11111)


def _branch_target(first: int, second: int, address: int) -> int | None:
    """The destination of a BL (T1) or B.W (T4) at address, else None."""
    if first >> 11 != 0b11110 or second >> 14 not in (0b11,  0b10) or not second & 0x1000:
        return None
    sign = (first >> 10) & 1
    j1, j2 = (second >> 13) & 1, (second >> 11) & 1
    i1, i2 = 1 - (j1 ^ sign), 1 - (j2 ^ sign)
    offset = (sign << 24) | (i1 << 23) | (i2 << 22) | ((first & 0x3FF) << 12) | ((second & 0x7FF) << 1)
    if sign:
        offset -= 1 << 25
    return address + 4 + offset


def _prologue_bytes(first: int, second: int | None) -> int:
    """What one instruction pushes on or reserves from the stack, 0 if nothing."""
    if first >> 9 == 0b1011010:  # PUSH {registers, LR}
        return 4 * (bin(first & 0xFF).count("1") + ((first >> 8) & 1))
    if first >> 7 == 0b101100001:  # SUB SP, SP, #imm7 * 4
        return 4 * (first & 0x7F)
    if second is None:
        return 0
    if first == 0xE92D:  # STMDB SP!, {registers}
        return 4 * bin(second & 0x5FFF).count("1")
    if first == 0xF84D and second & 0x0FFF == 0x0D04:  # STR Rt, [SP, #-4]!
        return 4
    if first & 0xFBEF == 0xF1AD and second & 0x8F00 == 0x0D00:  # SUB.W SP, SP, #modified immediate (plain form)
        value = second & 0xFF
        rotation = ((first >> 10) & 1) << 4 | ((second >> 12) & 7) << 1 | (value >> 7)
        return value if rotation < 8 else (value | 0x80) << (32 - rotation) & 0xFFFFFFFF
    if first & 0xFBFF == 0xF2AD and second & 0x8F00 == 0x0D00:  # SUBW SP, SP, #imm12
        return ((first >> 10) & 1) << 11 | ((second >> 12) & 7) << 8 | (second & 0xFF)
    if first & 0xFFBF == 0xED2D and second & 0x0E00 == 0x0A00:  # VPUSH {d or s registers}
        return 4 * (second & 0xFF)
    return 0


def _data_spans(symbols: list) -> list[tuple[int, int]]:
    """[start, end) of the data inside code (literal pools, jump tables) by the ELF's mapping symbols: `$d` opens
    data, the next `$t` or `$a` closes it. Read as instructions, a literal's half may look like a push or a SUB SP."""
    marks = sorted((s["st_value"], s.name[1]) for s in symbols
                   if s.name[:2] in ("$d", "$t", "$a") and (len(s.name) == 2 or s.name[2] == "."))
    spans = []
    for (at, kind), following in zip(marks, [*marks[1:], (1 << 32, "t")], strict=True):
        if kind == "d":
            spans.append((at, following[0]))
    return spans


def _walk(code: bytes, address: int, start: int, size: int,
          data: Sequence[tuple[int, int]] = ()) -> tuple[int, set[int]]:
    """The bytes every push and stack reservation in the function at start take together (more than any one path
    takes: a bound), and its branch targets (code begins at address); the spans of data are skipped."""
    frame, targets, offset = 0, set(), start - address
    end = min(offset + size, len(code))
    while offset + 2 <= end:
        inside = next((stop for begin, stop in data if begin <= address + offset < stop), None)
        if inside is not None:
            offset = inside - address
            continue
        first = struct.unpack_from("<H", code, offset)[0]
        second = struct.unpack_from("<H", code, offset + 2)[0] if _is_32bit(first) and offset + 4 <= end else None
        frame += _prologue_bytes(first, second)
        if second is not None:
            target = _branch_target(first, second, address + offset)
            if target is not None:
                targets.add(target)
        elif first >> 11 == 0b11100:  # B (T2), 16 bits: the tail branch of Thumb-1 code (Armv6-M's reset handler)
            displacement = (first & 0x7FF) << 1
            targets.add(address + offset + 4 + displacement - (0x1000 if displacement & 0x800 else 0))
        offset += 4 if second is not None else 2
    return frame, targets


def _loaded(elf: ELFFile) -> list[tuple[str, int, bytes, bool]]:
    return [(s.name, s["sh_addr"], s.data(), bool(s["sh_flags"] & SH_FLAGS.SHF_EXECINSTR)) for s in elf.iter_sections()
            if s["sh_flags"] & SH_FLAGS.SHF_ALLOC and s["sh_type"] == "SHT_PROGBITS"]


def _absolute_addresses(elf: ELFFile) -> set[int] | None:
    """The addresses of the words the linker filled with an absolute address (R_ARM_ABS32), from the relocations
    `-Wl,--emit-relocs` keeps; None if the ELF kept none (then every word is a candidate). Only the relocations of
    loaded sections count: those of the debug sections are offsets into them, which would read as flash addresses
    (a weight at such an address, equal to a function's, was once taken for a pointer to it)."""
    places: set[int] = set()
    found = False
    for section in elf.iter_sections():
        if isinstance(section, RelocationSection) and section.name.startswith(".rel"):
            found = True
            if elf.get_section(section["sh_info"])["sh_flags"] & SH_FLAGS.SHF_ALLOC:
                places.update(r["r_offset"] for r in section.iter_relocations()
                              if r["r_info_type"] == _R_ARM_ABS32)
    return places if found else None


def _qualified_names(symbols: list) -> list[str]:
    """Each symbol's name, `name@file` for a local function (the file: the STT_FILE symbol before it)."""
    names, file = [], ""
    for symbol in symbols:
        kind = symbol["st_info"]["type"]
        if kind == "STT_FILE":
            file = symbol.name
        local = kind == "STT_FUNC" and symbol["st_info"]["bind"] == "STB_LOCAL"
        names.append(f"{symbol.name}@{file}" if local and symbol.name else symbol.name)
    return names


def read_thumb_image(path: Path) -> ThumbImage:
    with path.open("rb") as handle:
        elf = ELFFile(handle)
        table = elf.get_section_by_name(".symtab")
        symbols = list(table.iter_symbols()) if isinstance(table, SymbolTableSection) else []
        sections = _loaded(elf)
        entry = elf.header["e_entry"] & ~1
        absolute = _absolute_addresses(elf)
    names = _qualified_names(symbols)
    data = _data_spans(symbols)
    starts = {s["st_value"] & ~1: names[i] for i, s in enumerate(symbols) if s["st_info"]["type"] == "STT_FUNC"}
    objects = sorted((s["st_value"] & ~1, s["st_size"], names[i]) for i, s in enumerate(symbols)
                     if s["st_info"]["type"] in ("STT_OBJECT", "STT_FUNC") and s["st_size"])
    functions: dict[str, CodeFunction] = {}
    taken: dict[str, set[str]] = {}
    for section_name, address, code, executable in sections:
        for word_at in range(0, len(code) - 3, 4):
            word = struct.unpack_from("<I", code, word_at)[0]
            if word & 1 and word & ~1 in starts and (absolute is None or address + word_at in absolute):
                holder = next((name for start, size, name in objects
                               if start <= address + word_at < start + size), section_name)
                taken.setdefault(starts[word & ~1], set()).add(holder)
        if not executable:
            continue
        for index, symbol in enumerate(symbols):
            start = symbol["st_value"] & ~1
            if symbol["st_info"]["type"] == "STT_FUNC" and symbol.name and address <= start < address + len(code):
                inside = [span for span in data if span[0] < start + symbol["st_size"] and span[1] > start]
                frame, targets = _walk(code, address, start, symbol["st_size"], inside)
                functions[names[index]] = CodeFunction(names[index], start, symbol["st_size"], frame,
                                                       frozenset(starts[t] for t in targets if t in starts))
    return ThumbImage(functions, {name: frozenset(h) for name, h in taken.items()}, starts.get(entry, ""))
