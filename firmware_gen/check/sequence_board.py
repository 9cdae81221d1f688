"""A sequence on a QEMU board: the frames built into a dataset firmware's flash (driver/dataset_deploy.py), which
runs them in order through one model instance, so the state is carried from each invocation to the next; TFLM runs
the same frames on one interpreter that is never reset. Every invocation's outputs are compared."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from firmware_gen.check.compare import Mismatch, compare_tensor
from firmware_gen.check.host_validation import ValidationReport
from firmware_gen.check.oracle import run_tflm_sequence
from firmware_gen.check.sequence_validation import shaped_frames
from firmware_gen.driver.dataset_deploy import Message, run_dataset
from firmware_gen.driver.deploy import Deployment


def validate_sequence_on_board(model: bytes, source: str, deployment: Deployment, frames: list[list[np.ndarray]],
                               message: Message = lambda _: None) -> ValidationReport:
    graph, firmware = deployment.graph, deployment.firmware
    frames = shaped_frames(graph, frames)
    ours = run_dataset(deployment, frames, message=message)  # one firmware image for a stateful model, or refused
    theirs = run_tflm_sequence(model, frames, len(graph.tensors))
    report = ValidationReport(model=f"{Path(source).name} on {firmware.board.name}", bit_exact=True,
                              tensors_compared=0, outputs_compared=0, pool_bytes=deployment.compiled.plan.pool_bytes,
                              lower_bound_bytes=deployment.compiled.plan.lower_bound_bytes, invocations=len(frames))
    for invocation, (outputs, oracle) in enumerate(zip(ours, theirs, strict=True)):
        for position, index in enumerate(graph.outputs):
            tensor = graph.tensors[index]
            count, max_diff = compare_tensor(tensor, np.asarray(outputs[position]).tobytes(), oracle.outputs[position])
            report.outputs_compared += 1
            if count:
                report.mismatches.append(Mismatch(index, tensor.name, -1, "graph output", list(tensor.shape), count,
                                                  max_diff, invocation))
    report.bit_exact = not report.mismatches
    return report
