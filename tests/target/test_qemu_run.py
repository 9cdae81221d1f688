"""The profiling firmware under QEMU: outputs, repeatable instruction counts, faults, stalls, no orphan QEMU."""

from __future__ import annotations

import numpy as np
import pytest
from target_fixtures import FIXTURE_MODEL, needs_qemu, no_qemu_left

from firmware_gen.abi import FrameType
from firmware_gen.link.framing import FirmwareFault, Link, LinkError, describe_error, encode_frame
from firmware_gen.link.qemu import start_qemu
from firmware_gen.link.runner import run_model
from firmware_gen.link.session import handshake
from firmware_gen.target.boards import list_boards, load_board
from firmware_gen.target.cross_build import build_firmware

pytestmark = [needs_qemu, pytest.mark.qemu]
INPUT = np.arange(-8, 8, dtype=np.int8).reshape(1, 16)
EXPECTED = (2 * (INPUT.astype(np.int32) + 1)).astype(np.int8)


@pytest.mark.parametrize("board", list_boards(emulated=True))
def test_add_one_model_runs_and_counts_repeatably(tmp_path, board):
    build = build_firmware(FIXTURE_MODEL, board, tmp_path)
    first = run_model(build, [INPUT], timeout=60)
    second = run_model(build, [INPUT.tobytes()], timeout=60)
    assert np.array_equal(first.outputs[0], EXPECTED)
    assert first.exit_code == 0 and first.counter == "systick"
    assert len(first.step_cycles) == 2 and all(t > 0 for t in first.step_cycles)
    assert first.instructions == round(first.total_cycles * load_board(board).instructions_per_tick)
    assert (first.instructions, first.step_cycles) == (second.instructions, second.step_cycles)
    assert 0 < first.stack_bytes_used <= build.stack.thread.bytes  # the high-water mark within the bound
    assert no_qemu_left(build.elf)


def test_wrong_input_size_is_caught_before_qemu(tmp_path):
    build = build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path)
    with pytest.raises(Exception, match="input 0 holds 15 B; the model needs 16 B"):
        run_model(build, [b"\0" * 15])


def test_hard_fault_reports_the_step(tmp_path):
    build = build_firmware(FIXTURE_MODEL, "mps2_an385", tmp_path, extra_cflags=["-DFG_TEST_FAULT_STEP=1"])
    with pytest.raises(FirmwareFault, match=r"HardFault in step 1 at pc 0x[0-9a-f]{8}.*undefined instruction"):
        run_model(build, [INPUT], timeout=60)
    assert no_qemu_left(build.elf)


def test_stack_overflow_is_reported_on_armv8m(tmp_path):
    build = build_firmware(FIXTURE_MODEL, "mps3_an547", tmp_path,
                           extra_cflags=["-DFG_TEST_STACK_OVERFLOW", "-Wno-infinite-recursion"])
    with pytest.raises(FirmwareFault, match=r"in step 0 .*stack overflow \(stack limit reached\)"):
        run_model(build, [INPUT], timeout=60)


def test_stack_overflow_on_armv7m_is_a_clear_error(tmp_path):
    # The Cortex-M3 locks up when the fault entry cannot push onto the overflowed stack: QEMU says so.
    build = build_firmware(FIXTURE_MODEL, "mps2_an385", tmp_path,
                           extra_cflags=["-DFG_TEST_STACK_OVERFLOW", "-Wno-infinite-recursion"])
    with pytest.raises(LinkError, match="locked up"):
        run_model(build, [INPUT], timeout=60)
    assert no_qemu_left(build.elf)


def test_corrupted_input_frame_is_rejected_by_the_firmware(tmp_path):
    build = build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path)
    with start_qemu(build.board, build.elf, timeout=60) as qemu:
        link = Link(qemu.link, stall_timeout=20)
        assert handshake(link).input_bytes == (16,)
        frame = bytearray(encode_frame(FrameType.INPUT, b"\x00" + INPUT.tobytes()))
        frame[10] ^= 0xFF
        link.port.write(bytes(frame))
        reply = link.receive()
        assert reply.type == FrameType.ERROR
        assert "CRC" in describe_error(reply)
        assert qemu.wait(20) == 11  # FG_EXIT_PROTOCOL_ERROR
    assert no_qemu_left(build.elf)


def test_hung_firmware_is_a_stall_and_qemu_is_killed(tmp_path):
    build = build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path, extra_cflags=["-DFG_TEST_HANG"])
    with pytest.raises(LinkError, match="stalled: .*nothing for 2 s|killed at its time limit of 3 s"):
        run_model(build, [INPUT], timeout=3, stall_timeout=2)
    assert no_qemu_left(build.elf)
