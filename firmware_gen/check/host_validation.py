"""Validation against the oracle: every tensor the generated C computes, byte for byte against TFLM."""

from __future__ import annotations

import struct
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from firmware_gen.check.compare import Mismatch, compare_layers, compare_tensor
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import OracleResult, run_tflm
from firmware_gen.driver import compiler
from firmware_gen.driver.compiler import CompiledModel
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import PORTABLE, Isa
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.host_build import build_trace_executable


@dataclass
class ValidationReport:
    model: str
    bit_exact: bool
    tensors_compared: int
    outputs_compared: int
    mismatches: list[Mismatch] = field(default_factory=list)
    pool_bytes: int = 0
    lower_bound_bytes: int = 0
    overlap: bool = True
    io_in_pool: bool = True
    invocations: int = 1  # runs of one sequence, state carried from each to the next
    per_patch_tensors: list[int] = field(default_factory=list)  # a patch stage's intermediates: not TFLM tensors
    folded_tensors: list[int] = field(default_factory=list)  # outputs of PADs folded into their reader: never made

    def to_json(self) -> dict:
        return asdict(self)

    def format(self) -> str:
        verdict = "bit-exact" if self.bit_exact else "MISMATCH"
        over = f" over {self.invocations} invocations (state carried)" if self.invocations > 1 else ""
        lines = [f"{Path(self.model).name}: {verdict} with TFLite Micro{over}: {self.tensors_compared} tensors and "
                 f"{self.outputs_compared} output(s) compared, {len(self.mismatches)} differ"]
        for m in self.mismatches[:10]:
            where = f"operator {m.op_index} ({m.opcode})" if m.op_index >= 0 else m.opcode
            when = f"invocation {m.invocation}: " if m.invocation >= 0 else ""
            lines.append(f"  {when}tensor {m.tensor} '{m.name}' {m.shape} from {where}: {m.differing_elements} "
                         f"elements differ, max |diff| {m.max_abs_diff:g}")
        if self.per_patch_tensors:
            lines.append(f"  not compared: {', '.join(f't{i}' for i in self.per_patch_tensors)}, the patch stage's "
                         f"intermediates, exist one patch at a time (not TFLM tensors); the stage's output and "
                         f"everything after are compared")
        if self.folded_tensors:
            lines.append(f"  not compared: {', '.join(f't{i}' for i in self.folded_tensors)}, padded by a PAD folded "
                         f"into the convolution that reads it (ops/pad_folding.py): never made on the device")
        return "\n".join(lines)


Trace = tuple[dict[int, bytes], dict[int, bytes]]  # (tensor index -> bytes as produced, output index -> bytes)
_END_OF_RUN = -2  # runtime_c/host/trace_run.c: the record that ends each run of a sequence


def read_trace_sequence(path: Path) -> list[Trace]:
    """One Trace per run, in order."""
    runs: list[Trace] = [({}, {})]
    data = path.read_bytes()
    position = 0
    while position < len(data):
        step, tensor, size = struct.unpack_from("<iiI", data, position)
        position += 12
        payload = data[position:position + size]
        position += size
        if step == _END_OF_RUN:
            runs.append(({}, {}))
        else:
            runs[-1][1 if step < 0 else 0][tensor] = payload
    return runs[:-1] if len(runs) > 1 else runs


def read_trace(path: Path) -> Trace:
    """The first (or only) run's (tensor index -> bytes as produced, output index -> bytes as returned)."""
    return read_trace_sequence(path)[0]


def run_trace(executable: Path, work: Path, inputs: Sequence[np.ndarray], what: str = "") -> Trace:
    """One run of a host build (build_trace_executable) on inputs, its files in work: read_trace's result."""
    return run_trace_sequence(executable, work, [inputs], what)[0]


def run_trace_sequence(executable: Path, work: Path, frames: Sequence[Sequence[np.ndarray]],
                       what: str = "") -> list[Trace]:
    """A host build run on each frame (one array per input) in turn, in one process (state carried)."""
    files = []
    for i in range(len(frames[0])):
        files.append(work / f"input{i}.bin")
        files[-1].write_bytes(b"".join(np.ascontiguousarray(frame[i]).tobytes() for frame in frames))
    done = subprocess.run([str(executable), str(work / "trace.bin"), *map(str, files)], capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise UserError(f"{what}the generated C failed on the host (exit {done.returncode}): "
                        f"{done.stderr.strip()[-2000:]}")
    return read_trace_sequence(work / "trace.bin")


def validate_model(model: bytes | str | Path, inputs: list[np.ndarray] | None = None, seed: int = 0,
                   sanitize: bool = False, work_dir: str | Path | None = None,
                   interface: str = "unpacked", options: PlanningOptions = PlanningOptions(),
                   isa: Isa = PORTABLE) -> ValidationReport:
    """Generate C for the model (planned with `options`, the kernel variants and weight layouts `isa` allows that
    build on the host), run it on the host and compare every tensor with TFLM's."""
    if isinstance(model, (str, Path)):
        source = str(model)
        data = Path(model).read_bytes()
    else:
        source, data = "model", bytes(model)
    graph = read_model(data, source)
    if inputs is None:
        inputs = random_inputs(graph, seed)
    inputs = [np.ascontiguousarray(x, dtype=graph.tensors[i].dtype.numpy_type).reshape(graph.tensors[i].shape)
              for x, i in zip(inputs, graph.inputs, strict=True)]
    with tempfile.TemporaryDirectory(prefix="fg-validate-") as scratch:
        work = Path(work_dir) if work_dir else Path(scratch)
        compiled = compiler.generate(graph, work / "model", source=Path(source).name, interface=interface, isa=isa,
                                     options=options)
        executable = build_trace_executable(work / "model", work / "build", sanitize=sanitize)
        ours, our_outputs = run_trace(executable, work, inputs)
    # Folded operators ran at generation time: their constants stand for what the device would have computed.
    ours.update({t.index: t.data.tobytes() for t in compiled.graph.tensors
                 if t.is_constant and not graph.tensors[t.index].is_constant})
    oracle = run_tflm(data, inputs, len(graph.tensors))
    report = ValidationReport(model=source, bit_exact=True, tensors_compared=0, outputs_compared=0,
                              pool_bytes=compiled.plan.pool_bytes,
                              lower_bound_bytes=compiled.plan.lower_bound_bytes, overlap=options.overlap,
                              io_in_pool=options.io_in_pool)
    report.per_patch_tensors, report.folded_tensors = per_patch_tensors(compiled), folded_tensors(graph, compiled)
    compare_run(graph, (ours, our_outputs), oracle, report)
    report.bit_exact = not report.mismatches
    return report


def per_patch_tensors(compiled: CompiledModel) -> list[int]:
    """The intermediates of the compiled model's patch stage, if any."""
    return list(compiled.stage.stage.tensors[:-1]) if compiled.stage else []


def folded_tensors(graph: Graph, compiled: CompiledModel) -> list[int]:
    """The outputs of `graph`'s operators that the compiled schedule never makes: those of the PADs folded into the
    convolutions reading them (constant-folded outputs are made, at generation time)."""
    made = {i for op in compiled.graph.operators for i in op.outputs}
    return sorted({i for op in graph.operators for i in op.outputs} - made
                  - {t.index for t in compiled.graph.tensors if t.is_constant})


def compare_run(graph: Graph, run: Trace, oracle: OracleResult, report: ValidationReport,
                invocation: int = -1) -> None:
    """One run's operator outputs, state tensors and graph outputs against TFLM's, added to report."""
    ours, our_outputs = run
    not_made = frozenset(report.per_patch_tensors) | frozenset(report.folded_tensors)
    mismatches = compare_layers(graph, ours, oracle.tensors, not_made)
    report.tensors_compared += sum(len(set(op.outputs) - not_made) for op in graph.operators)
    for tensor in graph.state_tensors:  # the state as the invocation left it
        count, max_diff = compare_tensor(tensor, ours[tensor.index], oracle.tensors[tensor.index])
        report.tensors_compared += 1
        if count:
            mismatches.append(Mismatch(tensor.index, tensor.name, -1, "state", list(tensor.shape), count, max_diff))
    for position, index in enumerate(graph.outputs):
        count, max_diff = compare_tensor(graph.tensors[index], our_outputs[position], oracle.outputs[position])
        report.outputs_compared += 1
        if count:
            mismatches.append(Mismatch(index, graph.tensors[index].name, -1, "graph output",
                                       list(graph.tensors[index].shape), count, max_diff))
    for mismatch in mismatches:
        mismatch.invocation = invocation
    report.mismatches.extend(mismatches)
