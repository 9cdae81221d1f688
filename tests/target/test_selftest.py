"""`firmware-gen selftest` on the QEMU machines: every check passes; and with a board file broken on purpose
(a wrong UART base, a RAM region larger than the machine has, DSP claimed on a Cortex-M3) the named check fails
and the command exits 1."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from target_fixtures import needs_qemu

from firmware_gen import cli
from firmware_gen.abi import Feature, FrameType
from firmware_gen.check.selftest import claimed_features, selftest
from firmware_gen.link.framing import Frame
from firmware_gen.link.selftest import ECHO_SIZES, check_uart, echo_payload
from firmware_gen.target.boards import BOARDS_DIR, list_boards, load_board

QEMU_BOARDS = ["microbit", "mps2_an385", "mps2_an385_armv6m", "mps2_an386", "mps2_an500", "mps2_an521",
               "mps3_an547", "qemu_cortex_m3"]
FEATURES = {"microbit": [], "mps2_an385_armv6m": [], "qemu_cortex_m3": [], "mps2_an385": [],
            "mps2_an386": ["fpu", "dsp"], "mps2_an500": ["fpu", "dsp"], "mps2_an521": ["fpu", "dsp"],
            "mps3_an547": ["fpu", "dsp", "mve"]}


@pytest.fixture(scope="module", params=QEMU_BOARDS)
def report(request):
    """One self-test run per board (build + QEMU), shared by the assertions below."""
    return selftest(request.param)


def test_the_qemu_boards_are_these():
    assert list_boards(emulated=True) == QEMU_BOARDS


class _EchoLink:
    """Answers each ECHO_REQUEST, after a HELLO the first time: the answer to a second HELLO_REQUEST that a slow
    start made the handshake send, still queued in the firmware when the first ECHO_REQUEST arrives."""

    def __init__(self):
        self.queue = [Frame(FrameType.HELLO, bytes(12))]

    def send(self, frame_type, payload):
        self.queue.append(Frame(FrameType.ECHO, payload))

    def receive(self, wait=None):
        return self.queue.pop(0)


def test_a_repeated_hello_before_the_first_echo_is_skipped():
    session = SimpleNamespace(link=_EchoLink())
    [result] = check_uart(session, load_board("mps2_an521"), 115200)
    assert result.status == "pass", result.value


def test_echo_frames_cover_every_size_class_and_byte_value():
    assert ECHO_SIZES[0] == 1 and ECHO_SIZES[-1] == 4096 and {31, 32, 33, 4095} <= set(ECHO_SIZES)
    assert set(echo_payload(256)) == set(range(256))


def test_claimed_features_follow_the_board_files():
    for name, features in FEATURES.items():
        assert [f.name.lower() for f in claimed_features(load_board(name))] == features
    assert claimed_features(load_board("nucleo_f746zg")) == [Feature.FPU, Feature.DSP]


@needs_qemu
def test_every_check_passes(report):
    assert report.passed, report.format()
    board = load_board(report.board)
    names = [c.name for c in report.checks]
    ram = [f"memory {r.name}" for r in board.regions if not set(r.holds) & {"code", "rodata"}]
    assert names == ["uart", "counter", "clock", *ram, *FEATURES[report.board], "end"]
    status = {c.name: c.status for c in report.checks}
    assert status.pop("clock") == "info"  # under QEMU the clock is reported, not judged
    assert set(status.values()) == {"pass"}


@needs_qemu
def test_measured_values_are_reported(report):
    checks = {c.name: c for c in report.checks}
    assert checks["uart"].data["frames"] == len(ECHO_SIZES) and checks["uart"].data["bytes_per_second"] > 0
    assert checks["counter"].data["counter"] == "systick"  # QEMU has no DWT cycle counter
    assert checks["clock"].data["measured_hz"] > 0 and checks["clock"].data["expected_hz"] == load_board(
        report.board).systick_hz
    for check in checks.values():
        if check.name.startswith("memory"):
            # all but what the self-test holds itself: its stack (4 KiB on the micro:bit) and 4 KiB frame buffer
            region = check.data["region_bytes"]
            assert min(0.8 * region, region - 9216) < check.data["tested_bytes"] <= region
    lines = report.format().splitlines()
    assert lines[-1] == "all checks passed" and len(lines) == len(report.checks) + 2


def _broken(tmp_path, board: str, *edits: tuple[str, str]) -> str:
    """A copy of the board file with each (pattern, replacement) applied once."""
    text = (BOARDS_DIR / f"{board}.toml").read_text()
    for old, new in edits:
        assert re.search(old, text, re.MULTILINE)
        text = re.sub(old, new, text, count=1, flags=re.MULTILINE)
    path = tmp_path / f"broken_{board}.toml"
    path.write_text(text)
    return str(path)


@needs_qemu
def test_a_wrong_uart_base_fails_the_uart_check(tmp_path, capsys):
    board = _broken(tmp_path, "mps2_an385", (r"^base = 0x40004000", "base = 0x40FF0000"))
    assert cli.main(["selftest", "--board", board]) == 1
    out = capsys.readouterr().out
    assert re.search(r"FAIL  uart +no link with the self-test firmware: .*check \[uart\] kind, base", out)
    assert "SKIP  end" in out and "PASS" not in out


@needs_qemu
def test_a_ram_region_larger_than_the_machine_fails_the_memory_check(tmp_path, capsys):
    board = _broken(tmp_path, "qemu_cortex_m3", (r"^size = 0x10000 .*$", "size = 0x20000"))  # SRAM: 128 KiB
    assert cli.main(["selftest", "--board", board]) == 1
    out = capsys.readouterr().out
    assert re.search(r"FAIL  memory SRAM +0x20000000\.\.0x2001FFFF: the word at 0x2001", out)
    assert "PASS  uart" in out and "PASS  end" in out


@needs_qemu
def test_dsp_claimed_on_a_cortex_m3_fails_the_dsp_check(tmp_path, capsys):
    """The loader refuses features = ["dsp"] on a cortex-m3: the file calls the core an M4, QEMU runs an M3."""
    board = _broken(tmp_path, "qemu_cortex_m3", (r'^core = "cortex-m3"', 'core = "cortex-m4"'),
                    (r"^features = \[\]", 'features = ["dsp"]'))
    assert cli.main(["selftest", "--board", board, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    status = {c["check"]: c for c in data["checks"]}
    assert not data["passed"] and status["dsp"]["status"] == "fail"
    assert "undefined instruction" in status["dsp"]["value"]
    assert status["end"]["status"] == "pass"  # the checks after the fault ran in a new session


def test_selftest_of_an_unknown_board_is_a_user_error(capsys):
    assert cli.main(["selftest", "--board", "no_such_board"]) == 2
    assert "unknown board 'no_such_board'" in capsys.readouterr().err
