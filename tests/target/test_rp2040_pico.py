"""The Raspberry Pi Pico without the board: the second stage's checksum (the bootrom's CRC32), its place in the
built image and what it does when run from SRAM, the clock and pin set-up against a register-level model of the chip
(tests/target/board_models/), the UF2 file read back, flashing through the RPI-RP2 drive or picotool (a stand-in
script: picotool is not installed here), and what `run` and `flash` say when the board or the tool is missing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import zlib
from pathlib import Path

import pytest
from target_fixtures import FIXTURE_MODEL, needs_cross_gcc

from firmware_gen import cli
from firmware_gen.link import serial_ports, uf2_flashing
from firmware_gen.link.flashing import flash
from firmware_gen.link.serial_ports import BoardPortError, find_board_port
from firmware_gen.link.uf2_flashing import Uf2FlashError, boot_drives
from firmware_gen.resources import RUNTIME_DIR
from firmware_gen.target.boards import BOARDS_DIR, BoardError, load_board
from firmware_gen.target.cross_build import build_firmware
from firmware_gen.target.disassembly import symbol_addresses
from firmware_gen.target.linker_script import render_linker_script
from firmware_gen.target.rp2040_boot2 import boot2_crc, boot2_is_valid
from firmware_gen.target.uf2 import MAGIC_END, MAGIC_START0, MAGIC_START1, Uf2Error, decode_uf2, elf_pages, elf_to_uf2

RP2040_FAMILY = 0xE48BFF56  # the UF2 family id of the RP2040 (UF2 specification's family list, Pico SDK)


def _bit_reversed(value: int, bits: int) -> int:
    return int(f"{value:0{bits}b}"[::-1], 2)


def test_boot2_crc_is_crc32_mpeg2():
    """The datasheet's parameters (2.8.1.3.1): poly 0x04c11db7, no reflection, init 0xffffffff, no final XOR; its
    catalogue check value on b"123456789" is 0x0376E6E7 (CRC-32/MPEG-2)."""
    assert boot2_crc(b"123456789") == 0x0376E6E7
    assert boot2_crc(b"") == 0xFFFFFFFF
    assert boot2_crc(bytes(4)) == 0xC704DD7B  # four zero bytes: the register's own shift of the initial value


def test_boot2_crc_agrees_with_zlib_through_bit_reversal():
    """An independent implementation: zlib's reflected CRC32 over bit-reversed bytes is the non-reflected CRC,
    bit-reversed (both start at 0xffffffff; zlib's final XOR undone)."""
    data = bytes((i * 37 + 11) & 0xFF for i in range(252))
    mirrored = bytes(_bit_reversed(b, 8) for b in data)
    assert boot2_crc(data) == _bit_reversed(zlib.crc32(mirrored) ^ 0xFFFFFFFF, 32)
    # A non-reflected CRC without a final XOR leaves no remainder over the data followed by its CRC, big-endian.
    assert boot2_crc(data + boot2_crc(data).to_bytes(4, "big")) == 0


def test_boot2_validity_check():
    stage = bytes(range(252))
    sealed = stage + boot2_crc(stage).to_bytes(4, "little")
    assert boot2_is_valid(sealed) and boot2_is_valid(sealed + b"more flash")
    assert not boot2_is_valid(stage + boot2_crc(stage).to_bytes(4, "big"))
    assert not boot2_is_valid(bytes([1]) + sealed[1:]) and not boot2_is_valid(sealed[:255])


def test_the_pico_board_file():
    pico = load_board("rp2040_pico")
    assert (pico.core, pico.core_hz, pico.isa.name) == ("cortex-m0plus", 125_000_000, "Armv6-M")
    assert (pico.uart_kind, pico.uart_base, pico.uart_clock_hz) == ("pl011", 0x40034000, 125_000_000)
    sixty_fourths = (4 * pico.uart_clock_hz + pico.uart_baud // 2) // pico.uart_baud  # uart_pl011.c's divisor
    assert divmod(sixty_fourths, 64) == (67, 52)  # IBRD, FBRD
    assert abs(pico.uart_clock_hz * 4 / sixty_fourths / pico.uart_baud - 1) < 0.0001
    assert (pico.boot_stage, pico.flash_method, pico.uf2_family) == ("rp2040", "uf2", RP2040_FAMILY)
    assert pico.estimate_on == "mps2_an385_armv6m" and load_board(pico.estimate_on).core == pico.core
    flash = pico.region_for("code")
    assert (flash.cache, flash.wait_states) == ("all", 384)  # every XIP access a cache hit; a miss stated
    assert sum(r.size for r in pico.regions if r.origin >= 0x20000000) == 264 << 10


def test_the_linker_script_puts_the_second_stage_before_the_vectors():
    script = render_linker_script(load_board("rp2040_pico"))
    assert script.index("KEEP(*(.boot2))") < script.index("KEEP(*(.vectors))")
    assert "__fg_boot2_end - __fg_boot2_start == 256" in script
    assert ".boot2" not in render_linker_script(load_board("nucleo_g071rb"))


@pytest.mark.parametrize(("edit", "message"), [
    (('stage = "rp2040"', 'stage = "nope"'), r"boot.stage 'nope': no .*boot2_nope.c"),
    (("uf2_family = 0xe48bff56", ""), r"uf2 \(and only uf2\) needs flash.uf2_family"),
    (('method = "uf2"', 'method = "dfu"'), r"flash.method must be one of \('pyocd', 'uf2'\)"),
])
def test_a_broken_boot_or_flash_section_is_refused(tmp_path, edit, message):
    path = tmp_path / "pico.toml"
    path.write_text((BOARDS_DIR / "rp2040_pico.toml").read_text().replace(*edit))
    with pytest.raises(BoardError, match=rf"{path}: .*{message}"):
        load_board(str(path))


@pytest.fixture(scope="module")
def pico_build(tmp_path_factory):
    return build_firmware(FIXTURE_MODEL, "rp2040_pico", tmp_path_factory.mktemp("pico"), semihosting=False)


@needs_cross_gcc
def test_the_built_image_starts_with_a_sealed_second_stage(pico_build):
    pages = elf_pages(pico_build.elf, pico_build.board.region_for("code"))
    first = pages[0x10000000]
    assert boot2_is_valid(first)
    vectors = pages[0x10000100]
    stack_top, reset = int.from_bytes(vectors[:4], "little"), int.from_bytes(vectors[4:8], "little")
    assert 0x20000000 < stack_top <= 0x20040000 and stack_top % 8 == 0
    assert 0x10000100 < reset < 0x10000000 + pico_build.flash_bytes and reset & 1  # a Thumb address in flash
    # the literals boot2 reads: the SSI, its 03h XIP command word, the vector table, VTOR
    words = {int.from_bytes(first[i:i + 4], "little") for i in range(0, 252, 4)}
    assert {0x18000000, 0x03000218, 0x180000F4, 0x10000100, 0xE000ED08} <= words


@needs_cross_gcc
def test_the_uf2_file_reads_back_as_the_image(pico_build):
    flash_region = pico_build.board.region_for("code")
    image = elf_to_uf2(pico_build.elf, flash_region, RP2040_FAMILY)
    assert len(image) % 512 == 0 and image[:4] == MAGIC_START0.to_bytes(4, "little")
    assert image[4:8] == MAGIC_START1.to_bytes(4, "little") and image[508:512] == MAGIC_END.to_bytes(4, "little")
    decoded = decode_uf2(image)
    assert decoded.family == RP2040_FAMILY
    assert decoded.pages == elf_pages(pico_build.elf, flash_region)
    assert all(address % 256 == 0 and len(payload) == 256 for address, payload in decoded.pages.items())
    assert boot2_is_valid(decoded.pages[0x10000000])
    assert len(decoded.pages) == -(-pico_build.flash_bytes // 256)  # contiguous from the start of flash
    with pytest.raises(Uf2Error, match="block 1: wrong magic numbers"):
        decode_uf2(image[:512] + bytes(4) + image[516:])
    with pytest.raises(Uf2Error, match="numbered 1 of"):
        decode_uf2(image[512:])


def test_boot_drives_are_found_by_their_info_file(tmp_path):
    drive, other = tmp_path / "RPI RP2", tmp_path / "usb stick"
    for path, info in ((drive, "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"),
                       (other, "something else")):
        path.mkdir()
        (path / "INFO_UF2.TXT").write_text(info)
    table = tmp_path / "mounts"
    table.write_text(f"/dev/sdb1 {str(drive).replace(' ', chr(92) + '040')} vfat rw 0 0\n"
                     f"/dev/sdc1 {str(other).replace(' ', chr(92) + '040')} vfat rw 0 0\nproc /proc proc rw 0 0\n")
    assert boot_drives(table) == [drive]
    assert boot_drives(tmp_path / "no such table") == []


def _fake_picotool(directory, status=0, said=""):
    """A stand-in for picotool on PATH: records its arguments and the file it was given."""
    tool = directory / "picotool"
    tool.write_text(f"#!/bin/sh\necho \"$@\" > {directory}/args\ncp \"$4\" {directory}/loaded.uf2\n"
                    f"echo '{said}' >&2\nexit {status}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return tool


@needs_cross_gcc
def test_flash_copies_onto_the_drive_else_loads_with_picotool(pico_build, tmp_path, monkeypatch):
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("Board-ID: RPI-RP2\n")
    expected = elf_to_uf2(pico_build.elf, pico_build.board.region_for("code"), RP2040_FAMILY)
    monkeypatch.setattr(uf2_flashing, "boot_drives", lambda: [drive])
    used = flash(pico_build.board, pico_build.elf)
    assert (used.description, used.unique_id) == ("its RPI-RP2 drive", str(drive))
    assert (drive / "firmware.uf2").read_bytes() == expected
    monkeypatch.setattr(uf2_flashing, "boot_drives", lambda: [])
    tools = tmp_path / "bin"
    tools.mkdir()
    _fake_picotool(tools)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    used = flash(pico_build.board, pico_build.elf)
    assert used.description == "picotool" and (tools / "args").read_text().startswith("load -v -x ")
    assert (tools / "loaded.uf2").read_bytes() == expected
    _fake_picotool(tools, 1, "No accessible RP2040 devices in BOOTSEL mode were found.")
    with pytest.raises(Uf2FlashError, match=r"\(No accessible RP2040 devices in BOOTSEL mode were found.\): "
                                            r"hold the board's BOOTSEL button"):
        flash(pico_build.board, pico_build.elf)
    monkeypatch.setattr(uf2_flashing, "boot_drives", lambda: [drive, tmp_path])
    with pytest.raises(Uf2FlashError, match="2 RPI-RP2 drives mounted"):
        flash(pico_build.board, pico_build.elf)


def test_cli_flash_without_drive_or_picotool_says_what_to_do_before_building(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(uf2_flashing, "boot_drives", lambda: [])
    monkeypatch.setattr(uf2_flashing, "find_picotool", lambda: None)
    model = tmp_path / "m.tflite"
    model.write_bytes(b"not read: refused before the build")
    assert cli.main(["flash", str(model), "--board", "rp2040_pico"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "needs its RPI-RP2 drive or picotool, and neither is here: hold BOOTSEL while plugging" in err
    assert "apt-get install picotool" in err and "github.com/raspberrypi/picotool" in err


def test_run_without_the_pico_names_its_qemu_stand_in(monkeypatch):
    monkeypatch.setattr(serial_ports.list_ports, "comports", lambda: [])
    with pytest.raises(BoardPortError) as error:
        find_board_port(load_board("rp2040_pico"))
    message = str(error.value)
    assert "no serial port of a Raspberry Pi Debug Probe (UART on GP0/GP1) (USB 2e8a:000c, 2e8a:0004)" in message
    assert "QEMU has no machine of it" in message
    assert "`firmware-gen run MODEL --board mps2_an385_armv6m --cycles` runs the same code with Cortex-M0+ timings" \
        in message


def _run_thumb1(code: bytes, at: int, read_word, limit: int = 64) -> tuple[list[tuple[int, int]], int, int]:
    """Executes the handful of Thumb-1 instructions a second stage needs (LDR literal, MOVS, STR immediate, LDMIA,
    MSR MSP, BX; anything else fails the test), from `at`: the stores it makes, in order, and the MSP and the
    address it branches to. read_word(address) reads memory outside the code."""
    registers, stores, msp, pc = [0] * 8, [], None, at

    def word(address: int) -> int:
        offset = address - at
        return int.from_bytes(code[offset:offset + 4], "little") if 0 <= offset < len(code) else read_word(address)

    for _ in range(limit):
        half = int.from_bytes(code[pc - at:pc - at + 2], "little")
        if half >> 11 == 0b01001:  # LDR Rt, [PC, #imm8 * 4]
            registers[(half >> 8) & 7] = word(((pc + 4) & ~3) + (half & 0xFF) * 4)
        elif half >> 11 == 0b00100:  # MOVS Rd, #imm8
            registers[(half >> 8) & 7] = half & 0xFF
        elif half >> 11 == 0b01100:  # STR Rt, [Rn, #imm5 * 4]
            stores.append((registers[(half >> 3) & 7] + ((half >> 6) & 0x1F) * 4, registers[half & 7]))
        elif half >> 11 == 0b11001:  # LDMIA Rn(!), {list}
            base = registers[(half >> 8) & 7]
            for n, register in enumerate(r for r in range(8) if half & (1 << r)):
                registers[register] = word(base + 4 * n)
        elif half & 0xFFF0 == 0xF380 and int.from_bytes(code[pc - at + 2:pc - at + 4], "little") == 0x8808:
            msp = registers[half & 0xF]  # MSR MSP, Rn
            pc += 2
        elif half & 0xFF87 == 0x4700:  # BX Rm
            return stores, msp, registers[(half >> 3) & 0xF]
        else:
            raise AssertionError(f"0x{pc:08X}: 0x{half:04X} is not an instruction this second stage should use")
        pc += 2
    raise AssertionError(f"no branch out within {limit} instructions")


@needs_cross_gcc
def test_the_second_stage_run_from_sram_sets_up_xip_and_enters_the_image(pico_build):
    """Run where the bootrom runs it (0x20041F00, not where it is linked): position independent, it programs the
    SSI only while the SSI is disabled, and leaves for the image's reset vector with its stack pointer and VTOR."""
    pages = elf_pages(pico_build.elf, pico_build.board.region_for("code"))

    def flash_word(address: int) -> int:
        page = pages[address & ~255]
        return int.from_bytes(page[address & 255:(address & 255) + 4], "little")

    stores, msp, entry = _run_thumb1(pages[0x10000000][:252], 0x20041F00, flash_word)
    ssi = 0x18000000
    assert stores == [(ssi + 0x08, 0), (ssi + 0x14, 4), (ssi + 0x00, (31 << 16) | (3 << 8)),
                      (ssi + 0xF4, (0x03 << 24) | (2 << 8) | (6 << 2)), (ssi + 0x04, 0), (ssi + 0x08, 1),
                      (0xE000ED08, 0x10000100)]  # SSIENR off, BAUDR, CTRLR0, SPI_CTRLR0, CTRLR1, SSIENR on, VTOR
    assert (msp, entry) == (flash_word(0x10000100), flash_word(0x10000104))
    assert entry & 1 and entry - 1 == symbol_addresses(pico_build.elf, ("Reset_Handler",))["Reset_Handler"]


BOARD_MODELS = Path(__file__).resolve().parent / "board_models"


def _run_board_init(tmp_path, source: Path, *defines: str) -> dict[str, str]:
    """board_rp2040_pico.c (or an edited copy) on the host against the chip model: what the model reports."""
    exe = tmp_path / "rp2040_init"
    command = ["gcc", "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME_DIR / 'ports'}",
               f"-I{BOARD_MODELS}", "-include", str(BOARD_MODELS / "rp2040_model.h"),
               "-DREG32(address)=(*fg_model_reg(address))", *defines, str(source),
               str(BOARD_MODELS / "model_rp2040.c"), "-o", str(exe)]
    built = subprocess.run(command, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30, check=True)
    return dict(line.partition(" ")[::2] for line in done.stdout.splitlines())


@pytest.mark.skipif(shutil.which("gcc") is None, reason="host gcc missing")
@pytest.mark.parametrize("start", ["cold", "warm"])
def test_board_init_brings_the_clocks_and_pins_up_in_the_datasheets_order(tmp_path, start):
    """From reset, and from the state a run leaves (clocks on the PLL): clk_sys and clk_peri at the board file's
    125 MHz, clk_ref on the crystal, GP0/GP1 on UART0 with their pads, no step the model calls a misuse."""
    report = _run_board_init(tmp_path, RUNTIME_DIR / "ports" / "board_rp2040_pico.c",
                             *(["-DMODEL_WARM"] if start == "warm" else []))
    pico = load_board("rp2040_pico")
    assert report["misuse"].strip() == ""
    assert int(report["clk_sys"]) == int(report["clk_peri"]) == pico.core_hz == pico.uart_clock_hz
    assert int(report["clk_ref"]) == 12_000_000 and report["resus"] == "0x0"
    assert int(report["resets"], 16) & ((1 << 5) | (1 << 8) | (1 << 12) | (1 << 22)) == 0
    assert report["funcsel"] == "2 2" and report["pads"] == "0x52 0x5A"  # UART; RX pulled up


@pytest.mark.skipif(shutil.which("gcc") is None, reason="host gcc missing")
def test_the_chip_model_names_a_pll_reset_under_clk_sys(tmp_path):
    """Without the first step (clk_sys back to clk_ref), a warm start resets the PLL that clocks the core."""
    text = (RUNTIME_DIR / "ports" / "board_rp2040_pico.c").read_text()
    step = "    select_source(CLK_SYS_CTRL_ADDRESS, CLK_SYS_SELECTED_ADDRESS, CLK_SYS_SRC_CLK_REF);\n"
    assert step in text
    edited = tmp_path / "board_rp2040_pico.c"
    edited.write_text(text.replace(step, ""))
    report = _run_board_init(tmp_path, edited, "-DMODEL_WARM")
    assert "PLL_SYS reset while clk_sys runs from it" in report["misuse"]
