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
from firmware_gen.target.disassembly import Instruction, disassemble
from firmware_gen.target.memory_timing import MemoryTiming, wait_cycles
from firmware_gen.target.timing_inorder import (
    INORDER_CORES,
    InorderTiming,
    access_of,
    block_timing,
    branches,
    mnemonic_base,
)
from firmware_gen.target.timing_mca import MCA_CORES, TAKEN_PENALTY, block_cycles

TIMED_CORES = INORDER_CORES + MCA_CORES
_LOOP_ENDS = ("le", "letp")  # low-overhead loop ends: no refill after the first pass (M55, M85)


# LLVM 19's cortex-m85 model issues each MVE instruction only when the one it depends on has finished all its
# beats (no beat overlap): 4.9 cycles per instruction on the VWW anchor image, 5x the EK-RA8D1's published time. The
# M85 has the M55's two-beats-per-cycle MVE with overlap, so a block with vector instructions costs the lower of
# the two models (each overestimates a different side: the M85 model the vector chains, the M55 model the scalar
# work the M85 issues two at a time); a scalar block costs the M85 model's (dual issue).
VECTOR_TIMING = "cortex-m55"
SegmentSamples = Mapping[int, Mapping[int, Mapping[str, int]]]  # segment -> pc -> registers at the block's entry
_VECTOR_REGISTER = re.compile(r"\bq[0-7]\b")


def _is_vector(instruction: Instruction) -> bool:
    base = mnemonic_base(instruction)
    return bool(_VECTOR_REGISTER.search(instruction.operands)) or base.startswith(("vctp", "vpst", "vpt"))


class TimingError(UserError):
    """A core the timing model does not know."""


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


@dataclass(frozen=True)
class _BlockCost:
    cycles: float
    taken: float
    waits: float


def _block_costs(blocks: Mapping[int, Sequence[Instruction]], pcs: Mapping[int, tuple[int, int]], core: str,
                 memory: MemoryTiming, muls_cycles: int,
                 samples: Mapping[int, Mapping[str, int]]) -> dict[int, _BlockCost]:
    costs = {}
    accesses = {b: tuple(a for i in ins if (a := access_of(i, mnemonic_base(i))) is not None)
                for b, ins in blocks.items()}
    waits = {b: wait_cycles(blocks[b], accesses[b], pcs[b], memory, samples.get(pcs[b][0])) for b in blocks}
    if core in MCA_CORES:
        ids = list(blocks)
        cycles = block_cycles(core, [blocks[b] for b in ids])
        if core == "cortex-m85":  # vector blocks: the lower of the M85 and M55 models (VECTOR_TIMING)
            vector = [n for n, b in enumerate(ids) if any(_is_vector(i) for i in blocks[b])]
            for n, cost in zip(vector, block_cycles(VECTOR_TIMING, [blocks[ids[n]] for n in vector]), strict=True):
                cycles[n] = min(cycles[n], cost)
        for block_id, cost in zip(ids, cycles, strict=True):
            last = blocks[block_id][-1] if blocks[block_id] else None
            taken = TAKEN_PENALTY[core] if last is not None and branches(last) else 0
            if last is not None and mnemonic_base(last) in _LOOP_ENDS:
                taken = 0
            costs[block_id] = _BlockCost(cost, taken, waits[block_id])
        return costs
    timing = InorderTiming(core, muls_cycles)
    for block_id, instructions in blocks.items():
        result = block_timing(instructions, timing)
        costs[block_id] = _BlockCost(result.cycles, result.taken_penalty, waits[block_id])
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


def _pointer_bytes(counts: object, listing: Mapping[int, Instruction]) -> dict[int, int]:
    """Block id -> bytes one execution accesses through pointers (neither literal nor stack)."""
    found = {}
    for block_id, block in counts.blocks.items():
        found[block_id] = sum(a.bytes for i in block_instructions(listing, block.pc, block.end)
                              if (a := access_of(i, mnemonic_base(i))) is not None and a.literal is None
                              and a.base != "sp")
    return found


def _heaviest(weights: Mapping[int, int], share: float, limit: int) -> list[int]:
    total = sum(weights.values())
    chosen, covered = [], 0
    for pc, weight in sorted(weights.items(), key=lambda item: -item[1]):
        if covered >= share * total or len(chosen) >= limit:
            break
        chosen.append(pc)
        covered += weight
    return chosen


def blocks_to_sample(counts: object, elf: Path, core: str, share: float = 0.99, limit: int = 400) -> list[int]:
    """The pcs of the blocks whose accesses through pointers make up `share` of all such accesses in the window:
    the blocks worth a register sample (link/register_sample.py)."""
    pointer = _pointer_bytes(counts, disassemble(elf, core))
    weights: dict[int, int] = {}
    for block_id, runs in counts.executions().items():
        if pointer[block_id]:
            pc = counts.blocks[block_id].pc
            weights[pc] = weights.get(pc, 0) + runs * pointer[block_id]
    return _heaviest(weights, share, limit)


def blocks_to_sample_by_segment(counts: object, elf: Path, core: str, share: float = 0.99,
                                limit: int = 64) -> dict[int, list[int]]:
    """blocks_to_sample for each segment of the window on its own (a kernel's loop reads other weights in every
    step): {segment: pcs} for link/register_sample.py's SegmentSampler."""
    pointer = _pointer_bytes(counts, disassemble(elf, core))
    chosen = {}
    for segment, seg in counts.segments.items():
        weights: dict[int, int] = {}
        for block_id, runs in seg.executions.items():
            if pointer[block_id]:
                pc = counts.blocks[block_id].pc
                weights[pc] = weights.get(pc, 0) + runs * pointer[block_id]
        chosen[segment] = _heaviest(weights, share, limit)
    return chosen


PAGE_BYTES = 1024  # QEMU's M-profile page: a translated block never runs across one
_PAGE_CUT_ENDS = (0, 2, PAGE_BYTES - 2)  # a block ends at a page, after the instruction across one, or before it


def _page_cut(block: Sequence[Instruction], span: tuple[int, int]) -> bool:
    """Whether QEMU ended the block for a page boundary, not for a branch."""
    return bool(block) and not branches(block[-1]) and sum(span) % PAGE_BYTES in _PAGE_CUT_ENDS


def _join_page_cuts(costs: dict[int, _BlockCost], blocks: Mapping[int, Sequence[Instruction]],
                    pcs: Mapping[int, tuple[int, int]], runs: Mapping[int, int], core: str, memory: MemoryTiming,
                    muls_cycles: int) -> None:
    """QEMU cuts code at its 1 KiB pages (a block ends at the boundary, and an instruction across one is a block of
    its own); silicon runs on. A block so cut costs what it adds in front of the blocks it runs on into: its run of
    blocks costed as one sequence, less the run of its successor, so that a pass through the whole run costs the
    run as one sequence, and moving code across a boundary does not move the estimate."""
    starting = {}
    for block_id in sorted(runs, key=runs.__getitem__):
        starting[pcs[block_id][0]] = block_id  # the most run of the blocks at an address last
    successor = {b: starting[sum(pcs[b])] for b in runs
                 if sum(pcs[b]) in starting and _page_cut(blocks[b], pcs[b])}
    if not successor:
        return

    def run_from(block_id: int) -> list[int]:
        found = [block_id]
        while found[-1] in successor and successor[found[-1]] not in found:
            found.append(successor[found[-1]])
        return found

    heads = set(successor) | set(successor.values())
    chains = {b: run_from(b) for b in heads}
    joined = {b: [i for link in chain for i in blocks[link]] for b, chain in chains.items() if len(chain) > 1}
    spans = {b: (pcs[b][0], sum(pcs[link][1] for link in chains[b])) for b in joined}
    whole = _block_costs(joined, spans, core, memory, muls_cycles, {})
    chain_cycles = {b: whole[b].cycles if b in whole else costs[b].cycles for b in chains}
    for first, second in successor.items():
        own = costs[first]
        costs[first] = _BlockCost(max(0.0, chain_cycles[first] - chain_cycles[second]), own.taken, own.waits)


def estimate_cycles(counts: object, elf: Path, core: str, memory: MemoryTiming, *, muls_cycles: int = 1,
                    source: str = "", samples: Mapping[int, Mapping[str, int]] | None = None,
                    segment_samples: SegmentSamples | None = None) -> CycleEstimate:
    """The estimate of a trace's window (counts: link.exec_trace.TraceCounts) on `core` with `memory`; samples:
    registers at the entry of blocks, by pc (link/register_sample.py), to place accesses through pointers;
    segment_samples: the same per segment (a block's own sample in a segment comes before its sample by pc)."""
    check_core(core, source)
    listing = disassemble(elf, core)
    runs = counts.executions()
    blocks = {b: block_instructions(listing, counts.blocks[b].pc, counts.blocks[b].end) for b in runs}
    pcs = {b: (counts.blocks[b].pc, counts.blocks[b].end - counts.blocks[b].pc) for b in runs}
    costs = _block_costs(blocks, pcs, core, memory, muls_cycles, samples or {})
    _join_page_cuts(costs, blocks, pcs, runs, core, memory, muls_cycles)
    accesses = {b: tuple(a for i in ins if (a := access_of(i, mnemonic_base(i))) is not None)
                for b, ins in blocks.items()}
    result = CycleEstimate(core, memory.description, 0.0,
                           instructions=sum(len(blocks[b]) * n for b, n in runs.items()))
    for segment, seg in counts.segments.items():
        own = (segment_samples or {}).get(segment, {})
        cycles = 0.0
        for block_id, runs in seg.executions.items():
            cost = costs[block_id]
            entry = own.get(pcs[block_id][0])
            waits = cost.waits if entry is None else wait_cycles(blocks[block_id], accesses[block_id],
                                                                 pcs[block_id], memory, entry)
            taken = runs - seg.fallthroughs.get(block_id, 0)
            cycles += runs * (cost.cycles + waits) + max(0, taken) * cost.taken
            result.wait_cycles += runs * waits
        result.cycles += cycles
        if segment >= 0:
            result.segments[segment] = cycles
    return result
