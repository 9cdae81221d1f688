"""Validation of a sequence: the model run once per frame, in order, its state carried from each run to the next,
every invocation's tensors (operator outputs, state, graph outputs) compared byte for byte with TFLM running the
same frames on one interpreter that is never reset."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from firmware_gen.check.host_validation import (
    ValidationReport,
    compare_run,
    folded_tensors,
    per_patch_tensors,
    run_trace_sequence,
)
from firmware_gen.check.oracle import run_tflm_sequence
from firmware_gen.driver import compiler
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.host_build import build_trace_executable


def shaped_frames(graph: Graph, frames: Sequence[Sequence[np.ndarray]]) -> list[list[np.ndarray]]:
    """Each frame's arrays in the dtype and shape of the model's inputs."""
    if not frames:
        raise UserError("the sequence holds no frames")
    return [[np.ascontiguousarray(x, dtype=graph.tensors[i].dtype.numpy_type).reshape(graph.tensors[i].shape)
             for x, i in zip(frame, graph.inputs, strict=True)] for frame in frames]


def validate_sequence(model: bytes | str | Path, frames: Sequence[Sequence[np.ndarray]], sanitize: bool = False,
                      work_dir: str | Path | None = None, interface: str = "unpacked",
                      options: PlanningOptions = PlanningOptions()) -> ValidationReport:
    """Generate C for the model, run it on the host over the frames (one list of inputs each) and compare every
    invocation with TFLM's."""
    source = str(model) if isinstance(model, (str, Path)) else "model"
    data = Path(model).read_bytes() if isinstance(model, (str, Path)) else bytes(model)
    graph = read_model(data, source)
    frames = shaped_frames(graph, frames)
    with tempfile.TemporaryDirectory(prefix="fg-sequence-") as scratch:
        work = Path(work_dir) if work_dir else Path(scratch)
        compiled = compiler.generate(graph, work / "model", source=Path(source).name, interface=interface,
                                     options=options)
        executable = build_trace_executable(work / "model", work / "build", sanitize=sanitize)
        runs = run_trace_sequence(executable, work, frames)
    oracle = run_tflm_sequence(data, frames, len(graph.tensors))
    report = ValidationReport(model=source, bit_exact=True, tensors_compared=0, outputs_compared=0,
                              pool_bytes=compiled.plan.pool_bytes, lower_bound_bytes=compiled.plan.lower_bound_bytes,
                              overlap=options.overlap, io_in_pool=options.io_in_pool, invocations=len(frames))
    if len(runs) != len(frames):
        raise UserError(f"the generated C ran {len(runs)} of the {len(frames)} frames")
    report.per_patch_tensors, report.folded_tensors = per_patch_tensors(compiled), folded_tensors(graph, compiled)
    for invocation, (run, expected) in enumerate(zip(runs, oracle, strict=True)):
        compare_run(graph, run, expected, report, invocation)
    report.bit_exact = not report.mismatches
    return report
