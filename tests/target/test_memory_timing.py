"""Where a block's data accesses are placed (target/memory_timing.access_places): pure, no QEMU."""

from __future__ import annotations

from target_fixtures import with_flash_wait_states

from firmware_gen.target.disassembly import Instruction
from firmware_gen.target.memory_timing import MemoryTiming, access_places

SRAM = 0x20000400


def _places(lines: list[tuple[str, str]], entry: dict[str, int]) -> list[tuple[str | None, int | None]]:
    memory = MemoryTiming(with_flash_wait_states("mps2_an386").regions, "SRAM", "SRAM", "code SRAM as a 5-ws flash")
    block = [Instruction(0x2000 + 4 * n, mnemonic, operands) for n, (mnemonic, operands) in enumerate(lines)]
    return [(region.name if region else None, address) for region, address in access_places(block, entry, memory)]


def test_an_offset_added_to_a_pointer_is_not_the_pointer() -> None:
    """A stride of 32 is an address in a flash at 0 too: the tile store's `add r10, r2` once charged its byte stores
    through r10 as flash reads (test_ram_weights' all-in-RAM firmware kept 430 wait cycles)."""
    lines = [("add.w", "r11, r2, r10, lsl #1"), ("add", "r10, r2"), ("strb.w", "r5, [r10]"),
             ("strb.w", "r6, [r11]")]
    assert _places(lines, {"r2": SRAM, "r10": 32}) == [("SRAM", SRAM), ("SRAM", SRAM)]


def test_a_pointer_into_flash_is_followed_through_an_addition() -> None:
    lines = [("adds", "r6, r5, #4"), ("add", "r7, r6, r1"), ("ldr", "r3, [r7]")]
    assert _places(lines, {"r5": 0x1000, "r1": 16}) == [("code SRAM", 0x1000)]
