"""`firmware-gen validate MODEL --dataset FILE.npz`: every sample through the generated C (built once, on the
host) and through TFLM (one child process for all samples); per output the bit-exact count, max abs error, RMSE,
MAE and cosine similarity of the dequantized values, and with labels the top-1 accuracy of both."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from firmware_gen.check.host_validation import run_trace
from firmware_gen.check.oracle import run_tflm_batch
from firmware_gen.driver import compiler
from firmware_gen.frontend.ir import Graph, Tensor
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.host_build import build_trace_executable

Progress = Callable[[int, int], None]


def stderr_bar(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    print(f"\rfirmware-gen: samples [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="",
          file=sys.stderr, flush=True)
    if done == total:
        print(file=sys.stderr)


def no_progress(done: int, total: int) -> None:
    del done, total


@dataclass
class OutputMetrics:
    index: int
    bit_exact: int  # samples equal to TFLM's, every element
    max_abs_error: float  # dequantized
    max_abs_error_lsb: int
    rmse: float
    mae: float
    cosine: float


@dataclass
class DatasetReport:
    model: str
    samples: int
    outputs: list[OutputMetrics]
    accuracy: dict[str, float] | None = None  # "ours", "tflm": top-1 against the labels
    where: str = "host"

    @property
    def bit_exact(self) -> bool:
        return all(o.bit_exact == self.samples for o in self.outputs)

    def to_json(self) -> dict:
        return {**asdict(self), "bit_exact": self.bit_exact}

    def format(self) -> str:
        lines = [f"{self.model}: {self.samples} samples on the {self.where}, compared with TensorFlow Lite Micro"]
        for o in self.outputs:
            lines.append(f"  output {o.index}: bit-exact {o.bit_exact}/{self.samples}, max abs error "
                         f"{o.max_abs_error:.6g} ({o.max_abs_error_lsb} LSB), RMSE {o.rmse:.6g}, MAE {o.mae:.6g}, "
                         f"cosine {o.cosine:.6f}")
        if self.accuracy:
            lines.append(f"  top-1 accuracy: ours {100 * self.accuracy['ours']:.2f}%, "
                         f"TFLM {100 * self.accuracy['tflm']:.2f}%")
        return "\n".join(lines)


def _dequantize(tensor: Tensor, values: np.ndarray) -> np.ndarray:
    q = tensor.quantization
    data = values.astype(np.float64)
    return (data - q.zero_point) * q.scale if q else data


def output_metrics(index: int, tensor: Tensor, ours: list[np.ndarray], theirs: list[np.ndarray]) -> OutputMetrics:
    a = np.stack([x.ravel() for x in ours]).astype(np.int64)
    b = np.stack([x.ravel() for x in theirs]).astype(np.int64)
    fa, fb = _dequantize(tensor, a), _dequantize(tensor, b)
    diff = fa - fb
    norms = np.linalg.norm(fa, axis=1) * np.linalg.norm(fb, axis=1)
    cosine = np.where(norms > 0, np.sum(fa * fb, axis=1) / np.where(norms > 0, norms, 1), 1.0)
    return OutputMetrics(index, int(np.sum(np.all(a == b, axis=1))), float(np.max(np.abs(diff))),
                         int(np.max(np.abs(a - b))), float(np.sqrt(np.mean(diff ** 2))), float(np.mean(np.abs(diff))),
                         float(np.mean(cosine)))


def host_outputs(graph: Graph, data: bytes, source: str, samples: list[list[np.ndarray]],
                 progress: Progress, options: PlanningOptions) -> list[list[np.ndarray]]:
    """Every sample through the generated C, built once for the host."""
    with tempfile.TemporaryDirectory(prefix="fg-dataset-") as scratch:
        work = Path(scratch)
        compiler.generate(graph, work / "model", source=Path(source).name, options=options)
        executable = build_trace_executable(work / "model", work / "build")
        results = []
        for number, sample in enumerate(samples):
            _, outputs = run_trace(executable, work, sample, what=f"sample {number}: ")
            results.append([np.frombuffer(outputs[i], dtype=graph.tensors[t].dtype.numpy_type)
                            .reshape(graph.tensors[t].shape) for i, t in enumerate(graph.outputs)])
            progress(number + 1, len(samples))
    return results


def compare_dataset(graph: Graph, source: str, ours: list[list[np.ndarray]], theirs: list[list[np.ndarray]],
                    labels: np.ndarray | None) -> DatasetReport:
    outputs = [output_metrics(i, graph.tensors[t], [s[i] for s in ours], [s[i] for s in theirs])
               for i, t in enumerate(graph.outputs)]
    accuracy = None
    if labels is not None:
        top = {name: np.array([int(np.argmax(s[0].ravel())) for s in runs]) for name, runs in
               (("ours", ours), ("tflm", theirs))}
        accuracy = {name: float(np.mean(predicted == labels)) for name, predicted in top.items()}
    return DatasetReport(source, len(ours), outputs, accuracy)


def validate_dataset(graph: Graph, data: bytes, source: str, samples: list[list[np.ndarray]],
                     labels: np.ndarray | None = None, progress: Progress = no_progress,
                     options: PlanningOptions = PlanningOptions()) -> DatasetReport:
    with ThreadPoolExecutor(max_workers=1) as pool:  # TFLM's child process runs while the host executable does
        theirs = pool.submit(run_tflm_batch, data, samples)
        ours = host_outputs(graph, data, source, samples, progress, options)
        return compare_dataset(graph, source, ours, theirs.result(), labels)
