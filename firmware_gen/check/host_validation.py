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
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver import compiler
from firmware_gen.errors import UserError
from firmware_gen.frontend.tflite_reader import read_model
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

    def to_json(self) -> dict:
        return asdict(self)

    def format(self) -> str:
        verdict = "bit-exact" if self.bit_exact else "MISMATCH"
        lines = [f"{Path(self.model).name}: {verdict} with TFLite Micro: {self.tensors_compared} tensors and "
                 f"{self.outputs_compared} output(s) compared, {len(self.mismatches)} differ"]
        for m in self.mismatches[:10]:
            where = f"operator {m.op_index} ({m.opcode})" if m.op_index >= 0 else m.opcode
            lines.append(f"  tensor {m.tensor} '{m.name}' {m.shape} from {where}: {m.differing_elements} elements "
                         f"differ, max |diff| {m.max_abs_diff:g}")
        return "\n".join(lines)


def read_trace(path: Path) -> tuple[dict[int, bytes], dict[int, bytes]]:
    """(tensor index -> bytes as produced, output index -> bytes as returned)."""
    tensors, outputs = {}, {}
    data = path.read_bytes()
    position = 0
    while position < len(data):
        step, tensor, size = struct.unpack_from("<iiI", data, position)
        position += 12
        payload = data[position:position + size]
        position += size
        (outputs if step < 0 else tensors)[tensor] = payload
    return tensors, outputs


def run_trace(executable: Path, work: Path, inputs: Sequence[np.ndarray], what: str = "") -> tuple[
        dict[int, bytes], dict[int, bytes]]:
    """One run of a host build (build_trace_executable) on inputs, its files in work: read_trace's result."""
    files = []
    for i, array in enumerate(inputs):
        files.append(work / f"input{i}.bin")
        files[-1].write_bytes(np.ascontiguousarray(array).tobytes())
    done = subprocess.run([str(executable), str(work / "trace.bin"), *map(str, files)], capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise UserError(f"{what}the generated C failed on the host (exit {done.returncode}): "
                        f"{done.stderr.strip()[-2000:]}")
    return read_trace(work / "trace.bin")


def validate_model(model: bytes | str | Path, inputs: list[np.ndarray] | None = None, seed: int = 0,
                   sanitize: bool = False, work_dir: str | Path | None = None,
                   interface: str = "unpacked", options: PlanningOptions = PlanningOptions()) -> ValidationReport:
    """Generate C for the model (planned with `options`), run it on the host and compare every tensor with
    TFLM's."""
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
        compiled = compiler.generate(graph, work / "model", source=Path(source).name, interface=interface,
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
    report.mismatches.extend(compare_layers(graph, ours, oracle.tensors))
    report.tensors_compared = sum(len(op.outputs) for op in graph.operators)
    for position, index in enumerate(graph.outputs):
        count, max_diff = compare_tensor(graph.tensors[index], our_outputs[position], oracle.outputs[position])
        report.outputs_compared += 1
        if count:
            report.mismatches.append(Mismatch(index, graph.tensors[index].name, -1, "graph output",
                                              list(graph.tensors[index].shape), count, max_diff))
    report.bit_exact = not report.mismatches
    return report
