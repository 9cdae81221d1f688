"""The instructions of an ELF, by address, as LLVM writes them (llvm-objdump of Debian's llvm-19): the syntax
llvm-mca reads back, and one spelling for the in-order timing tables."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from firmware_gen.errors import ToolchainError

LLVM_BIN = Path("/usr/lib/llvm-19/bin")
LLVM_HINT = "apt-get install --no-install-recommends llvm-19"
# The triple whose instruction set each core executes (llvm-objdump and llvm-mca take the core with -mcpu).
CORE_TRIPLES = {
    "cortex-m0": "thumbv6m-none-eabi",
    "cortex-m0plus": "thumbv6m-none-eabi",
    "cortex-m3": "thumbv7m-none-eabi",
    "cortex-m4": "thumbv7em-none-eabi",
    "cortex-m7": "thumbv7em-none-eabi",
    "cortex-m33": "thumbv8m.main-none-eabi",
    "cortex-m55": "thumbv8.1m.main-none-eabi",
    "cortex-m85": "thumbv8.1m.main-none-eabi",
}
_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*([^@]*)")
_TARGET = re.compile(r"0x[0-9a-f]+ <[^>]*>")


@dataclass(frozen=True)
class Instruction:
    address: int
    mnemonic: str  # as written, with condition and width suffixes ("ldr.w", "bne", "vldrb.u8")
    operands: str  # a branch's target is written "target" (llvm-mca reads any label)


def llvm_tool(name: str) -> str:
    path = LLVM_BIN / name
    if path.is_file():
        return str(path)
    found = shutil.which(f"{name}-19")
    if found is None:
        raise ToolchainError(f"{name} (LLVM 19) not found: {LLVM_HINT}")
    return found


def disassemble(elf: Path, core: str) -> dict[int, Instruction]:
    """Every instruction of the ELF's executable sections, by address."""
    if core not in CORE_TRIPLES:
        raise ToolchainError(f"no instruction set known for core '{core}'")
    command = [llvm_tool("llvm-objdump"), "-d", "--no-show-raw-insn", "--no-print-imm-hex",
               f"--triple={CORE_TRIPLES[core]}", f"--mcpu={core}", str(elf)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ToolchainError(f"llvm-objdump failed on {elf}: {done.stderr.strip()[:300]}")
    instructions = {}
    for line in done.stdout.splitlines():
        match = _LINE.match(line)
        if match is None or match.group(2).startswith("<") or match.group(2) == "file":
            continue
        address = int(match.group(1), 16)
        operands = _TARGET.sub("target", match.group(3).strip())
        instructions[address] = Instruction(address, match.group(2), operands)
    return instructions


def symbol_addresses(elf: Path, names: tuple[str, ...]) -> dict[int | str, int]:
    """The addresses of the named functions (Thumb bit cleared); a missing one is an error."""
    found: dict[int | str, int] = {}
    with elf.open("rb") as file:
        for section in ELFFile(file).iter_sections():
            if isinstance(section, SymbolTableSection):
                for symbol in section.iter_symbols():
                    if symbol.name in names and symbol["st_info"]["type"] == "STT_FUNC":
                        found[symbol.name] = symbol["st_value"] & ~1
    missing = [n for n in names if n not in found]
    if missing:
        raise ToolchainError(f"{elf}: no function {', '.join(missing)} in its symbol table")
    return found
