"""The host side of the serial protocol, against scripted byte streams (no QEMU)."""

from __future__ import annotations

import struct
import time

import pytest

from firmware_gen.abi import FRAME_MAGIC, FrameType
from firmware_gen.link.framing import FirmwareFault, Link, LinkError, LinkStalled, decode_fault, encode_frame
from firmware_gen.link.runner import exchange
from firmware_gen.link.session import handshake
from firmware_gen.manifest import ModelInterface, TensorSpec


class ScriptedPort:
    """A serial port whose incoming bytes are fixed in advance; what the host writes is recorded."""

    def __init__(self, incoming: bytes) -> None:
        self.incoming = bytearray(incoming)
        self.written = bytearray()
        self.timeout = 0.05
        self.write_timeout = None

    def read(self, size: int) -> bytes:
        if not self.incoming:
            time.sleep(self.timeout)
        chunk = bytes(self.incoming[:size])
        del self.incoming[:size]
        return chunk

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def flush(self) -> None:
        pass


def link_over(incoming: bytes, stall: float = 0.3) -> Link:
    return Link(ScriptedPort(incoming), stall_timeout=stall)  # type: ignore[arg-type]


def test_frame_round_trip_skipping_noise():
    frame = link_over(b"boot banner\r\n" + encode_frame(FrameType.DONE, b"\0\0\0\0")).receive()
    assert (frame.type, frame.payload) == (FrameType.DONE, b"\0\0\0\0")


def test_frame_layout():
    data = encode_frame(FrameType.INPUT, b"\x00abc")
    assert data[:2] == FRAME_MAGIC and data[2] == 0x11 and struct.unpack("<I", data[3:7])[0] == 4
    assert len(data) == 2 + 1 + 4 + 4 + 4


def test_corrupted_payload_fails_its_crc():
    data = bytearray(encode_frame(FrameType.OUTPUT, bytes(range(40))))
    data[20] ^= 0x10
    with pytest.raises(LinkError, match="CRC mismatch"):
        link_over(bytes(data)).receive()


def test_truncated_frame_is_a_stall_not_a_hang():
    data = encode_frame(FrameType.OUTPUT, bytes(100))[:60]
    with pytest.raises(LinkError, match=r"stalled: nothing for 0.3 s .*payload.*got \d+ of 100 B"):
        link_over(data).receive()


def test_silent_link_is_a_stall():
    with pytest.raises(LinkError, match="stalled: nothing for 0.2 s while waiting for the next frame"):
        link_over(b"").receive(wait=0.2)


def test_absurd_length_is_a_corrupted_frame():
    with pytest.raises(LinkError, match="corrupted frame"):
        link_over(FRAME_MAGIC + struct.pack("<BI", 2, 1 << 30)).receive()


def test_endless_garbage_is_refused():
    with pytest.raises(LinkError, match="without the frame marker"):
        link_over(b"x" * 5000).receive()


INTERFACE = ModelInterface(inputs=(TensorSpec(4, (1, 4), "int8"),), outputs=(TensorSpec(2, (1, 2), "int8"),),
                           num_steps=1)


def hello(inputs=(4,), outputs=(2,)) -> bytes:
    payload = struct.pack("<BBHHHII", 1, 2, len(inputs), len(outputs), 0, 1, 64)
    return encode_frame(FrameType.HELLO, payload + struct.pack(f"<{len(inputs) + len(outputs)}I", *inputs, *outputs))


def test_a_whole_session():
    port = ScriptedPort(hello() + encode_frame(FrameType.OUTPUT, b"\x00\x05\x06")
                        + encode_frame(FrameType.PROFILE, struct.pack("<B3xIQQ", 2, 1, 12, 10))
                        + encode_frame(FrameType.DONE, struct.pack("<i", 0)))
    session = exchange(Link(port, 0.3), INTERFACE, [b"\x01\x02\x03\x04"], run_timeout=0.3)  # type: ignore[arg-type]
    assert session.outputs == [b"\x05\x06"] and session.profile.steps == (10,) and session.status == 0
    assert bytes(port.written) == (encode_frame(FrameType.HELLO_REQUEST, b"")
                                   + encode_frame(FrameType.INPUT, b"\x00\x01\x02\x03\x04"))


class LateBootPort(ScriptedPort):
    """A board that answers only the third HELLO_REQUEST (it was still booting)."""

    def __init__(self) -> None:
        super().__init__(b"")

    def write(self, data: bytes) -> int:
        super().write(data)
        if self.written.count(encode_frame(FrameType.HELLO_REQUEST, b"")) == 3:
            self.incoming += hello()
        return len(data)


def test_handshake_repeats_the_request_until_the_board_answers():
    port = LateBootPort()
    assert handshake(Link(port, stall_timeout=5)).input_bytes == (4,)  # type: ignore[arg-type]


def test_handshake_with_a_silent_board_is_a_stall():
    with pytest.raises(LinkStalled, match="did not answer HELLO_REQUEST within 0.3 s"):
        handshake(link_over(b""))


def test_firmware_built_for_another_model_is_refused():
    with pytest.raises(LinkError, match="runs another model"):
        exchange(link_over(hello(inputs=(8,))), INTERFACE, [b"\0" * 4], run_timeout=0.3)


def test_firmware_error_frame_becomes_a_clear_error():
    script = hello() + encode_frame(FrameType.ERROR, struct.pack("<B3xI", 1, 0))
    with pytest.raises(LinkError, match="rejected the host's data: a frame from the host failed its CRC check"):
        exchange(link_over(script), INTERFACE, [b"\0" * 4], run_timeout=0.3)


def test_fault_frame_names_the_step_and_the_cause():
    fault = struct.pack("<i9I", 3, 3, 0x1234, 0x5679, 0x01000000, 1 << 25, 1 << 30, 0, 0, 0xFFFFFFF9)
    script = hello() + encode_frame(FrameType.FAULT, fault)
    with pytest.raises(FirmwareFault, match=r"HardFault in step 3 at pc 0x00001234.*divide by zero") as error:
        exchange(link_over(script), INTERFACE, [b"\0" * 4], run_timeout=0.3)
    assert error.value.fault == decode_fault(received(FrameType.FAULT, fault))


def received(frame_type: int, payload: bytes):
    return link_over(encode_frame(frame_type, payload)).receive()


def test_missing_results_are_an_error():
    script = hello() + encode_frame(FrameType.DONE, struct.pack("<i", 0))
    with pytest.raises(LinkError, match="without sending everything"):
        exchange(link_over(script), INTERFACE, [b"\0" * 4], run_timeout=0.3)
