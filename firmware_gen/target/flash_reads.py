"""Which symbols of a firmware its data reads from wait-stated memory come from, and what they cost: per symbol
(a weight table, a function's literal pool), the bytes read per inference and the estimated wait cycles, from the
execution trace and a register sample per block and step (docs/cycle_model.md). The data the choice of weights
to copy into RAM is made from (driver/ram_weights.py); an estimate, like the cycles it is part of."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from firmware_gen.target.cycle_model import SegmentSamples, block_instructions
from firmware_gen.target.disassembly import disassemble
from firmware_gen.target.elf_image import read_elf
from firmware_gen.target.memory_timing import MemoryTiming, access_places, data_waits
from firmware_gen.target.timing_inorder import access_of, mnemonic_base

UNKNOWN = "(no symbol)"


@dataclass
class SymbolReads:
    """A symbol's reads from wait-stated memory in one inference (estimated)."""

    name: str
    size: int  # the symbol's bytes
    region: str  # where it is
    read_bytes: float = 0.0
    wait_cycles: float = 0.0
    steps: set[int] = field(default_factory=set)  # the steps that read it

    @property
    def reread(self) -> float:
        """How many times its bytes are read per inference."""
        return self.read_bytes / self.size if self.size else 0.0


@dataclass(frozen=True)
class _Symbols:
    starts: list[int]
    entries: list[tuple[int, int, str]]  # (address, size, name), sorted

    def at(self, address: int) -> tuple[str, int]:
        n = bisect.bisect_right(self.starts, address) - 1
        if n >= 0:
            start, size, name = self.entries[n]
            if start <= address < start + size:
                return name, size
        return UNKNOWN, 0


def _symbols(elf: Path) -> _Symbols:
    entries = sorted((s.address, s.size, s.name) for s in read_elf(elf).symbols if s.kind in ("FUNC", "OBJECT"))
    return _Symbols([e[0] for e in entries], entries)


def flash_reads(counts: object, elf: Path, core: str, memory: MemoryTiming,
                samples: Mapping[int, Mapping[str, int]] | None = None,
                segment_samples: SegmentSamples | None = None) -> dict[str, SymbolReads]:
    """Symbol name -> its reads from regions that charge data wait states, in the trace's window (counts:
    link.exec_trace.TraceCounts); samples, segment_samples: as estimate_cycles takes them. Reads whose address
    is not known (a block without a sample) are charged at the pool's region, as the estimate does."""
    listing = disassemble(elf, core)
    symbols = _symbols(elf)
    found: dict[str, SymbolReads] = {}
    for segment, seg in counts.segments.items():
        own = (segment_samples or {}).get(segment, {})
        for block_id, runs in seg.executions.items():
            block = counts.blocks[block_id]
            instructions = block_instructions(listing, block.pc, block.end)
            entry = own.get(block.pc) or (samples or {}).get(block.pc)
            accesses = [a for i in instructions if (a := access_of(i, mnemonic_base(i))) is not None]
            for access, (region, address) in zip(accesses, access_places(instructions, entry, memory), strict=True):
                waits = data_waits(region, access)
                if not waits or not access.load:
                    continue
                name, size = symbols.at(address) if address is not None else (UNKNOWN, 0)
                reads = found.setdefault(name, SymbolReads(name, size, region.name))
                reads.read_bytes += runs * access.bytes
                reads.wait_cycles += runs * waits
                if segment >= 0:
                    reads.steps.add(segment)
    return found
