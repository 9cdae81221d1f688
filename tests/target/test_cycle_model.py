"""The cycle estimate against the cycle counts the Technical Reference Manuals state, one snippet per timing rule.

Every snippet runs inline in one small image per core under QEMU, traced, between calls to `seg_start` and
`seg_stop` (a segment of the trace each); the estimator gives each segment's cycles, and the cost of an empty
segment (the two calls) is subtracted. Deterministic: the estimate is a function of the trace."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_gen.errors import ToolchainError
from firmware_gen.link.exec_trace import Markers, run_traced
from firmware_gen.link.register_sample import sample_run
from firmware_gen.target.boards import MemoryRegion
from firmware_gen.target.cycle_model import TimingError, blocks_to_sample, check_core, estimate_cycles
from firmware_gen.target.disassembly import LLVM_BIN, symbol_addresses
from firmware_gen.target.memory_timing import MemoryTiming

pytestmark = pytest.mark.skipif(not (LLVM_BIN / "llvm-mca").is_file() or shutil.which("qemu-system-arm") is None
                                or shutil.which("arm-none-eabi-gcc") is None,
                                reason="needs llvm-19 (llvm-objdump, llvm-mca), qemu-system-arm, arm-none-eabi-gcc")

# name -> (assembly, cycles the TRM states for it on the core of the image)
M4_RULES = {
    "alu": ("adds r0, r0, #1\n" * 8, 8),
    "loads pipeline": ("ldr r1, [r2]\nldr r3, [r2, #4]\nldr r4, [r2, #8]\n", 2 + 1 + 1),
    "dependent load does not pipeline": ("ldr r1, [r2]\nldr r3, [r1]\n", 2 + 2),
    "ldm 1+N": ("ldm r2, {r3, r4, r5, r6}\n", 1 + 4),
    "push pop 1+N": ("push {r4, r5, r6}\npop {r4, r5, r6}\n", 2 * (1 + 3)),
    "taken branch 1+P": ("movs r0, #4\n1: subs r0, r0, #1\nbne 1b\n", 1 + 4 + 3 * (1 + 2) + 1),
    "long multiply (M4: 1)": ("smull r0, r1, r2, r3\numlal r0, r1, r2, r3\n", 1 + 1),
    "mla 2": ("mla r0, r1, r2, r3\n", 2),
    "divide 2..12 (12 assumed)": ("udiv r0, r1, r2\n", 12),
    "literal load pays flash wait states": ("ldr r0, =0x12345678\n", 2 + 3),
    "load through a pointer into flash pays them": ("ldr r3, [r5]\n", 2 + 3),
    "the pointer followed through an addition": ("adds r6, r5, #4\nldr r3, [r6]\n", 1 + 2 + 3),
    "load through a pointer into SRAM does not": ("ldr r3, [r2]\n", 2),
}
# QEMU ends a block at a 1 KiB page boundary and gives an instruction across one a block of its own; silicon
# has no such cut: loads still pipeline across it.
PAGE_RULES = {
    "loads pipeline across a page boundary": ("b.w 1f\n.balign 1024\n.space 1022\n1: ldr r1, [r2]\n"
                                              "ldr r3, [r2, #4]\nldr r4, [r2, #8]\n", 1 + 2 + 2 + 1 + 1),
    "and past an instruction across one": ("b.w 1f\n.balign 1024\n.space 1020\n1: ldr r1, [r2]\n"
                                           "ldr.w r3, [r2, #4]\nldr r4, [r2, #8]\n", 1 + 2 + 2 + 1 + 1),
}
M3_RULES = {"long multiply (M3: 5 and 7, full operands)": ("smull r0, r1, r2, r3\numlal r0, r1, r2, r3\n", 5 + 7),
            "long multiply by a byte ends early (3 and 4)": ("ldrsb r3, [r2]\nsmull r0, r1, r4, r3\n"
                                                             "smlal r0, r1, r3, r4\n", 2 + 3 + 4)}
M0_RULES = {
    "muls": ("muls r0, r1, r0\n", 32),  # the small multiplier, by the image's timing option
    "load 2, no pipelining": ("ldr r1, [r2]\nldr r3, [r2, #4]\n", 2 + 2),
    "branch taken 2": ("movs r0, #3\n1: subs r0, r0, #1\nbne 1b\n", 1 + 3 + 2 * 2 + 1),
}
FLASH_WAITS = 3


def _image(tmp_path: Path, cpu: str, rules: dict[str, tuple[str, int]]) -> Path:
    segments = "".join(f"bl seg_start\n{code}bl seg_stop\n" for code, _ in [("", 0), *rules.values()])
    source = tmp_path / f"{cpu}.S"
    source.write_text(f""".syntax unified
.thumb
.section .text
.word 0x20008000
.word _start + 1
.thumb_func
.global _start
_start:
    ldr r2, =data
    ldr r5, =flash_data
    bl bench_all
    bl bench_done
.ltorg
.thumb_func
bench_all:
    push {{lr}}
    {segments}
    pop {{pc}}
.thumb_func
seg_start:
    bx lr
.thumb_func
seg_stop:
    bx lr
.thumb_func
bench_done:
    movs r0, #0x18
    ldr r1, =0x20026
    bkpt 0xab
.ltorg
.align 2
flash_data: .word 1, 2, 3, 4
.section .data
.align 2
data: .word data, 2, 3, 4, 5, 6
""")
    elf = tmp_path / f"{cpu}.elf"
    subprocess.run(["arm-none-eabi-gcc", f"-mcpu={cpu}", "-mthumb", "-nostdlib", "-nostartfiles", "-Wl,-Ttext=0",
                    "-Wl,-Tdata=0x20000000", "-o", str(elf), str(source)], check=True, capture_output=True)
    return elf


def _segment_cycles(elf: Path, machine: str, core: str, muls_cycles: int = 1) -> list[float]:
    found = symbol_addresses(elf, ("bench_all", "bench_done", "seg_start", "seg_stop"))
    command = ["qemu-system-arm", "-M", machine, "-nographic", "-monitor", "none", "-serial", "null", "-icount",
               "shift=0", "-semihosting-config", "enable=on,target=native", "-kernel", str(elf)]
    counts, _ = run_traced(command, Markers(found["bench_all"], found["bench_done"], found["seg_start"],
                                            found["seg_stop"]), timeout=60)
    memory = MemoryTiming((MemoryRegion("flash", 0, 0x400000, ("code",), FLASH_WAITS, "fetch"),
                           MemoryRegion("SRAM", 0x20000000, 0x400000, ("pool", "stack"), 0)),
                          "SRAM", "SRAM", "test: flash 3 ws (fetch hidden), SRAM 0 ws")
    samples = sample_run(command, blocks_to_sample(counts, elf, core), timeout=60)  # where pointers point
    estimate = estimate_cycles(counts, elf, core, memory, muls_cycles=muls_cycles, samples=samples)
    cycles = [estimate.segments[n] for n in range(len(estimate.segments))]
    return [c - cycles[0] for c in cycles[1:]]


@pytest.mark.parametrize(("cpu", "machine", "core", "rules", "muls"), [
    ("cortex-m4", "mps2-an386", "cortex-m4", M4_RULES, 1),
    ("cortex-m4", "mps2-an386", "cortex-m4", PAGE_RULES, 1),
    ("cortex-m3", "mps2-an385", "cortex-m3", M3_RULES, 1),
    ("cortex-m0plus", "mps2-an385", "cortex-m0plus", M0_RULES, 32),  # an M3 runs Armv6-M code unchanged
])
def test_trm_rules(tmp_path: Path, cpu: str, machine: str, core: str, rules: dict, muls: int) -> None:
    got = _segment_cycles(_image(tmp_path, cpu, rules), machine, core, muls)
    assert dict(zip(rules, got, strict=True)) == {name: cycles for name, (_, cycles) in rules.items()}


def test_m7_dual_issue_from_llvm_mca(tmp_path: Path) -> None:
    rules = {"independent pairs": ("add r0, r0, #1\nadd r1, r1, #1\n" * 4, 0), "chain": ("add r0, r0, #1\n" * 8, 0)}
    pairs, chain = _segment_cycles(_image(tmp_path, "cortex-m7", rules), "mps2-an500", "cortex-m7")
    assert pairs < chain  # eight instructions: paired by the M7's dual issue, a dependent chain not


def test_unknown_core_refused_in_one_line() -> None:
    with pytest.raises(TimingError) as refused:
        check_core("cortex-m23", "boards/x.toml")
    assert "boards/x.toml" in str(refused.value) and "cortex-m23" in str(refused.value)
    assert "\n" not in str(refused.value)


def test_trace_cut_short_gives_no_estimate(tmp_path: Path) -> None:
    elf = _image(tmp_path, "cortex-m4", {"alu": ("adds r0, r0, #1\n", 1)})
    found = symbol_addresses(elf, ("bench_all", "seg_stop"))
    command = ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none", "-serial", "null",
               "-icount", "shift=0", "-kernel", str(elf)]  # no semihosting: bkpt stops QEMU with an error
    with pytest.raises(ToolchainError, match="no cycle estimate"):
        run_traced(command, Markers(found["bench_all"], found["seg_stop"] + 0x100000), timeout=20)
