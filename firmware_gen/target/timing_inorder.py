"""Cycle tables of the in-order Cortex-M cores, from their Technical Reference Manuals (a block's cost, memory
wait states apart: those are charged by the caller on the accesses counted here).

Cortex-M3 (DDI 0337) and Cortex-M4 (DDI 0439) "Processor instruction timings", rules used:
- data processing, saturation, extension, bit-field, reverse, IT, hints: 1;
- LDR/STR (single, any width): 2, but 1 when it follows another single load/store whose loaded register it does
  not use as its address ("neighboring load and store single instructions can pipeline their address and data
  phases"); LDRD/STRD: 1 + 2; LDM/STM/PUSH/POP: 1 + N; VLDR/VSTR 2, VLDM/VSTM/VPUSH/VPOP 1 + N words;
- a taken branch (B, BL, BX, BLX, CBZ/CBNZ, TBB/TBH (+1), a write to PC): 1 + P, P = 2 (the TRM's 1..3: it
  depends on the target's alignment and width, not known here); not taken: 1;
- MUL 1, MLA/MLS 2; M4: every 32x32->64 and DSP multiply 1; M3: SMULL/UMULL 3-5, SMLAL/UMLAL 4-7 "depending on
  the size of the source values": the lower bound when a source holds a byte or halfword (loaded as one, or
  extended, earlier in the block), else the upper bound (NN requantization multiplies full 32-bit values);
- SDIV/UDIV: 12 (the TRM's 2..12 ends early by operand size, not known from the trace: the upper bound);
- FPv4: VMLA/VMLS/VFMA/VFMS 3, VDIV/VSQRT 14, other VFP 1.
Cortex-M0+ (DDI 0484): ALU 1, loads and stores 2 (no pipelining), LDM/STM/PUSH/POP 1 + N, POP with PC 3 + N,
B<cond> taken 2 / not 1, B 2, BL 3, BX/BLX 2, MULS 1 or 32 (the implementation's option: the board's timing).
Cortex-M33 (DDI 0614) publishes no instruction table: the M4 rules (the same 3-stage pipeline; its limited dual issue
of 16-bit pairs is not modelled).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from firmware_gen.target.disassembly import Instruction

INORDER_CORES = ("cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m33")
_COND = "(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?"
_LOAD_MULTIPLE = re.compile(rf"^(?:ldm(?:ia|db|fd|ea)?|pop|vldm(?:ia|db)?|vpop){_COND}$")
_STORE_MULTIPLE = re.compile(rf"^(?:stm(?:ia|db|fd|ea)?|push|vstm(?:ia|db)?|vpush){_COND}$")
_DOUBLE = re.compile(rf"^(?:ldrd|strd|ldrexd|strexd){_COND}$")
_LOAD = re.compile(rf"^(?:ldr(?:b|h|sb|sh|t|bt|ht|sbt|sht|ex|exb|exh)?|vldr[bhwd]?|vld[24][0-3]"
                   rf"|lda(?:b|h|ex|exb|exh)?){_COND}$")
_STORE = re.compile(rf"^(?:str(?:b|h|t|bt|ht|ex|exb|exh)?|vstr[bhwd]?|vst[24][0-3]|stl(?:b|h|ex|exb|exh)?){_COND}$")
_BRANCH = re.compile(rf"^(?:(?:b|bl|blx|bx){_COND}|cbn?z|tb[bh]{_COND})$")
_LONG_MULTIPLY = re.compile(rf"^(?:smull|umull){_COND}$")
_LONG_ACCUMULATE = re.compile(rf"^(?:smlal|umlal|umaal){_COND}$")
_MULTIPLY_ACCUMULATE = re.compile(rf"^(?:mla|mls){_COND}$")
_MULS = re.compile(rf"^muls?{_COND}$")
_DIVIDE = re.compile(rf"^[su]div{_COND}$")
_FP_SLOW = re.compile(rf"^v(?:div|sqrt){_COND}$")
_FP_ACCUMULATE = re.compile(rf"^v(?:mla|mls|fma|fms|nmla|nmls|fnma|fnms){_COND}$")
_REGISTER = re.compile(r"\b(r\d+|sp|lr|pc|ip|fp|sl|sb|[sd]\d+)\b")
TAKEN_REFILL = 2  # P of the M3/M4 TRM (1..3)


@dataclass(frozen=True)
class InorderTiming:
    core: str
    muls_cycles: int = 1  # the Cortex-M0+ multiplier option: 1 (fast) or 32 (small)


@dataclass(frozen=True)
class Access:
    """A memory access by a load or store: how many bus transfers, and where (a literal's address, or the base
    register's name when the address is only known at run time)."""

    transfers: int
    load: bool
    base: str
    literal: int | None = None
    size: int = 4  # bytes per transfer

    @property
    def bytes(self) -> int:
        return self.transfers * self.size


@dataclass(frozen=True)
class BlockTiming:
    cycles: int  # one execution, branch not taken, no wait states
    taken_penalty: int  # added when the block's last instruction branched (the trace says how often)
    accesses: tuple[Access, ...]


def mnemonic_base(instruction: Instruction) -> str:
    return instruction.mnemonic.lower().split(".")[0]


def _register_list(operands: str) -> int:
    inside = operands[operands.find("{") + 1:operands.rfind("}")]
    return sum(2 if name.startswith("d") else 1 for name in (r.strip() for r in inside.split(",")) if name)


def _memory_operand(instruction: Instruction) -> tuple[str, int | None]:
    """The base register of a load/store and, for a PC-relative one, the address it reads."""
    operands = instruction.operands
    if "[" not in operands:
        return ("sp" if mnemonic_base(instruction) in ("push", "pop", "vpush", "vpop") else
                operands.split(",")[0].strip().rstrip("!"), None)
    inside = operands[operands.find("[") + 1:].split("]")[0]
    base = inside.split(",")[0].strip()
    if base == "pc":
        offset = re.search(r"#(-?\d+)", inside)
        return base, ((instruction.address + 4) & ~3) + (int(offset.group(1)) if offset else 0)
    return base, None


def _writes_pc(base: str, instruction: Instruction) -> bool:
    operands = instruction.operands
    if base in ("pop", "ldm", "ldmia", "ldmdb", "ldmfd"):
        return "pc" in operands[operands.find("{"):]
    return operands.split(",")[0].strip() == "pc" and not _STORE.match(base) and base not in ("cmp", "cmn", "tst")


def _arithmetic_cycles(base: str, timing: InorderTiming, narrow_operand: bool = False) -> int:
    core = timing.core
    if _DIVIDE.match(base):
        return 12 if core != "cortex-m0plus" else 1
    if _LONG_MULTIPLY.match(base):
        return (3 if narrow_operand else 5) if core == "cortex-m3" else 1
    if _LONG_ACCUMULATE.match(base):
        return (4 if narrow_operand else 7) if core == "cortex-m3" else 1
    if _MULTIPLY_ACCUMULATE.match(base):
        return 2
    if _MULS.match(base) and core in ("cortex-m0", "cortex-m0plus"):
        return timing.muls_cycles
    if _FP_SLOW.match(base):
        return 14
    if _FP_ACCUMULATE.match(base):
        return 3
    return 1


def access_of(instruction: Instruction, base: str) -> Access | None:
    if _LOAD_MULTIPLE.match(base) or _STORE_MULTIPLE.match(base):
        register, _ = _memory_operand(instruction)
        return Access(_register_list(instruction.operands), bool(_LOAD_MULTIPLE.match(base)), register)
    if _DOUBLE.match(base) or _LOAD.match(base) or _STORE.match(base):
        register, literal = _memory_operand(instruction)
        transfers = 1
        if _DOUBLE.match(base) or (base.startswith("v") and instruction.operands.startswith("d")):
            transfers = 2
        elif base.startswith(("vldr", "vstr", "vld", "vst")) and instruction.operands.startswith("q"):
            transfers = 4  # an MVE vector: 16 bytes
        size = 4
        if base.startswith(("ldrb", "strb", "ldrsb")):
            size = 1
        elif base.startswith(("ldrh", "strh", "ldrsh")):
            size = 2
        return Access(transfers, not base.startswith(("st", "vst")), register, literal, size)
    return None


def branches(instruction: Instruction) -> bool:
    """True if the instruction may change the flow (a branch or a write to PC)."""
    base = mnemonic_base(instruction)
    return bool(_BRANCH.match(base)) or base in ("le", "letp", "wls", "wlstp") or _writes_pc(base, instruction)


_NARROWING = re.compile(rf"^(?:ldrs?[bh]|[su]xt[bh]){_COND}$")


def _track_narrow(narrow: set[str], base: str, instruction: Instruction) -> None:
    """Registers known to hold a sign- or zero-extended byte or halfword: loaded as one, or extended."""
    destination = instruction.operands.split(",")[0].strip()
    if _NARROWING.match(base):
        narrow.add(destination)
    else:
        narrow.discard(destination)


def _narrow_throughout(instructions: Sequence[Instruction]) -> set[str]:
    """Registers the block only ever writes with a byte or halfword: narrow at its entry too when it loops."""
    narrowed: set[str] = set()
    other: set[str] = set()
    for instruction in instructions:
        destination = instruction.operands.split(",")[0].strip()
        (narrowed if _NARROWING.match(mnemonic_base(instruction)) else other).add(destination)
    return narrowed - other


def block_timing(instructions: Sequence[Instruction], timing: InorderTiming) -> BlockTiming:
    """The cycles of one execution of a block on an in-order core."""
    small = timing.core in ("cortex-m0", "cortex-m0plus")
    cycles = 0
    accesses = []
    previous_single: tuple[str, ...] | None = None  # registers loaded by the previous single load/store
    narrow = _narrow_throughout(instructions)  # registers holding a byte or halfword: a long multiply ends early
    taken = 0
    for instruction in instructions:
        base = mnemonic_base(instruction)
        access = access_of(instruction, base)
        single = access is not None and not (_LOAD_MULTIPLE.match(base) or _STORE_MULTIPLE.match(base)
                                             or _DOUBLE.match(base))
        if access is not None:
            accesses.append(access)
            if single:
                pipelined = (not small and previous_single is not None and access.base not in previous_single)
                cycles += 1 if pipelined else 2
            else:
                cycles += 1 + access.transfers
        elif _BRANCH.match(base):
            cycles += 2 if small and base == "bl" else 1
            taken = 1 if small else TAKEN_REFILL + (1 if base.startswith("tb") else 0)
        else:
            sources = [o.strip() for o in instruction.operands.split(",")[2:]]
            cycles += _arithmetic_cycles(base, timing, any(r in narrow for r in sources))
        _track_narrow(narrow, base, instruction)
        if _writes_pc(base, instruction):
            taken = 2 if small else TAKEN_REFILL
        previous_single = None
        if single and access is not None:
            previous_single = tuple(_REGISTER.findall(instruction.operands.split(",")[0])) if access.load else ()
    return BlockTiming(cycles, taken, tuple(accesses))
