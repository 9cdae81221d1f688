"""`firmware-gen validate MODEL --dataset FILE.npz`: every sample through the generated C (built once, on the
host) and through TFLM (one child process for all samples); per output the bit-exact count, max abs error, RMSE,
MAE and cosine similarity of the dequantized values, and with labels the top-1 accuracy of both. With a float
reference model (`--reference`, check/reference_model.py) the same metrics of our dequantized outputs against the
float model's: the quantization error."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from firmware_gen.check.host_validation import run_trace, run_trace_sequence
from firmware_gen.check.oracle import run_tflm_batch
from firmware_gen.check.reference_model import ReferenceModel
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
class ReferenceMetrics:
    """Our dequantized output against the float reference model's."""

    index: int
    max_abs_error: float
    rmse: float
    mae: float
    cosine: float

    def format(self) -> str:
        return (f"    output {self.index}: max abs error {self.max_abs_error:.6g}, RMSE {self.rmse:.6g}, "
                f"MAE {self.mae:.6g}, cosine {self.cosine:.6f}")


@dataclass
class DatasetReport:
    model: str
    samples: int
    outputs: list[OutputMetrics]
    accuracy: dict[str, float] | None = None  # "ours", "tflm" (and "float" with a reference): top-1
    where: str = "host"
    reference: str | None = None  # the float model's path
    reference_outputs: list[ReferenceMetrics] | None = None

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
        if self.reference_outputs is not None:
            lines.append(f"  against the float model {self.reference} (LiteRT), the quantization error:")
            lines += [metrics.format() for metrics in self.reference_outputs]
        if self.accuracy:
            names = {"ours": "ours", "tflm": "TFLM", "float": "float model"}
            shown = ", ".join(f"{names[name]} {100 * value:.2f}%" for name, value in self.accuracy.items())
            lines.append(f"  top-1 accuracy: {shown}")
        return "\n".join(lines)


def _dequantize(tensor: Tensor, values: np.ndarray) -> np.ndarray:
    q = tensor.quantization
    data = values.astype(np.float64)
    return (data - q.zero_point) * q.scale if q else data


def _errors(fa: np.ndarray, fb: np.ndarray) -> tuple[float, float, float, float]:
    """(max abs error, RMSE, MAE, mean cosine similarity per sample) of two (samples, elements) float arrays."""
    diff = fa - fb
    norms = np.linalg.norm(fa, axis=1) * np.linalg.norm(fb, axis=1)
    cosine = np.where(norms > 0, np.sum(fa * fb, axis=1) / np.where(norms > 0, norms, 1), 1.0)
    return (float(np.max(np.abs(diff))), float(np.sqrt(np.mean(diff ** 2))), float(np.mean(np.abs(diff))),
            float(np.mean(cosine)))


def output_metrics(index: int, tensor: Tensor, ours: list[np.ndarray], theirs: list[np.ndarray]) -> OutputMetrics:
    a = np.stack([x.ravel() for x in ours]).astype(np.int64)
    b = np.stack([x.ravel() for x in theirs]).astype(np.int64)
    max_abs, rmse, mae, cosine = _errors(_dequantize(tensor, a), _dequantize(tensor, b))
    return OutputMetrics(index, int(np.sum(np.all(a == b, axis=1))), max_abs, int(np.max(np.abs(a - b))), rmse, mae,
                         cosine)


def reference_metrics(index: int, tensor: Tensor, ours: list[np.ndarray], floats: list[np.ndarray],
                      ) -> ReferenceMetrics:
    """Our outputs, dequantized, against the float model's."""
    fa = _dequantize(tensor, np.stack([x.ravel() for x in ours]))
    fb = np.stack([x.ravel() for x in floats]).astype(np.float64)
    return ReferenceMetrics(index, *_errors(fa, fb))


def _top1(runs: list[list[np.ndarray]]) -> np.ndarray:
    return np.array([int(np.argmax(s[0].ravel())) for s in runs])


def host_outputs(graph: Graph, data: bytes, source: str, samples: list[list[np.ndarray]],
                 progress: Progress, options: PlanningOptions) -> list[list[np.ndarray]]:
    """Every sample through the generated C, built once for the host."""
    with tempfile.TemporaryDirectory(prefix="fg-dataset-") as scratch:
        work = Path(scratch)
        compiler.generate(graph, work / "model", source=Path(source).name, options=options)
        executable = build_trace_executable(work / "model", work / "build")
        if graph.state_tensors:  # one process, the state carried from sample to sample as on TFLM's interpreter
            runs = [outputs for _, outputs in run_trace_sequence(executable, work, samples)]
        else:
            runs = (run_trace(executable, work, sample, what=f"sample {n}: ")[1] for n, sample in enumerate(samples))
        results = []
        for number, outputs in enumerate(runs):
            results.append([np.frombuffer(outputs[i], dtype=graph.tensors[t].dtype.numpy_type)
                            .reshape(graph.tensors[t].shape) for i, t in enumerate(graph.outputs)])
            progress(number + 1, len(samples))
    return results


def compare_dataset(graph: Graph, source: str, ours: list[list[np.ndarray]], theirs: list[list[np.ndarray]],
                    labels: np.ndarray | None, floats: list[list[np.ndarray]] | None = None,
                    reference: str | None = None) -> DatasetReport:
    """floats: the float reference model's outputs of each sample (with `reference`, its path), or None."""
    outputs = [output_metrics(i, graph.tensors[t], [s[i] for s in ours], [s[i] for s in theirs])
               for i, t in enumerate(graph.outputs)]
    runs = {"ours": ours, "tflm": theirs, **({"float": floats} if floats is not None else {})}
    accuracy = None
    if labels is not None:
        accuracy = {name: float(np.mean(_top1(outputs_of) == labels)) for name, outputs_of in runs.items()}
    against = None
    if floats is not None:
        against = [reference_metrics(i, graph.tensors[t], [s[i] for s in ours], [s[i] for s in floats])
                   for i, t in enumerate(graph.outputs)]
    return DatasetReport(source, len(ours), outputs, accuracy, reference=reference, reference_outputs=against)


def validate_dataset(graph: Graph, data: bytes, source: str, samples: list[list[np.ndarray]],
                     labels: np.ndarray | None = None, progress: Progress = no_progress,
                     options: PlanningOptions = PlanningOptions(), reference: ReferenceModel | None = None,
                     float_samples: list[list[np.ndarray]] | None = None) -> DatasetReport:
    """reference, float_samples: a float model and the samples as float, for the quantization error."""
    with ThreadPoolExecutor(max_workers=1) as pool:  # TFLM's child process runs while the host executable does
        theirs = pool.submit(run_tflm_batch, data, samples)
        ours = host_outputs(graph, data, source, samples, progress, options)
        floats = reference.run(float_samples if float_samples is not None else samples) if reference else None
        return compare_dataset(graph, source, ours, theirs.result(), labels, floats,
                               reference.path if reference else None)
