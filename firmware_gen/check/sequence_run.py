"""What `firmware-gen run` shows of a sequence (--input with a leading frames axis, run in order through one model
instance, state carried): the profile of the first invocation, then each invocation's time and outputs."""

from __future__ import annotations

import numpy as np

from firmware_gen.check.run_report import RunReport, build_run_report, run_json
from firmware_gen.frontend.ir import Graph
from firmware_gen.link.runner import RunResult
from firmware_gen.target.boards import Board


def sequence_reports(graph: Graph, results: list[RunResult], board: Board) -> list[RunReport]:
    return [build_run_report(graph, result, board) for result in results]


def format_sequence(reports: list[RunReport]) -> str:
    lines = []
    for invocation, report in enumerate(reports):
        lines.append(f"invocation {invocation} of {len(reports)}:")
        lines += [f"  {line}" for line in report.format().splitlines()]
    return "\n".join(lines)


def sequence_json(reports: list[RunReport], results: list[RunResult]) -> list[dict]:
    return [run_json(report, result) for report, result in zip(reports, results, strict=True)]


def stacked_outputs(results: list[RunResult]) -> list[np.ndarray]:
    """Each output over the sequence: frames x the output's shape, as the inputs were given."""
    return [np.stack([result.outputs[i] for result in results]) for i in range(len(results[0].outputs))]
