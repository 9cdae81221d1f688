"""`validate MODEL --dataset FILE.npz --jobs N | --ray auto|ADDRESS`: the samples cut into consecutive chunks, one
per worker (local processes or Ray tasks), each chunk through the generated C (on the host, or a QEMU board with
its samples in flash) and through TFLM in its worker; the driver puts the outputs back in order and compares them
as one worker does (dataset_validation.compare_dataset), so the report is the same. A model that keeps state from
sample to sample runs as one chunk: its state must pass from each sample to the next."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.check.dataset_validation import DatasetReport, Progress, compare_dataset, host_outputs, no_progress
from firmware_gen.check.oracle import run_tflm_batch
from firmware_gen.check.reference_model import ReferenceModel
from firmware_gen.driver.dataset_deploy import check_emulated, run_dataset
from firmware_gen.driver.deploy import prepare
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.planner import PlanningOptions
from firmware_gen.sweep.run import make_executor
from firmware_gen.target.boards import load_board

Outputs = list[list[np.ndarray]]


def chunk_outputs(data: bytes, source: str, samples: Outputs, board: str | None, interface: str,
                  options: PlanningOptions, generation: GenerationOptions) -> tuple[Outputs, Outputs]:
    """In a worker: (ours, TFLM's) outputs of these samples, ours on the host or on the QEMU board."""
    with ThreadPoolExecutor(max_workers=1) as pool:  # TFLM's child process runs while ours do
        theirs = pool.submit(run_tflm_batch, data, samples)
        if board is None:
            ours = host_outputs(read_model(data, source), data, source, samples, no_progress, options)
        else:
            deployment = prepare(data, source, board, interface=interface, options=options, generation=generation)
            ours = run_dataset(deployment, samples)
        return ours, theirs.result()


def _raised(error: BaseException) -> BaseException:
    """The error a chunk ended with, as the user should see it: a UserError as it is (Ray wraps it)."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, UserError):
        return cause
    if isinstance(error, UserError):
        return error
    return RuntimeError(f"a chunk of the dataset failed: {' '.join(str(error).split())}")


def validate_dataset_chunked(graph: Graph, data: bytes, source: str, samples: Outputs,
                             labels: np.ndarray | None = None, *, jobs: int | None = None, ray: str | None = None,
                             board: str | None = None, interface: str = "unpacked",
                             options: PlanningOptions = PlanningOptions(),
                             generation: GenerationOptions = GenerationOptions(), progress: Progress = no_progress,
                             reference: ReferenceModel | None = None,
                             float_samples: Outputs | None = None) -> DatasetReport:
    if board is not None:
        check_emulated(board)
    executor = make_executor(jobs, ray)
    try:
        chunks = 1 if graph.state_tensors else max(1, min(jobs or executor.cpus(), len(samples)))
        bounds = np.linspace(0, len(samples), chunks + 1).astype(int)
        parts = [samples[start:end] for start, end in zip(bounds[:-1], bounds[1:], strict=True)]
        holds = [executor.board_resource(load_board(board)) if board else None] * chunks
        calls = [(data, source, part, board, interface, options, generation) for part in parts]
        results: list = [None] * chunks
        done = 0
        for index, result, _ in executor.run(chunk_outputs, calls, holds):
            if isinstance(result, BaseException):
                raise _raised(result)
            results[index] = result
            done += len(parts[index])
            progress(done, len(samples))
    finally:
        executor.close()
    ours = [outputs for chunk in results for outputs in chunk[0]]
    theirs = [outputs for chunk in results for outputs in chunk[1]]
    floats = reference.run(float_samples if float_samples is not None else samples) if reference else None
    report = compare_dataset(graph, source, ours, theirs, labels, floats, reference.path if reference else None)
    if board is not None:
        report.where = board
    return report
