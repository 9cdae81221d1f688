"""An ELF's own account of itself, read with pyelftools: its allocated sections and its sized symbols."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from firmware_gen.errors import ToolchainError


@dataclass(frozen=True)
class Section:
    name: str
    size: int
    vma: int
    lma: int


@dataclass(frozen=True)
class Symbol:
    name: str
    size: int
    section: str  # the output section that holds it
    kind: str  # "FUNC", "OBJECT", ...
    address: int  # where it starts (a function's without the Thumb bit)


@dataclass(frozen=True)
class ElfImage:
    sections: dict[str, Section]  # the allocated ones, by name
    symbols: tuple[Symbol, ...]  # those with a size, in an allocated section

    def size(self, section: str) -> int:
        return self.sections[section].size if section in self.sections else 0


def _load_address(elf: ELFFile, section) -> int:
    """Where the loader puts a section's bytes (its LMA): through the segment that holds it."""
    for segment in elf.iter_segments():
        if segment["p_type"] == "PT_LOAD" and segment.section_in_segment(section):
            return section["sh_addr"] - segment["p_vaddr"] + segment["p_paddr"]
    return section["sh_addr"]


def read_elf(path: str | Path) -> ElfImage:
    try:
        with Path(path).open("rb") as handle:
            elf = ELFFile(handle)
            allocated = {i: s for i, s in enumerate(elf.iter_sections()) if s["sh_flags"] & SH_FLAGS.SHF_ALLOC}
            sections = {s.name: Section(s.name, s["sh_size"], s["sh_addr"], _load_address(elf, s))
                        for s in allocated.values()}
            table = elf.get_section_by_name(".symtab")
            symbols = []
            if isinstance(table, SymbolTableSection):
                for symbol in table.iter_symbols():
                    index = symbol["st_shndx"]
                    if isinstance(index, int) and index in allocated and symbol["st_size"] and symbol.name:
                        kind = symbol["st_info"]["type"].removeprefix("STT_")
                        address = symbol["st_value"] & ~1 if kind == "FUNC" else symbol["st_value"]
                        symbols.append(Symbol(symbol.name, symbol["st_size"], allocated[index].name, kind, address))
    except (OSError, ELFError) as error:
        raise ToolchainError(f"{path}: not a readable ELF file ({error})") from None
    return ElfImage(sections, tuple(symbols))
