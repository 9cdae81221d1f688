"""Runs both sides and lines them up: per case, elements, TFLM reference instructions per element, ours,
their ratio and whether the outputs are byte-equal."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.target.boards import load_board
from tflm_reference.cases import build_model
from tflm_reference.harness import build_harness, fnv1a, run_harness


@dataclass
class Row:
    label: str
    elements: int
    tflm: int  # instructions of TFLM's reference kernel
    ours: int  # instructions of firmware-gen's step
    equal: bool

    @property
    def ratio(self) -> float:
        return self.ours / self.tflm if self.tflm else float("inf")


def compare(tflm_src: Path, board_name: str, scratch: Path, only: list[str]) -> list[Row]:
    board = load_board(board_name)
    model = build_model(only)
    data = model.builder.build()
    deployment = prepare(data, "reference_kernels", board)
    inputs = random_inputs(deployment.graph, seed=0)
    ours = run(deployment, inputs)
    elf = build_harness(model, inputs, tflm_src, board, scratch)
    theirs = run_harness(elf, board, len(model.cases))
    output_of = dict(zip(deployment.graph.outputs, ours.outputs, strict=True))
    rows = []
    for case, reference in zip(model.cases, theirs, strict=True):
        our_bytes = np.ascontiguousarray(output_of[case.output]).tobytes()
        rows.append(Row(case.label, case.elements, reference.instructions,
                        ours.step_instructions[case.op_index], fnv1a(our_bytes) == reference.output_hash))
    return rows


def print_table(board: str, rows: list[Row]) -> None:
    print(f"board {board}: guest instructions per element, TFLM reference kernel vs firmware-gen "
          "(ratio < 1: ours is faster)")
    print(f"| {'operator':<38} | {'elements':>8} | {'TFLM ref/elem':>13} | {'ours/elem':>9} | {'ratio':>5} "
          f"| {'byte-equal':<10} |")
    print(f"|{'-' * 40}|{'-' * 10}:|{'-' * 14}:|{'-' * 10}:|{'-' * 6}:|{'-' * 12}|")
    for r in rows:
        print(f"| {r.label:<38} | {r.elements:>8,} | {r.tflm / r.elements:>13.2f} | {r.ours / r.elements:>9.2f} "
              f"| {r.ratio:>5.2f} | {'yes' if r.equal else 'NO':<10} |")
