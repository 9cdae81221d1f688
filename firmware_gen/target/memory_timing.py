"""The memory side of the cycle estimate: which region each access of a block reads or writes, and the wait states
charged for it (docs/cycle_model.md).

A literal load's address is in the instruction; an SP-based access is in the stack's region; an access through any
other register is placed by that register's value at the block's entry when a sample of the registers is given
(link/register_sample.py), followed through the block's moves and additions; otherwise, or when the register was
loaded from memory inside the block, it is charged at the workspace pool's region (the approximation named in the
output). A region's wait states are charged per line of `line_bytes` an access reads (a flash read brings a line;
the accelerator's buffer serves the rest of it to the next sequential access)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from firmware_gen.target.boards import Board, MemoryRegion
from firmware_gen.target.disassembly import Instruction
from firmware_gen.target.timing_inorder import Access, access_of, branches, mnemonic_base

FETCH_BYTES = 4  # bytes an instruction fetch brings (charged its region's wait states when nothing hides them)
_COPIES = ("mov", "movs", "add", "adds", "sub", "subs", "addw", "subw")
_SHIFTS = ("lsl", "lsr", "asr", "ror")
_NO_DESTINATION = ("cmp", "cmn", "tst", "teq", "it", "itt", "ite", "ittt", "itte", "itet", "itee", "itttt", "nop")


@dataclass(frozen=True)
class MemoryTiming:
    """The memory the estimate assumes: the regions with their wait states, and where unknown accesses go."""

    regions: tuple[MemoryRegion, ...]
    data_region: str  # the region charged for an access whose address is not known
    stack_region: str
    description: str  # said beside every estimate

    def region_at(self, address: int) -> MemoryRegion | None:
        return next((r for r in self.regions if r.origin <= address < r.end), None)

    def named(self, name: str) -> MemoryRegion | None:
        return next((r for r in self.regions if r.name == name), None)

    @property
    def data_waits(self) -> bool:
        """True if some region charges wait states on data accesses (only then do pointers' regions matter)."""
        return any(r.data_wait_per_byte for r in self.regions)


def board_memory(board: Board) -> MemoryTiming:
    """The memory timing a board file states; regions without timing fields get 0 wait states, named."""
    unstated = [r.name for r in board.regions if r.wait_states is None]
    stated = ", ".join(f"{r.name} {r.wait_states or 0} ws" + (f" ({r.cache} cached)" if r.cache != "none" else "")
                       for r in board.regions if r.holds)
    part = board.stands_for or board.description or board.name
    default = f"; no timing stated for {', '.join(unstated)}: 0 wait states assumed" if unstated else ""
    pool = board.region_for("pool").name
    timing = MemoryTiming(board.regions, pool, board.region_for("stack").name, f"{part}: {stated}{default}")
    if timing.data_waits:
        timing = replace(timing, description=f"{timing.description}; accesses through pointers charged as {pool}")
    return timing


def memory_on_stand_in(memory: MemoryTiming, board: Board, stand_in: Board) -> MemoryTiming:
    """A real board's memory timing on the QEMU board its estimate runs on (cpu.estimate_on): each region of the
    stand-in gets the timing of the board's region that holds its first kind (its code and read-only data the
    flash's, its RAM the RAM's); a region that holds nothing 0 wait states."""
    def timed(region: MemoryRegion) -> MemoryRegion:
        source = memory.named(board.region_for(region.holds[0]).name) if region.holds else None
        if source is None:
            return replace(region, wait_states=0, cache="none")
        return replace(region, wait_states=source.wait_states or 0, cache=source.cache, line_bytes=source.line_bytes)

    return MemoryTiming(tuple(timed(r) for r in stand_in.regions), stand_in.region_for("pool").name,
                        stand_in.region_for("stack").name,
                        f"{memory.description}; on {stand_in.name}'s regions by what they hold")


def _destinations(instruction: Instruction, access: Access) -> list[str]:
    operands = instruction.operands
    if "{" in operands:
        return [r.strip() for r in operands[operands.find("{") + 1:operands.find("}")].split(",")]
    return [o.strip() for o in operands.split("[")[0].split(",") if o.strip()] if access.load else []


def _follow(addresses: dict[str, int], base: str, operands: list[str], memory: MemoryTiming) -> None:
    """A register written by a move or an addition points where its pointer source pointed; any other write, or a
    load (in access_places), makes it unknown. Of an addition's sources in a region, the pointer is the one of the
    highest address, never a shifted (scaled) one: a small count is "in" a flash at address 0 too, and an offset added
    to a pointer is below it (`add r10, r2` with r10 a stride of 32 and r2 in SRAM points into SRAM)."""
    destination = operands[0]
    sources = operands[1:]
    if base in _COPIES and len(operands) == 2 and not base.startswith("mov"):
        sources = [destination, operands[1]]  # add rd, rm: rd = rd + rm
    scaled = {sources[n - 1] for n, o in enumerate(sources) if n and o.split()[0] in _SHIFTS}
    pointers = [addresses[o] for o in sources if o in addresses and o not in scaled
                and memory.region_at(addresses[o]) is not None] if base in _COPIES else []
    if pointers:
        addresses[destination] = max(pointers)
    else:
        addresses.pop(destination, None)


def access_places(instructions: Sequence[Instruction], entry: Mapping[str, int] | None,
                  memory: MemoryTiming) -> list[tuple[MemoryRegion | None, int | None]]:
    """The region of each memory access of the block, in order (None: outside every region), and the address its
    base pointed to at the block's entry (a literal's own; None when not known: the stack, or no sample)."""
    default = memory.named(memory.data_region)
    addresses: dict[str, int] = dict(entry or {})
    found: list[tuple[MemoryRegion | None, int | None]] = []
    for instruction in instructions:
        base = mnemonic_base(instruction)
        access = access_of(instruction, base)
        operands = [o.strip() for o in instruction.operands.split(",")]
        if access is not None:
            if access.literal is not None:
                found.append((memory.region_at(access.literal), access.literal))
            elif access.base == "sp":
                found.append((memory.named(memory.stack_region), None))
            else:
                address = addresses.get(access.base)
                region = memory.region_at(address) if address is not None else None
                found.append((region, address) if region is not None else (default, None))
            for register in _destinations(instruction, access):
                addresses.pop(register, None)
        elif operands[0] and not branches(instruction) and base not in _NO_DESTINATION:
            _follow(addresses, base, operands, memory)
    return found


def access_regions(instructions: Sequence[Instruction], entry: Mapping[str, int] | None,
                   memory: MemoryTiming) -> list[MemoryRegion | None]:
    """The region of each memory access of the block, in order (None: outside every region)."""
    return [region for region, _ in access_places(instructions, entry, memory)]


def data_waits(region: MemoryRegion | None, access: Access) -> float:
    """The wait states of one data access in `region` (sequential: one line read per the region's `line_bytes`)."""
    return access.bytes * region.data_wait_per_byte if region is not None else 0.0


def wait_cycles(instructions: Sequence[Instruction], accesses: Sequence[Access], block: tuple[int, int],
                memory: MemoryTiming, entry: Mapping[str, int] | None = None) -> float:
    """The wait states of one execution of a block at [pc, pc + bytes)."""
    pc, size = block
    total = 0.0
    code = memory.region_at(pc)
    if code is not None and code.wait_states and code.cache == "none":
        total += code.wait_states * -(-size // FETCH_BYTES)
    for access, region in zip(accesses, access_regions(instructions, entry, memory), strict=True):
        total += data_waits(region, access)
    return total
