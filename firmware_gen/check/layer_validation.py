"""On-target layer validation: run the schedule on the board one step at a time through the packed registry,
read every tensor a step produced right after that step (the pool reuses memory), compare each with TFLM's.

The host drives the firmware's step session (runtime_c/firmware/fg_protocol.h): STEP_REQUEST runs one step
with fg_model_call_step (its shim checks the arguments first), TENSOR_REQUEST reads one tensor argument of a
step through its DLTensor. A refused packed call comes back as a named error code and is reported as such.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from firmware_gen.check.compare import Mismatch, compare_layers
from firmware_gen.check.oracle import run_tflm_sequence
from firmware_gen.driver.compiler import CompiledModel
from firmware_gen.errors import UserError
from firmware_gen.link.framing import LinkError
from firmware_gen.link.session import encode_inputs
from firmware_gen.link.step_session import StepSession, step_session
from firmware_gen.target.cross_build import FirmwareBuild


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
    invocations: int = 1  # a sequence: the schedule run once per frame, the state carried

    @property
    def first_difference(self) -> Mismatch | None:
        return min(self.mismatches, key=lambda m: (m.invocation, m.op_index), default=None)

    def to_json(self) -> dict:
        first = self.first_difference
        return {**asdict(self), "first_difference": asdict(first) if first else None}

    def format(self) -> str:
        verdict = "bit-exact" if self.bit_exact else "MISMATCH"
        over = f" over {self.invocations} invocations" if self.invocations > 1 else ""
        lines = [f"{self.model} on {self.board}, layer by layer: {verdict} with TensorFlow Lite Micro{over} "
                 f"({self.steps_run} steps run, {self.tensors_compared} tensors compared, "
                 f"{len(self.mismatches)} differ)"]
        first = self.first_difference
        if first is not None:
            when = f"invocation {first.invocation}, " if self.invocations > 1 else ""
            lines.append(f"  first differing layer: {when}operator {first.op_index} ({first.opcode}), tensor "
                         f"{first.tensor} '{first.name}' {first.shape}: {first.differing_elements} elements differ, "
                         f"max |diff| {first.max_abs_diff:g}")
        return "\n".join(lines)


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
                    baudrate: int | None = None, timeout: float = 600.0) -> LayerReport:
    """Runs a packed build step by step on its board and compares every layer with TFLM."""
    return validate_layers_over_sequence(model, compiled, firmware, [inputs], source=source, serial_url=serial_url,
                                         baudrate=baudrate, timeout=timeout)


def validate_layers_over_sequence(model: bytes, compiled: CompiledModel, firmware: FirmwareBuild,
                                  frames: Sequence[Sequence[np.ndarray]], *, source: str = "model",
                                  serial_url: str | None = None, baudrate: int | None = None,
                                  timeout: float = 600.0) -> LayerReport:
    """The schedule run step by step once per frame in one step session (the pool, and so the state, is never
    reset between frames), every layer of every invocation compared with TFLM running the frames on one
    interpreter."""
    if compiled.interface != "packed":
        raise UserError("layer validation on a board needs a model generated with --interface packed")
    graph = compiled.graph
    data = [encode_inputs(firmware.interface, inputs) for inputs in frames]
    with step_session(firmware, graph, serial_url=serial_url, baudrate=baudrate, timeout=timeout) as session:
        ours = [read_layers(session, compiled, inputs) for inputs in data]
    oracle = run_tflm_sequence(model, [[np.asarray(x) for x in inputs] for inputs in frames], len(graph.tensors))
    mismatches = [dataclasses.replace(m, invocation=i if len(frames) > 1 else -1)
                  for i, (layers, expected) in enumerate(zip(ours, oracle, strict=True))
                  for m in compare_layers(graph, layers, expected.tensors)]
    return LayerReport(model=source, board=firmware.board.name, bit_exact=not mismatches,
                       tensors_compared=len(frames) * sum(len(op.outputs) for op in graph.operators),
                       steps_run=len(frames) * sum(1 for step in compiled.steps if step.call is not None),
                       mismatches=mismatches, invocations=len(frames))
