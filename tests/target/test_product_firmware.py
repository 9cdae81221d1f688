"""Two models in one Cortex-M firmware (issue 11): a freestanding C++ application (-fno-exceptions -fno-rtti,
newlib only) built with make from the models' generated model.mk fragments, one copy of the kernels, the startup,
UART and exit of runtime_c/ports; under QEMU each model's output equals TFLM's, the application-supplied pool is
refused when too small or misaligned, and the weights of the --weights-section model sit in their section."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest
import serial
from elftools.elf.elffile import ELFFile
from product_models import APP_DIR, EXPECTED_POOL_STATUS, MODELS, generate_models, parse_app_output, tflm_outputs
from target_fixtures import needs_qemu

from firmware_gen.abi import FirmwareExit
from firmware_gen.link.qemu import start_qemu
from firmware_gen.target.boards import load_board
from firmware_gen.target.build_flags import board_flags
from firmware_gen.target.cross_build import PORTS_DIR, port_sources
from firmware_gen.target.linker_script import render_linker_script

from conftest import shared_model

BOARD = "mps2_an386"


@pytest.fixture(scope="module")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("make") is None or shutil.which("arm-none-eabi-g++") is None:
        pytest.skip("make or arm-none-eabi-g++ missing")
    board = load_board(BOARD)
    root = tmp_path_factory.mktemp("product")
    generate_models(root / "models", shared_model)
    script = root / "app.ld"
    script.write_text(render_linker_script(board, rodata_sections=[MODELS["speech"][1].weights_section]))
    ports = port_sources(board)  # startup, cycle counter, exit, the board's UART
    done = subprocess.run(["make", "-s", "-C", str(APP_DIR), f"MODELS={root / 'models'}", f"PORTS={PORTS_DIR}",
                           f"PORT_SRCS={' '.join(map(str, ports))}", f"BOARD_CFLAGS={' '.join(board_flags(board))}",
                           f"LDSCRIPT={script}", f"OUT={root / 'out'}"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return root / "out" / "app.elf"


def _run_on_qemu(elf: Path) -> tuple[int | None, str]:
    received = b""
    with start_qemu(load_board(BOARD), elf, timeout=60) as session:
        session.link.timeout = 0.2
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                received += session.link.read(max(1, session.link.in_waiting))  # what has arrived: none lost at EOF
            except serial.SerialException:  # QEMU exited and closed its end
                break
        status = session.wait(timeout=10)
    return status, received.decode(errors="replace")


@needs_qemu
def test_two_models_cxx_application_bit_exact_on_qemu(firmware: Path) -> None:
    status, text = _run_on_qemu(firmware)
    assert status == FirmwareExit.OK, text
    pool, invoked, outputs = parse_app_output(text)
    assert pool == EXPECTED_POOL_STATUS
    assert invoked == [0, 0]
    assert outputs == tflm_outputs(shared_model)


@needs_qemu
def test_one_runtime_and_the_weights_section(firmware: Path) -> None:
    with firmware.open("rb") as handle:
        elf = ELFFile(handle)
        symbols = [s.name for s in elf.get_section_by_name(".symtab").iter_symbols()]
    assert symbols.count("fg_fully_connected_s8") <= 1  # the kernels once, however many models
    for name in MODELS:
        assert f"{name}_model_invoke" in symbols
    assert not [s for s in symbols if s.startswith("fg_model_")]
