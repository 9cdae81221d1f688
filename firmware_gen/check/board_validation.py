"""Validation on a board: the outputs the firmware computed there against TFLM's, for the same inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.deploy import Deployment, Progress, quiet, run


@dataclass
class BoardReport:
    model: str
    board: str
    interface: str
    bit_exact: bool
    outputs_compared: int
    mismatches: list[int] = field(default_factory=list)  # indices of the outputs that differ
    instructions: int | None = None

    def to_json(self) -> dict:
        return {"model": self.model, "board": self.board, "interface": self.interface, "bit_exact": self.bit_exact,
                "outputs_compared": self.outputs_compared, "mismatches": self.mismatches,
                "instructions": self.instructions}

    def format(self) -> str:
        verdict = "bit-exact" if self.bit_exact else "MISMATCH"
        return (f"{Path(self.model).name} on {self.board}: {verdict} with TensorFlow Lite Micro "
                f"({self.outputs_compared} output(s) compared)")


def outputs_equal_oracle(model: bytes, inputs: list[np.ndarray], outputs: list[np.ndarray],
                         num_tensors: int) -> list[bool]:
    """For each output: whether ours equals TFLM's, byte for byte, on the same inputs."""
    oracle = run_tflm(model, inputs, num_tensors)
    return [np.array_equal(np.asarray(ours).ravel(), np.asarray(theirs).ravel())
            for ours, theirs in zip(outputs, oracle.outputs, strict=True)]


def validate_on_board(model: bytes, source: str, deployment: Deployment, inputs: list[np.ndarray], *,
                      serial_url: str | None = None, baudrate: int | None = None,
                      progress: Progress = quiet) -> BoardReport:
    """Run the deployment once on its board (QEMU, or the board at serial_url) and compare with TFLM."""
    result = run(deployment, inputs, serial_url=serial_url, progress=progress, baudrate=baudrate)
    progress("running the same input through TensorFlow Lite Micro")
    equal = outputs_equal_oracle(model, inputs, result.outputs, len(deployment.graph.tensors))
    return BoardReport(model=source, board=deployment.firmware.board.name, interface=deployment.compiled.interface,
                       bit_exact=all(equal), outputs_compared=len(equal),
                       mismatches=[i for i, ok in enumerate(equal) if not ok], instructions=result.instructions)
