"""On-target layer validation: run the schedule on the board one step at a time through the packed registry,
read every tensor a step produced right after that step (the pool reuses memory), compare each with TFLM's.

The host drives the firmware's step session (runtime_c/firmware/fg_protocol.h): STEP_REQUEST runs one step
with fg_model_call_step (its shim checks the arguments first), TENSOR_REQUEST reads one tensor argument of a
step through its DLTensor. A refused packed call comes back as a named error code and is reported as such.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from firmware_gen.backend.packed import PACKED_ERRORS, describe_packed_error
from firmware_gen.check.host_validation import Mismatch, compare_layers
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import CompiledModel
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.link.framing import (
    FirmwareExit,
    Frame,
    FrameType,
    Link,
    LinkError,
    decode_done,
    describe_error,
    fault_error,
    open_link,
)
from firmware_gen.link.qemu import start_qemu
from firmware_gen.link.runner import encode_inputs, handshake
from firmware_gen.target.cross_build import FirmwareBuild


class PackedCallRefused(UserError):
    """The firmware refused a packed call (or a tensor request) with an FG_PACKED_ERR_* code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class LayerReport:
    """Keys as the host validator's ValidationReport, plus where the board first differs from TFLM."""

    model: str
    board: str
    bit_exact: bool
    tensors_compared: int
    steps_run: int
    mismatches: list[Mismatch] = field(default_factory=list)
    interface: str = "packed"

    @property
    def first_difference(self) -> Mismatch | None:
        return min(self.mismatches, key=lambda m: m.op_index, default=None)

    def to_json(self) -> dict:
        first = self.first_difference
        return {**asdict(self), "first_difference": asdict(first) if first else None}

    def format(self) -> str:
        verdict = "bit-exact" if self.bit_exact else "MISMATCH"
        lines = [f"{self.model} on {self.board}, layer by layer: {verdict} with TensorFlow Lite Micro "
                 f"({self.steps_run} steps run, {self.tensors_compared} tensors compared, "
                 f"{len(self.mismatches)} differ)"]
        first = self.first_difference
        if first is not None:
            lines.append(f"  first differing layer: operator {first.op_index} ({first.opcode}), tensor {first.tensor} "
                         f"'{first.name}' {first.shape}: {first.differing_elements} elements differ, "
                         f"max |diff| {first.max_abs_diff:g}")
        return "\n".join(lines)


def _reply(link: Link, expected: FrameType, wait: float) -> Frame:
    """The firmware's answer to one request; its ERROR or FAULT frames become exceptions."""
    while True:
        frame = link.receive(wait=wait)
        if frame.type == expected:
            return frame
        if frame.type == FrameType.HELLO:
            continue  # the answer to a repeated HELLO_REQUEST
        if frame.type == FrameType.ERROR:
            raise LinkError(f"the firmware rejected the host's request: {describe_error(frame)}")
        if frame.type == FrameType.FAULT:
            raise fault_error(frame)
        raise LinkError(f"unexpected frame from the firmware: type 0x{frame.type:02x} (expected {expected.name})")


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
            raise PackedCallRefused(describe_packed_error(status, step, self.graph), status)
        return ticks

    def read_tensor(self, step: int, argument: int) -> bytes:
        """The bytes of one tensor argument of a step (0-based among its inputs, then outputs), as they are now."""
        self.link.send(FrameType.TENSOR_REQUEST, struct.pack("<II", step & 0xFFFFFFFF, argument & 0xFFFFFFFF))
        frame = _reply(self.link, FrameType.TENSOR, self.step_timeout)
        if len(frame.payload) < 12:
            raise LinkError(f"malformed TENSOR frame: {len(frame.payload)} B of payload")
        _, _, status = struct.unpack_from("<IIi", frame.payload)
        if status < 0:
            what = PACKED_ERRORS.get(status, f"error code {status}")
            raise PackedCallRefused(f"tensor request for argument {argument} of step {step} refused: {what}", status)
        return frame.payload[12:]

    def end(self) -> None:
        self.link.send(FrameType.END_REQUEST, b"")
        status = decode_done(_reply(self.link, FrameType.DONE, self.step_timeout))
        if status != 0:
            raise LinkError(f"the firmware ended the step session with status {status}")


@contextlib.contextmanager
def step_session(firmware: FirmwareBuild, graph: Graph, serial_url: str | None = None, timeout: float = 600.0,
                 stall_timeout: float = 20.0) -> Iterator[StepSession]:
    """A step session with the firmware under QEMU (or on the board at serial_url), handshake done. Leaving the
    block normally ends the session and, under QEMU, checks that the firmware exited cleanly."""
    with contextlib.ExitStack() as stack:
        qemu = None
        if serial_url is None:
            qemu = stack.enter_context(start_qemu(firmware.board, firmware.elf, timeout=timeout))
            port = qemu.link
        else:
            port = open_link(serial_url)
            stack.callback(port.close)
        link = Link(port, stall_timeout)
        try:
            hello = handshake(link)
            if hello.num_steps != len(graph.operators):
                raise LinkError(f"the firmware runs another model: {hello.num_steps} steps, expected "
                                f"{len(graph.operators)}")
            session = StepSession(link, graph, step_timeout=timeout)
            yield session
            session.end()
        except LinkError as error:
            if qemu is None:
                raise
            raise LinkError(f"{error}; {qemu.describe_exit(qemu.wait(2.0))}") from None
        if qemu is not None:
            exit_code = qemu.wait(stall_timeout)
            if exit_code != FirmwareExit.OK:
                raise LinkError(f"the step session ended but the firmware did not exit cleanly: "
                                f"{qemu.describe_exit(exit_code)}")


def read_layers(session: StepSession, compiled: CompiledModel, inputs: list[bytes]) -> dict[int, bytes]:
    """Every tensor of the schedule as the board computed it: tensor index -> bytes, read right after the step
    that produced it. A view's output is its input's bytes (views run no code)."""
    graph = compiled.graph
    tensors: dict[int, bytes] = {}
    for index, (tensor_index, data) in enumerate(zip(graph.inputs, inputs, strict=True)):
        session.write_input(index, data)
        tensors[tensor_index] = data
    for step in compiled.steps:
        if step.call is None:
            for ref in step.outputs:
                tensors[ref.index] = tensors[step.inputs[0].index]
            continue
        session.call_step(step.index)
        for position, ref in enumerate(step.outputs, start=len(step.inputs)):
            data = session.read_tensor(step.index, position)
            if len(data) != ref.nbytes:
                raise LinkError(f"step {step.index}: tensor {ref.index} came back with {len(data):,} B; "
                                f"it has {ref.nbytes:,} B")
            tensors[ref.index] = data
    return tensors


def validate_layers(model: bytes, compiled: CompiledModel, firmware: FirmwareBuild,
                    inputs: Sequence[np.ndarray], *, source: str = "model", serial_url: str | None = None,
                    timeout: float = 600.0) -> LayerReport:
    """Runs a packed build step by step on its board and compares every layer with TFLM."""
    if compiled.interface != "packed":
        raise UserError("layer validation on a board needs a model generated with --interface packed")
    graph = compiled.graph
    data = encode_inputs(firmware.interface, inputs)
    with step_session(firmware, graph, serial_url=serial_url, timeout=timeout) as session:
        ours = read_layers(session, compiled, data)
    oracle = run_tflm(model, [np.asarray(x) for x in inputs], len(graph.tensors))
    mismatches = compare_layers(graph, ours, oracle.tensors)
    return LayerReport(model=source, board=firmware.board.name, bit_exact=not mismatches,
                       tensors_compared=sum(len(op.outputs) for op in graph.operators),
                       steps_run=sum(1 for step in compiled.steps if step.call is not None), mismatches=mismatches)
