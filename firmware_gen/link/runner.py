"""Run a model's profiling firmware once: send the inputs, get the outputs and the per-step counts back.

Under QEMU (the default) the counter is SysTick under -icount, so counts convert exactly to guest instructions
(ticks x the board's instructions per tick) and the same input gives the same count. With serial_url the same
session runs on a real board over its serial port (counts are core clock cycles there; no instruction count).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from firmware_gen.errors import UserError
from firmware_gen.link.framing import (
    CounterKind,
    FirmwareExit,
    FrameType,
    Hello,
    Link,
    LinkError,
    LinkStalled,
    Profile,
    decode_done,
    decode_hello,
    decode_profile,
    describe_error,
    fault_error,
)
from firmware_gen.link.qemu import start_qemu
from firmware_gen.link.serial_ports import board_link
from firmware_gen.manifest import ModelInterface
from firmware_gen.target.cross_build import FirmwareBuild

HELLO_RETRY_SECONDS = 0.5


@dataclass
class RunResult:
    outputs: list[np.ndarray]
    step_cycles: list[int]  # counter ticks per step: SysTick ticks (QEMU) or core cycles (DWT, real silicon)
    instructions: int | None  # guest instructions of the whole invoke (QEMU only)
    exit_code: int | None  # the firmware's exit status (QEMU only)
    step_instructions: list[int] | None = None
    total_cycles: int = 0
    counter: str = "systick"
    board: str = ""

    def to_json(self) -> dict:
        return {"board": self.board, "counter": self.counter, "exit_code": self.exit_code,
                "instructions": self.instructions, "total_cycles": self.total_cycles,
                "step_cycles": self.step_cycles, "step_instructions": self.step_instructions,
                "outputs": [o.tolist() for o in self.outputs]}


@dataclass
class _Session:
    outputs: list[bytes]
    profile: Profile
    status: int


def encode_inputs(interface: ModelInterface, inputs: Sequence[np.ndarray | bytes]) -> list[bytes]:
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
        if frame.type != FrameType.HELLO:
            raise LinkError(f"the firmware answered HELLO_REQUEST with frame type 0x{frame.type:02x}")
        return decode_hello(frame)


def exchange(link: Link, interface: ModelInterface, inputs: list[bytes], run_timeout: float) -> _Session:
    """One session of the protocol (fg_protocol.h), host side."""
    hello = handshake(link)
    expected = (tuple(s.nbytes for s in interface.inputs), tuple(s.nbytes for s in interface.outputs))
    if (hello.input_bytes, hello.output_bytes) != expected:
        raise LinkError(f"the firmware runs another model: inputs {list(hello.input_bytes)} B, outputs "
                        f"{list(hello.output_bytes)} B; expected {list(expected[0])} B and {list(expected[1])} B")
    for index, data in enumerate(inputs):
        link.send(FrameType.INPUT, bytes([index]) + data)
    outputs: dict[int, bytes] = {}
    profile = None
    status = None
    while status is None:
        frame = link.receive(wait=run_timeout)
        if frame.type == FrameType.OUTPUT and frame.payload and frame.payload[0] < len(hello.output_bytes):
            outputs[frame.payload[0]] = frame.payload[1:]
        elif frame.type == FrameType.HELLO:
            continue  # the answer to a repeated HELLO_REQUEST
        elif frame.type == FrameType.PROFILE:
            profile = decode_profile(frame)
        elif frame.type == FrameType.DONE:
            status = decode_done(frame)
        elif frame.type == FrameType.ERROR:
            raise LinkError(f"the firmware rejected the host's data: {describe_error(frame)}")
        elif frame.type == FrameType.FAULT:
            raise fault_error(frame)
        else:
            raise LinkError(f"unexpected frame from the firmware: type 0x{frame.type:02x}")
    missing = [i for i in range(len(hello.output_bytes)) if i not in outputs]
    if missing or profile is None or len(profile.steps) != interface.num_steps:
        raise LinkError(f"the firmware finished without sending everything (outputs missing: {missing}, "
                        f"profile: {'missing' if profile is None else f'{len(profile.steps)} steps'})")
    for i, data in outputs.items():
        if len(data) != hello.output_bytes[i]:
            raise LinkError(f"output {i}: {len(data)} B received, {hello.output_bytes[i]} B announced")
    return _Session([outputs[i] for i in range(len(outputs))], profile, status)


def run_model(firmware: FirmwareBuild, inputs: Sequence[np.ndarray | bytes], *, serial_url: str | None = None,
              timeout: float = 300.0, stall_timeout: float = 20.0, baudrate: int | None = None) -> RunResult:
    """Run firmware once on inputs (arrays or raw bytes, one per model input): under QEMU, or on the board at
    serial_url (e.g. /dev/ttyACM0) when given, at baudrate (default: the board's). timeout bounds the whole run."""
    interface = firmware.interface
    data = encode_inputs(interface, inputs)
    exit_code = None
    if serial_url is not None:
        with board_link(firmware.board, serial_url, baudrate or firmware.board.uart_baud) as port:
            session = exchange(Link(port, stall_timeout), interface, data, run_timeout=timeout)
    else:
        with start_qemu(firmware.board, firmware.elf, timeout=timeout) as qemu:
            try:
                session = exchange(Link(qemu.link, stall_timeout), interface, data, run_timeout=timeout)
            except LinkError as error:
                raise LinkError(f"{error}; {qemu.describe_exit(qemu.wait(2.0))}") from None
            exit_code = qemu.wait(stall_timeout)
            expected_exit = FirmwareExit.OK if session.status == 0 else FirmwareExit.MODEL_ERROR
            if exit_code != expected_exit:
                raise LinkError(f"the firmware sent its results but did not exit cleanly: "
                                f"{qemu.describe_exit(exit_code)}")
    profile = session.profile
    steps = list(profile.steps)
    instructions = step_instructions = None
    if serial_url is None and profile.counter == CounterKind.SYSTICK:
        per_tick = firmware.board.instructions_per_tick
        instructions = round(profile.total * per_tick)
        step_instructions = [round(t * per_tick) for t in steps]
    if session.status != 0:
        raise UserError(f"the model's invoke returned status {session.status} on {firmware.board.name}")
    return RunResult(
        outputs=[spec.array_from(raw) for spec, raw in zip(interface.outputs, session.outputs, strict=True)],
        step_cycles=steps,
        instructions=instructions,
        exit_code=exit_code,
        step_instructions=step_instructions,
        total_cycles=profile.total,
        counter=profile.counter.name.lower(),
        board=firmware.board.name,
    )
