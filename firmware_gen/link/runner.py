"""Run a model's profiling firmware once: send the inputs, get the outputs and the per-step counts back.

Under QEMU (the default) the counter is SysTick under -icount, so counts convert exactly to guest instructions
(ticks x the board's instructions per tick) and the same input gives the same count. With serial_url the same
session runs on a real board over its serial port (counts are core clock cycles there; no instruction count).
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from firmware_gen.abi import CounterKind, FirmwareExit, FrameType
from firmware_gen.errors import UserError
from firmware_gen.link.cycle_run import firmware_estimate, firmware_trace
from firmware_gen.link.exec_trace import TraceCounts
from firmware_gen.link.framing import Link, LinkError, Profile, decode_done, decode_profile, decode_stack
from firmware_gen.link.qemu import Relay
from firmware_gen.link.session import TargetSession, check_model, encode_inputs, handshake, next_frame, open_session
from firmware_gen.manifest import ModelInterface
from firmware_gen.target.cross_build import FirmwareBuild
from firmware_gen.target.cycle_model import CycleEstimate


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
    stack_bytes_used: int | None = None  # the program stack's high-water mark (bare-metal firmware only)
    stack_bytes_bound: int | None = None  # its worst case from the call graph (FirmwareBuild.stack)
    cycles: CycleEstimate | None = None  # estimated from QEMU's execution trace (run_model(cycles=True))
    trace: TraceCounts | None = None  # that trace's block counts, to estimate again on other timings

    def to_json(self) -> dict:
        return {"board": self.board, "counter": self.counter, "exit_code": self.exit_code,
                "stack_bytes_used": self.stack_bytes_used, "stack_bytes_bound": self.stack_bytes_bound,
                "instructions": self.instructions, "total_cycles": self.total_cycles,
                "step_cycles": self.step_cycles, "step_instructions": self.step_instructions,
                "outputs": [o.tolist() for o in self.outputs],
                **({"cycle_estimate": self.cycles.to_json()} if self.cycles is not None else {})}


@dataclass
class _Results:
    outputs: list[bytes]
    profile: Profile
    status: int
    stack_used: int | None = None


def exchange(link: Link, interface: ModelInterface, inputs: list[bytes], run_timeout: float) -> _Results:
    """One whole run of the protocol (fg_protocol.h), host side, over a link opened by the caller."""
    hello = handshake(link)
    check_model(hello, interface)
    return run_inputs(TargetSession(link, hello, None), inputs, run_timeout)


def run_inputs(session: TargetSession, inputs: list[bytes], run_timeout: float) -> _Results:
    """Send the inputs, collect outputs, profile and status, on a session whose handshake is done."""
    link, hello = session.link, session.hello
    for index, data in enumerate(inputs):
        link.send(FrameType.INPUT, bytes([index]) + data)
    outputs: dict[int, bytes] = {}
    profile = None
    status = stack_used = None
    while status is None:
        frame = next_frame(link, run_timeout, "the host's data")
        if frame.type == FrameType.OUTPUT and frame.payload and frame.payload[0] < len(hello.output_bytes):
            outputs[frame.payload[0]] = frame.payload[1:]
        elif frame.type == FrameType.PROFILE:
            profile = decode_profile(frame)
        elif frame.type == FrameType.STACK:
            stack_used = decode_stack(frame)[0]
        elif frame.type == FrameType.DONE:
            status = decode_done(frame)
        else:
            raise LinkError(f"unexpected frame from the firmware: type 0x{frame.type:02x}")
    missing = [i for i in range(len(hello.output_bytes)) if i not in outputs]
    if missing or profile is None or len(profile.steps) != hello.num_steps:
        raise LinkError(f"the firmware finished without sending everything (outputs missing: {missing}, "
                        f"profile: {'missing' if profile is None else f'{len(profile.steps)} steps'})")
    for i, data in outputs.items():
        if len(data) != hello.output_bytes[i]:
            raise LinkError(f"output {i}: {len(data)} B received, {hello.output_bytes[i]} B announced")
    return _Results([outputs[i] for i in range(len(outputs))], profile, status, stack_used)


def _run_result(firmware: FirmwareBuild, results: _Results, exit_code: int | None, emulated: bool) -> RunResult:
    """What one invocation's frames say, in the host's terms (instructions under QEMU's SysTick)."""
    profile = results.profile
    steps = list(profile.steps)
    instructions = step_instructions = None
    # Zephyr's k_cycle_get_32() counts SysTick ticks too on these machines (its cortex_m_systick driver).
    if emulated and profile.counter in (CounterKind.SYSTICK, CounterKind.ZEPHYR_CYCLES):
        per_tick = firmware.board.instructions_per_tick
        instructions = round(profile.total * per_tick)
        step_instructions = [round(t * per_tick) for t in steps]
    return RunResult(
        outputs=[spec.array_from(raw) for spec, raw in zip(firmware.interface.outputs, results.outputs, strict=True)],
        step_cycles=steps,
        instructions=instructions,
        exit_code=exit_code,
        step_instructions=step_instructions,
        total_cycles=profile.total,
        counter=profile.counter.name.lower(),
        board=f"{firmware.board.name} under {firmware.system}" if firmware.system else firmware.board.name,
        stack_bytes_used=results.stack_used,
        stack_bytes_bound=firmware.stack.thread.bytes if firmware.stack else None,
    )


def run_sequence(firmware: FirmwareBuild, frames: Sequence[Sequence[np.ndarray | bytes]], *,
                 serial_url: str | None = None, timeout: float = 300.0, stall_timeout: float = 20.0,
                 baudrate: int | None = None, relay: Relay | None = None) -> list[RunResult]:
    """Run firmware once per frame (the inputs of one invocation each), in order, through one model instance, so
    that the state of a stateful model is carried: one result per frame. Where run_model runs once, this runs as
    many times (the sequence session of fg_protocol.h); timeout bounds each invocation."""
    data = [encode_inputs(firmware.interface, inputs) for inputs in frames]
    if not data:
        raise UserError("a sequence needs at least one frame")
    results: list[_Results] = []
    with open_session(firmware, serial_url=serial_url, baudrate=baudrate, timeout=timeout * len(data),
                      stall_timeout=stall_timeout, relay=relay) as session:
        session.link.send(FrameType.SEQUENCE_REQUEST, struct.pack("<I", len(data)))
        for invocation, inputs in enumerate(data):
            results.append(run_inputs(session, inputs, run_timeout=timeout))
            if results[-1].status != 0:
                raise UserError(f"invocation {invocation}: the model's invoke returned status "
                                f"{results[-1].status} on {firmware.board.name}")
        exit_code = session.expect_exit(FirmwareExit.OK, f"the firmware sent the results of {len(data)} invocations")
    return [_run_result(firmware, r, exit_code, serial_url is None) for r in results]


def run_model(firmware: FirmwareBuild, inputs: Sequence[np.ndarray | bytes], *, serial_url: str | None = None,
              timeout: float = 300.0, stall_timeout: float = 20.0, baudrate: int | None = None,
              relay: Relay | None = None, cycles: bool = False, qemu_flags: Sequence[str] = ()) -> RunResult:
    """Run firmware once on inputs (arrays or raw bytes, one per model input): under QEMU, or on the board at
    serial_url (e.g. /dev/ttyACM0) when given, at baudrate (default: the board's). timeout bounds the whole run.
    relay: see start_qemu. cycles: under QEMU, trace the run and estimate its cycles (cycle_run.py). qemu_flags:
    more QEMU options (register_sample.py's GDB stub)."""
    data = encode_inputs(firmware.interface, inputs)
    with contextlib.ExitStack() as stack:
        trace = stack.enter_context(firmware_trace(firmware)) if cycles and serial_url is None else None
        with open_session(firmware, serial_url=serial_url, baudrate=baudrate, timeout=timeout,
                          stall_timeout=stall_timeout, relay=relay,
                          qemu_flags=[*(trace.qemu_flags if trace else ()), *qemu_flags]) as session:
            results = run_inputs(session, data, run_timeout=timeout)
            expected = FirmwareExit.OK if results.status == 0 else FirmwareExit.MODEL_ERROR
            exit_code = session.expect_exit(expected, "the firmware sent its results")
        if results.status != 0:
            raise UserError(f"the model's invoke returned status {results.status} on {firmware.board.name}")
        result = _run_result(firmware, results, exit_code, serial_url is None)
        if trace is not None:
            result.trace = trace.counts()
            result.cycles = firmware_estimate(firmware, result.trace)
    return result
