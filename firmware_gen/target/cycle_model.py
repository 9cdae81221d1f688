"""Estimated core cycles of a traced run: every executed block's cost on the core's timing model, times how often
it ran, plus its taken branches and the wait states of the memory it touched (docs/cycle_model.md).

An estimate, never a measurement: it is shown beside the exact instruction count, with the memory it assumed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from firmware_gen.errors import UserError
from firmware_gen.target.boards import Board, MemoryRegion
from firmware_gen.target.disassembly import Instruction, disassemble
from firmware_gen.target.timing_inorder import (
    INORDER_CORES,
    Access,
    InorderTiming,
    access_of,
    block_timing,
    branches,
    mnemonic_base,
)
from firmware_gen.target.timing_mca import MCA_CORES, TAKEN_PENALTY, block_cycles

TIMED_CORES = INORDER_CORES + MCA_CORES
FETCH_BYTES = 4  # bytes an instruction fetch brings (charged its region's wait states when nothing hides them)
_LOOP_ENDS = ("le", "letp")  # low-overhead loop ends: no refill after the first pass (M55, M85)


# LLVM 19's cortex-m85 model issues each MVE instruction only when the one it depends on has finished all its
# beats (no beat overlap): 4.9 cycles per instruction on the VWW anchor image, 5x the EK-RA8D1's published time. The
# M85 has the M55's two-beats-per-cycle MVE with overlap, so blocks with vector instructions are timed on the M55
# model, scalar blocks on the M85 model (dual issue).
VECTOR_TIMING = "cortex-m55"
_VECTOR_REGISTER = re.compile(r"\bq[0-7]\b")


def _is_vector(instruction: Instruction) -> bool:
    base = mnemonic_base(instruction)
    return bool(_VECTOR_REGISTER.search(instruction.operands)) or base.startswith(("vctp", "vpst", "vpt"))


class TimingError(UserError):
    """A core the timing model does not know."""


@dataclass(frozen=True)
class MemoryTiming:
    """The memory the estimate assumes: the regions with their wait states, and where unknown loads go."""

    regions: tuple[MemoryRegion, ...]
    data_region: str  # the region charged for a load whose address is only known at run time
    stack_region: str
    description: str  # said beside every estimate

    def region_at(self, address: int) -> MemoryRegion | None:
        return next((r for r in self.regions if r.origin <= address < r.end), None)

    def named(self, name: str) -> MemoryRegion | None:
        return next((r for r in self.regions if r.name == name), None)


def board_memory(board: Board) -> MemoryTiming:
    """The memory timing a board file states; regions without timing fields get 0 wait states, named."""
    unstated = [r.name for r in board.regions if r.wait_states is None]
    stated = ", ".join(f"{r.name} {r.wait_states or 0} ws" + (f" ({r.cache} cached)" if r.cache != "none" else "")
                       for r in board.regions if r.holds)
    part = board.stands_for or board.description or board.name
    default = f"; no timing stated for {', '.join(unstated)}: 0 wait states assumed" if unstated else ""
    return MemoryTiming(board.regions, board.region_for("pool").name, board.region_for("stack").name,
                        f"{part}: {stated}{default}")


@dataclass
class CycleEstimate:
    core: str  # the timing model used
    memory: str  # the memory configuration assumed
    cycles: float  # the window (the whole invoke)
    segments: dict[int, float] = field(default_factory=dict)  # per step
    instructions: int = 0  # executed in the window, from the trace (exact)
    wait_cycles: float = 0.0  # of `cycles`, charged for wait states

    def to_json(self) -> dict:
        return {"estimate": True, "core": self.core, "memory": self.memory, "cycles": round(self.cycles),
                "wait_state_cycles": round(self.wait_cycles), "trace_instructions": self.instructions,
                "step_cycles": [round(self.segments.get(i, 0.0)) for i in range(max(self.segments, default=-1) + 1)]}


def check_core(core: str, source: str) -> None:
    if core not in TIMED_CORES:
        raise TimingError(f"{source or 'board'}: core '{core}' has no cycle timing model "
                          f"(known: {', '.join(TIMED_CORES)})")


def _wait_cycles(accesses: Sequence[Access], block_pc: int, block_bytes: int, memory: MemoryTiming) -> int:
    total = 0
    code = memory.region_at(block_pc)
    if code is not None and code.wait_states and code.cache == "none":
        total += code.wait_states * -(-block_bytes // FETCH_BYTES)
    for access in accesses:
        if access.literal is not None:
            region = memory.region_at(access.literal)
        else:
            region = memory.named(memory.stack_region if access.base == "sp" else memory.data_region)
        if region is not None and region.wait_states and region.cache != "all":
            total += region.wait_states * access.transfers
    return total


@dataclass(frozen=True)
class _BlockCost:
    cycles: float
    taken: float
    waits: int


def _block_costs(blocks: Mapping[int, Sequence[Instruction]], pcs: Mapping[int, tuple[int, int]], core: str,
                 memory: MemoryTiming, muls_cycles: int) -> dict[int, _BlockCost]:
    costs = {}
    accesses = {b: tuple(a for i in ins if (a := access_of(i, mnemonic_base(i))) is not None)
                for b, ins in blocks.items()}
    if core in MCA_CORES:
        ids = list(blocks)
        cycles = block_cycles(core, [blocks[b] for b in ids])
        if core == "cortex-m85":  # vector blocks on the M55 model: see VECTOR_TIMING
            vector = [n for n, b in enumerate(ids) if any(_is_vector(i) for i in blocks[b])]
            for n, cost in zip(vector, block_cycles(VECTOR_TIMING, [blocks[ids[n]] for n in vector]), strict=True):
                cycles[n] = cost
        for block_id, cost in zip(ids, cycles, strict=True):
            last = blocks[block_id][-1] if blocks[block_id] else None
            taken = TAKEN_PENALTY[core] if last is not None and branches(last) else 0
            if last is not None and mnemonic_base(last) in _LOOP_ENDS:
                taken = 0
            costs[block_id] = _BlockCost(cost, taken, _wait_cycles(accesses[block_id], *pcs[block_id], memory))
        return costs
    timing = InorderTiming(core, muls_cycles)
    for block_id, instructions in blocks.items():
        result = block_timing(instructions, timing)
        costs[block_id] = _BlockCost(result.cycles, result.taken_penalty,
                                     _wait_cycles(result.accesses, *pcs[block_id], memory))
    return costs


def block_instructions(listing: Mapping[int, Instruction], pc: int, end: int) -> list[Instruction]:
    """The instructions of the code [pc, end) (an address the listing lacks counts as a 2-byte NOP)."""
    instructions = []
    address = pc
    while address < end:
        instruction = listing.get(address)
        instructions.append(instruction or Instruction(address, "nop", ""))
        following = [a for a in (address + 2, address + 4) if a in listing or a >= end]
        address = following[0] if instruction is not None and following else address + 2
    return instructions


def estimate_cycles(counts: object, elf: Path, core: str, memory: MemoryTiming, *, muls_cycles: int = 1,
                    source: str = "") -> CycleEstimate:
    """The estimate of a trace's window (counts: link.exec_trace.TraceCounts) on `core` with `memory`."""
    check_core(core, source)
    listing = disassemble(elf, core)
    runs = counts.executions()
    blocks = {b: block_instructions(listing, counts.blocks[b].pc, counts.blocks[b].end) for b in runs}
    pcs = {b: (counts.blocks[b].pc, counts.blocks[b].end - counts.blocks[b].pc) for b in runs}
    costs = _block_costs(blocks, pcs, core, memory, muls_cycles)
    result = CycleEstimate(core, memory.description, 0.0,
                           instructions=sum(len(blocks[b]) * n for b, n in runs.items()))
    for segment, seg in counts.segments.items():
        cycles = 0.0
        for block_id, runs in seg.executions.items():
            cost = costs[block_id]
            taken = runs - seg.fallthroughs.get(block_id, 0)
            cycles += runs * (cost.cycles + cost.waits) + max(0, taken) * cost.taken
            result.wait_cycles += runs * cost.waits
        result.cycles += cycles
        if segment >= 0:
            result.segments[segment] = cycles
    return result
