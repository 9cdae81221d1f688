"""The host side of the firmware's step session (runtime_c/firmware/fg_protocol.h), for a packed build: run one
step at a time through the registry (fg_model_call_step, whose shim checks the arguments first) and read any
tensor argument of a step through its DLTensor. A refused call comes back as a named FG_PACKED_ERR_* code.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator

from firmware_gen.abi import FirmwareExit, FrameType, describe_packed_error
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.link.framing import Frame, Link, LinkError, decode_done
from firmware_gen.link.session import next_frame, open_session
from firmware_gen.target.cross_build import FirmwareBuild


class PackedCallRefused(UserError):
    """The firmware refused a packed call (or a tensor request) with an FG_PACKED_ERR_* code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def refused_call_message(code: int, step: int, graph: Graph) -> str:
    """A readable message for a packed call the firmware refused."""
    what = describe_packed_error(code)
    if 0 <= step < len(graph.operators):
        return f"packed call of step {step} ({graph.operators[step].opcode}) refused its arguments: {what}"
    return f"packed call of step {step} refused: {what}"


def _reply(link: Link, expected: FrameType, wait: float) -> Frame:
    """The firmware's answer to one request; its ERROR or FAULT frames become exceptions."""
    frame = next_frame(link, wait, "the host's request")
    if frame.type != expected:
        raise LinkError(f"unexpected frame from the firmware: type 0x{frame.type:02x} (expected {expected.name})")
    return frame


class StepSession:
    """The host side of the firmware's step session, on a link whose handshake is done."""

    def __init__(self, link: Link, graph: Graph, step_timeout: float) -> None:
        self.link = link
        self.graph = graph
        self.step_timeout = step_timeout
        link.send(FrameType.STEP_SESSION, b"")
        _reply(link, FrameType.SESSION_READY, step_timeout)

    def write_input(self, index: int, data: bytes) -> None:
        self.link.send(FrameType.INPUT, bytes([index]) + data)

    def call_step(self, step: int) -> int:
        """Runs one step on the board; its counter ticks. Raises PackedCallRefused if the shim refused."""
        self.link.send(FrameType.STEP_REQUEST, struct.pack("<I", step & 0xFFFFFFFF))
        frame = _reply(self.link, FrameType.STEP_DONE, self.step_timeout)
        if len(frame.payload) != 16:
            raise LinkError(f"malformed STEP_DONE frame: {len(frame.payload)} B of payload, expected 16")
        done_step, status, ticks = struct.unpack("<IiQ", frame.payload)
        if done_step != step & 0xFFFFFFFF:
            raise LinkError(f"the firmware answered for step {done_step}; step {step} was asked for")
        if status < 0:
            raise PackedCallRefused(refused_call_message(status, step, self.graph), status)
        return ticks

    def read_tensor(self, step: int, argument: int) -> bytes:
        """The bytes of one tensor argument of a step (0-based among its inputs, then outputs), as they are now."""
        self.link.send(FrameType.TENSOR_REQUEST, struct.pack("<II", step & 0xFFFFFFFF, argument & 0xFFFFFFFF))
        frame = _reply(self.link, FrameType.TENSOR, self.step_timeout)
        if len(frame.payload) < 12:
            raise LinkError(f"malformed TENSOR frame: {len(frame.payload)} B of payload")
        _, _, status = struct.unpack_from("<IIi", frame.payload)
        if status < 0:
            what = describe_packed_error(status)
            raise PackedCallRefused(f"tensor request for argument {argument} of step {step} refused: {what}", status)
        return frame.payload[12:]

    def end(self) -> None:
        self.link.send(FrameType.END_REQUEST, b"")
        status = decode_done(_reply(self.link, FrameType.DONE, self.step_timeout))
        if status != 0:
            raise LinkError(f"the firmware ended the step session with status {status}")


@contextlib.contextmanager
def step_session(firmware: FirmwareBuild, graph: Graph, serial_url: str | None = None, baudrate: int | None = None,
                 timeout: float = 600.0, stall_timeout: float = 20.0) -> Iterator[StepSession]:
    """A step session with the firmware under QEMU (or on the board at serial_url), handshake done. Leaving the
    block normally ends the session and, under QEMU, checks that the firmware exited cleanly."""
    with open_session(firmware, serial_url=serial_url, baudrate=baudrate, timeout=timeout,
                      stall_timeout=stall_timeout) as target:
        session = StepSession(target.link, graph, step_timeout=timeout)
        yield session
        session.end()
        target.expect_exit(FirmwareExit.OK, "the step session ended")
