"""One session with a firmware: QEMU started (or a board's serial port opened), the handshake done, the end of
the run checked. Shared by the one-shot run (runner.py) and the step session of layer validation (step_session.py).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from firmware_gen.abi import FirmwareExit, FrameType
from firmware_gen.errors import UserError
from firmware_gen.link.framing import (
    Frame,
    Hello,
    Link,
    LinkError,
    LinkStalled,
    decode_hello,
    describe_error,
    fault_error,
)
from firmware_gen.link.qemu import QemuSession, Relay, start_qemu
from firmware_gen.link.serial_ports import board_link
from firmware_gen.manifest import ModelInterface
from firmware_gen.target.cross_build import FirmwareBuild

HELLO_RETRY_SECONDS = 0.5


class UncleanExit(LinkError):
    """The firmware finished its session but QEMU did not end with the expected status."""


@dataclass
class TargetSession:
    """An open session: the framed link, what the firmware said in its HELLO, and QEMU when it runs there."""

    link: Link
    hello: Hello
    qemu: QemuSession | None

    def expect_exit(self, expected: FirmwareExit, what: str) -> int | None:
        """Under QEMU, wait for the firmware to exit and check its status; on a board (it resets) nothing."""
        if self.qemu is None:
            return None
        exit_code = self.qemu.wait(self.link.stall_timeout)
        if exit_code != expected:
            raise UncleanExit(f"{what} but the firmware did not exit cleanly: {self.qemu.describe_exit(exit_code)}")
        return exit_code


def encode_inputs(interface: ModelInterface, inputs: Sequence[np.ndarray | bytes]) -> list[bytes]:
    """The bytes of each model input, checked against the model's interface."""
    if len(inputs) != len(interface.inputs):
        raise UserError(f"the model has {len(interface.inputs)} input(s); {len(inputs)} given")
    result = []
    for i, (value, spec) in enumerate(zip(inputs, interface.inputs, strict=True)):
        if isinstance(value, np.ndarray) and value.dtype != np.dtype(spec.dtype):
            raise UserError(f"input {i} has dtype {value.dtype}; the model needs {spec.dtype}")
        data = np.ascontiguousarray(value).tobytes() if isinstance(value, np.ndarray) else bytes(value)
        if len(data) != spec.nbytes:
            raise UserError(f"input {i} holds {len(data):,} B; the model needs {spec.nbytes:,} B "
                            f"({spec.dtype} {list(spec.shape)})")
        result.append(data)
    return result


def handshake(link: Link) -> Hello:
    """HELLO_REQUEST until the firmware answers (a board may still be booting; QEMU may drop the first bytes it
    sends), for at most the link's stall timeout."""
    deadline = time.monotonic() + link.stall_timeout
    while True:
        link.send(FrameType.HELLO_REQUEST, b"")
        try:
            frame = link.receive(wait=min(HELLO_RETRY_SECONDS, link.stall_timeout))
        except LinkStalled:
            if time.monotonic() < deadline:
                continue
            raise LinkStalled(f"the firmware did not answer HELLO_REQUEST within {link.stall_timeout:g} s") from None
        if frame.type == FrameType.ERROR:
            raise LinkError(f"the firmware rejected the host's HELLO_REQUEST: {describe_error(frame)}")
        if frame.type == FrameType.FAULT:
            raise fault_error(frame)
        if frame.type != FrameType.HELLO:
            raise LinkError(f"the firmware answered HELLO_REQUEST with frame type 0x{frame.type:02x}")
        return decode_hello(frame)


def next_frame(link: Link, wait: float, refused: str) -> Frame:
    """The firmware's next frame that answers the host: a repeated HELLO is skipped, an ERROR (the firmware
    refused `refused`) or a FAULT raised."""
    while True:
        frame = link.receive(wait=wait)
        if frame.type == FrameType.HELLO:
            continue  # the answer to a repeated HELLO_REQUEST
        if frame.type == FrameType.ERROR:
            raise LinkError(f"the firmware rejected {refused}: {describe_error(frame)}")
        if frame.type == FrameType.FAULT:
            raise fault_error(frame)
        return frame


def check_model(hello: Hello, interface: ModelInterface) -> None:
    """The firmware on the other end runs the model the host has the interface of."""
    expected = (tuple(s.nbytes for s in interface.inputs), tuple(s.nbytes for s in interface.outputs))
    if (hello.input_bytes, hello.output_bytes) != expected or hello.num_steps != interface.num_steps:
        raise LinkError(f"the firmware runs another model: inputs {list(hello.input_bytes)} B, outputs "
                        f"{list(hello.output_bytes)} B, {hello.num_steps} steps; expected {list(expected[0])} B, "
                        f"{list(expected[1])} B and {interface.num_steps} steps")


@contextlib.contextmanager
def open_session(firmware: FirmwareBuild, *, serial_url: str | None = None, baudrate: int | None = None,
                 timeout: float = 300.0, stall_timeout: float = 20.0,
                 relay: Relay | None = None, qemu_flags: Sequence[str] = ()) -> Iterator[TargetSession]:
    """A session with `firmware` under QEMU (default), or on the board at serial_url at baudrate (default: the
    board file's), handshake done and the model checked. timeout bounds the whole session under QEMU. A LinkError
    inside the block says, under QEMU, how QEMU ended. relay: see start_qemu."""
    with contextlib.ExitStack() as stack:
        qemu = None
        if serial_url is None:
            qemu = stack.enter_context(start_qemu(firmware.board, firmware.elf, timeout=timeout, relay=relay,
                                                   extra_flags=qemu_flags,
                                                   machine_args=firmware.qemu_machine_args))
            port = qemu.link
        else:
            port = stack.enter_context(board_link(firmware.board, serial_url, baudrate or firmware.board.uart_baud))
        link = Link(port, stall_timeout)
        try:
            hello = handshake(link)
            check_model(hello, firmware.interface)
            yield TargetSession(link, hello, qemu)
        except LinkError as error:
            if qemu is None or isinstance(error, UncleanExit):
                raise
            # QEMU has ended by now if the firmware did (a fault, a protocol error); else it is stopped below.
            raise LinkError(f"{error}; {qemu.describe_exit(qemu.wait(min(2.0, link.stall_timeout)))}") from None
