"""The real-board serial path, end to end, against QEMU through a real pseudo-terminal.

QEMU runs the real-board build (no semihosting: the run ends with a UART drain and a system reset) with its UART
on `-serial pty`, held at reset (-S) until the test has opened the pty, then resumed over QMP: nothing the
firmware sends can be lost before a reader exists. The command line then talks to /dev/pts/N exactly as to a
board's /dev/ttyACM0. The reset pauses QEMU (-action reboot=shutdown,shutdown=pause) instead of ending it: an
exiting QEMU closes the pty, and Linux may drop the last bytes still unread on it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial
from target_fixtures import needs_qemu, no_qemu_left

from firmware_gen import cli
from firmware_gen.cli.common import deploy as cli_deploy
from firmware_gen.driver import deploy
from firmware_gen.link.qemu import QEMU, kill_process_group, qemu_command
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen import zoo
from firmware_gen.target.boards import load_board

pytestmark = [needs_qemu, pytest.mark.qemu]
BOARD = "mps2_an385"
PTY_LINE = re.compile(r"char device redirected to (/dev/pts/\d+)")


def _pty_command(elf: Path, qmp_socket: Path) -> list[str]:
    command = qemu_command(load_board(BOARD), elf, 0)
    command[0] = shutil.which(QEMU)
    serial_at = command.index("-serial")
    command[serial_at + 1] = "pty"
    return ["timeout", "-s", "KILL", "120", *command, "-S", "-action", "reboot=shutdown,shutdown=pause",
            "-qmp", f"unix:{qmp_socket},server=on,wait=off"]


def _qmp(qmp_socket: Path, command: str) -> dict:
    """One QMP command on a fresh connection (greeting, capabilities, command): its "return" value."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as qmp:
        qmp.settimeout(10)
        qmp.connect(str(qmp_socket))
        reader = qmp.makefile("rb")
        assert b"QMP" in reader.readline()
        for execute in ("qmp_capabilities", command):
            qmp.sendall(json.dumps({"execute": execute}).encode() + b"\n")
            while b'"return"' not in (answer := reader.readline()):
                assert answer and b'"error"' not in answer, answer
        return json.loads(answer)["return"]


@contextlib.contextmanager
def qemu_on_a_pty(elf: Path, scratch: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    """QEMU held at reset with its UART on a pty: (process, /dev/pts/N); always killed afterwards."""
    log = scratch / "qemu.log"
    qmp_socket = scratch / "qmp.sock"
    with log.open("wb") as log_file:
        process = subprocess.Popen(_pty_command(elf, qmp_socket), stdin=subprocess.DEVNULL, stdout=log_file,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 15
        while not (found := PTY_LINE.search(log.read_text(errors="replace"))) or not qmp_socket.exists():
            assert process.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.05)
        yield process, found[1]
    finally:
        kill_process_group(process)


def test_validate_through_a_pty_is_the_real_board_path(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = tmp_path / "every_op.tflite"
    model.write_bytes(zoo.every_op())
    argv = ["validate", str(model), "--board", BOARD, "--port", "PTY"]
    # The same preparation the command does (a real-board build: --port given), to hand its image to QEMU.
    args = cli.build_parser().parse_args(argv)
    _, deployment, _ = cli_deploy(args, args.port)
    elf = deployment.firmware.elf
    assert "bkpt" not in subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True,
                                        text=True).stdout
    with qemu_on_a_pty(elf, tmp_path) as (process, pty):
        holder = serial.Serial(pty, 115200, timeout=0)  # keeps the pty's far end open from the start
        try:
            _qmp(tmp_path / "qmp.sock", "cont")
            status = cli.main([*argv[:-1], pty, "--json"])
        finally:
            holder.close()
        captured = capsys.readouterr()
        assert status == 0, captured.err
        report = json.loads(captured.out)
        assert report["bit_exact"] and report["outputs_compared"] == 1
        # The firmware ended like on a board: UART drained, then SYSRESETREQ, which paused QEMU.
        deadline = time.monotonic() + 30
        while (state := _qmp(tmp_path / "qmp.sock", "query-status"))["status"] != "shutdown":
            assert time.monotonic() < deadline and process.poll() is None, state
            time.sleep(0.1)
    assert no_qemu_left(elf)


def test_silent_pty_when_qemu_stays_halted(tmp_path, monkeypatch, capsys):
    """QEMU never resumed (-S): the port opens but nobody answers: the silent-board error, with its hint."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = tmp_path / "tiny.tflite"
    model.write_bytes(zoo.tiny_cnn())
    argv = ["run", str(model), "--board", BOARD, "--port", "PTY"]
    args = cli.build_parser().parse_args(argv)
    _, deployment, _ = cli_deploy(args, args.port)
    with qemu_on_a_pty(deployment.firmware.elf, tmp_path) as (_, pty):
        monkeypatch.setattr(deploy, "run_model", functools.partial(run_model, stall_timeout=1.0))
        assert cli.main([*argv[:-1], pty]) == 2
    error = capsys.readouterr().err
    assert "did not answer HELLO_REQUEST" in error and f"{BOARD} on {pty} stayed silent at 115200 baud" in error
