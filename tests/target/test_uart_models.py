"""The real boards' UART drivers on the host, against register-level models of their peripherals
(tests/target/uart_models/): the end of a run requests the reset only after the transmission-complete event that
follows the last byte (STM32 and Kinetis TC, RA8 SCI_B TEND, PL011 BUSY clear; nRF UARTE TXSTOPPED, not ENDTX, which
fires as the last byte starts), every byte of the last frames reaches the line intact, and init programs the registers
the board files describe."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_gen.abi import FrameType
from firmware_gen.link.framing import encode_frame
from firmware_gen.resources import RUNTIME_DIR
from firmware_gen.target.boards import load_board
from firmware_gen.target.build_flags import board_flags

MODELS = Path(__file__).resolve().parent / "uart_models"
BOARD_OF_KIND = {"nrf_uarte": "nrf52840dk", "stm32_usart": "nucleo_f746zg", "kinetis_uart": "frdm_k64f",
                 "renesas_sci_b": "ek_ra8d1", "pl011": "rp2040_pico"}
ACCESSORS = {"nrf_uarte": ["-DUART_REG(offset)=(*fg_model_reg32(offset))",
                           "-DGPIO_P0_REG(offset)=(*fg_model_gpio_reg32(offset))"],
             "stm32_usart": ["-DUART_REG(offset)=(*fg_model_reg32(offset))"],
             "kinetis_uart": ["-DUART_REG8(offset)=(*fg_model_reg8(offset))"],
             "renesas_sci_b": ["-DUART_REG(offset)=(*fg_model_reg32(offset))"],
             "pl011": ["-DUART_REG(offset)=(*fg_model_reg32(offset))"]}
# The frames end_of_run.c sends: OUTPUT of 71 bytes (i * 37 + 1), DONE(0).
EXPECTED_LINE = (encode_frame(FrameType.OUTPUT, bytes((i * 37 + 1) & 0xFF for i in range(71)))
                 + encode_frame(FrameType.DONE, bytes(4)))

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="host gcc missing")


def run_end_of_run(kind: str, tmp_path: Path, *extra: str, board_name: str | None = None) -> dict[str, str]:
    """end_of_run.c with the board's driver and its peripheral's model, built for the host and run: its report."""
    board = load_board(board_name or BOARD_OF_KIND[kind])
    defines = [flag for flag in board_flags(board) if flag.startswith("-DFG_UART")]
    exe = tmp_path / f"end_of_run_{kind}"
    sources = [MODELS / "end_of_run.c", MODELS / "uart_model_common.c", MODELS / f"model_{kind}.c",
               RUNTIME_DIR / "ports" / f"uart_{kind}.c", RUNTIME_DIR / "firmware" / "fg_link.c"]
    # -no-pie: EasyDMA pointer registers are 32 bits, so the driver's buffers must sit below 4 GiB on the host.
    command = ["gcc", "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-no-pie", "-fno-pie",
               f"-I{RUNTIME_DIR / 'ports'}", f"-I{RUNTIME_DIR / 'firmware'}", f"-I{MODELS}",
               "-include", str(MODELS / "uart_model.h"), *defines, *ACCESSORS[kind], *extra,
               *map(str, sources), "-o", str(exe)]
    built = subprocess.run(command, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30, check=True)
    return dict(line.partition(" ")[::2] for line in done.stdout.splitlines())


@needs_gcc
@pytest.mark.parametrize("kind", list(BOARD_OF_KIND))
def test_reset_comes_after_the_last_bytes_transmission_complete_event(kind, tmp_path):
    report = run_end_of_run(kind, tmp_path)
    assert report["misuse"].strip() == ""
    assert bytes.fromhex(report["line"]) == EXPECTED_LINE  # the DONE frame's CRC arrived whole
    assert report["cut"] == "0" and report["reset"] == "1"
    last_byte, complete, reset = (int(report[k]) for k in ("last_byte_at", "complete_event_at", "reset_at"))
    assert 0 < last_byte <= complete <= reset


@needs_gcc
@pytest.mark.parametrize("kind", list(BOARD_OF_KIND))
def test_a_reset_without_the_flush_cuts_the_last_byte(kind, tmp_path):
    """What the nRF driver's empty fg_uart_flush did: the model sees the reset while the CRC's last byte is out."""
    report = run_end_of_run(kind, tmp_path, "-DMODEL_SKIP_FLUSH")
    assert int(report["cut"]) >= 1
    assert bytes.fromhex(report["line"]) == EXPECTED_LINE[:len(bytes.fromhex(report["line"]))] != EXPECTED_LINE


def _config(report: dict[str, str]) -> dict[str, int]:
    return {name: int(value, 16) for name, _, value in (item.partition("=") for item in report["config"].split())}


@needs_gcc
def test_init_programs_the_registers_of_the_board_files(tmp_path):
    nrf = _config(run_end_of_run("nrf_uarte", tmp_path))
    assert nrf["BAUDRATE"] == 0x01D60000  # the UARTE's 115200, not the legacy UART's 0x01D7E000
    assert (nrf["PSEL.TXD"], nrf["PSEL.RXD"], nrf["PSEL.RTS"]) == (6, 8, 0xFFFFFFFF)
    assert nrf["OUT"] & (1 << 6) and nrf["OUT"] & (1 << 5)  # TX idles high; P0.05 (RTS to the OB's CTS) high
    assert nrf["PIN_CNF[5]"] & 1 and nrf["PIN_CNF[6]"] & 1  # both outputs
    assert nrf["PIN_CNF[8]"] == 0xC  # RX: input, buffer connected, pull-up
    stm32 = _config(run_end_of_run("stm32_usart", tmp_path))
    assert stm32["BRR"] == 139 and stm32["CR1"] & 0xD == 0xD  # UE, TE, RE
    kinetis = _config(run_end_of_run("kinetis_uart", tmp_path))
    assert (kinetis["SBR"], kinetis["BRFA"]) == (11, 12) and kinetis["C2"] & 0xC == 0xC
    nrf53 = _config(run_end_of_run("nrf_uarte", tmp_path, board_name="nrf5340dk"))
    assert (nrf53["PSEL.TXD"], nrf53["PSEL.RXD"], nrf53["BAUDRATE"]) == (20, 22, 0x01D60000)
    assert nrf53["OUT"] & (1 << 20) and nrf53["OUT"] & (1 << 19) and nrf53["PIN_CNF[22]"] == 0xC
    sci = _config(run_end_of_run("renesas_sci_b", tmp_path))
    assert sci["CCR2"] == (236 << 24) | (1 << 16) | (7 << 8) | 0x30  # MDDR 236, BRME, BRR 7, ABCS and BGDM
    assert sci["CCR3"] == 0x1200 and sci["CCR0"] == 0x11  # 8 bits, LSB first, asynchronous; TE, RE
    pl011 = _config(run_end_of_run("pl011", tmp_path))
    assert (pl011["IBRD"], pl011["FBRD"]) == (67, 52)  # 125 MHz / (16 x 115200) = 67 + 52/64, latched by LCR_H
    assert pl011["LCR_H"] == 0x70 and pl011["CR"] == 0x301  # 8 bits, FIFOs on; UARTEN, TXE, RXE


def test_fg_exit_on_a_real_board_flushes_before_it_requests_the_reset():
    """The order the models check is the one fg_exit has: flush, then SYSRESETREQ."""
    text = (RUNTIME_DIR / "ports" / "semihosting.c").read_text()
    branch = text[text.index("#ifdef FG_NO_SEMIHOSTING"):text.index("#else")]
    assert branch.index("fg_uart_flush();") < branch.index("AIRCR = AIRCR_VECTKEY | AIRCR_SYSRESETREQ;")
