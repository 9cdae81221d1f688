"""What `firmware-gen run` shows of one run: each output raw and dequantized side by side, the top-5 of a
classifier's scores, and the inference time in milliseconds at the board's clock.

The time is the count of the whole invoke over the board's clock. Under QEMU (-icount) the count is guest
instructions, one per cycle at the board's nominal clock (`[clock] core_hz`): an estimate, not a measurement, and
the report says so; its SysTick ticks are only the instruction count in another unit, so the JSON leaves them out.
On a real board the count is the DWT's core cycles (or SysTick ticks) at the clock the firmware runs at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.link.runner import RunResult
from firmware_gen.target.boards import Board

TOP_K = 5
SHOWN_VALUES = 12  # values of each output printed; --json and --save-outputs have them all


@dataclass
class OutputReport:
    index: int
    tensor: int  # the output's tensor index in the model
    raw: np.ndarray  # as the firmware wrote it
    scale: float | None  # None: the output is not quantized
    zero_point: int
    top: list[int] = field(default_factory=list)  # a classifier's best classes, best first ([] otherwise)

    @property
    def dequantized(self) -> np.ndarray:
        if self.scale is None:
            return self.raw.astype(np.float64)
        return self.scale * (self.raw.astype(np.float64) - self.zero_point)

    def to_json(self) -> dict:
        scores = self.dequantized.ravel()
        return {"index": self.index, "tensor": self.tensor, "shape": list(self.raw.shape),
                "dtype": str(self.raw.dtype), "scale": self.scale, "zero_point": self.zero_point,
                "raw": self.raw.tolist(), "dequantized": self.dequantized.tolist(),
                "top5": [{"class": c, "raw": int(self.raw.ravel()[c]), "value": float(scores[c])} for c in self.top]}


@dataclass
class Timing:
    count: int  # of the whole invoke
    unit: str  # "instructions" (QEMU), "cycles" (DWT) or "SysTick ticks"
    hz: int  # the clock the count is converted at
    emulated: bool

    @property
    def milliseconds(self) -> float | None:
        return 1000.0 * self.count / self.hz if self.hz else None

    @property
    def basis(self) -> str:
        mhz = f"{self.hz / 1e6:g} MHz"
        if self.emulated:
            return f"QEMU: {self.count:,} instructions at the board's nominal {mhz}, an estimate, not a measurement"
        return f"{self.count:,} {self.unit} at {mhz}"

    def to_json(self) -> dict:
        return {"milliseconds": self.milliseconds, "count": self.count, "unit": self.unit, "clock_hz": self.hz,
                "estimated_from_instructions": self.emulated}


@dataclass
class RunReport:
    board: str
    outputs: list[OutputReport]
    timing: Timing

    def to_json(self) -> dict:
        return {"board": self.board, "time": self.timing.to_json(), "outputs": [o.to_json() for o in self.outputs]}

    def format(self) -> str:
        lines = [line for output in self.outputs for line in _format_output(output)]
        ms = self.timing.milliseconds
        if ms is None:
            lines.append(f"inference: {self.timing.count:,} {self.timing.unit} (the board file states no clock: "
                         "add [clock] core_hz for milliseconds)")
        else:
            lines.append(f"inference: {ms:.4g} ms on {self.board} ({self.timing.basis})")
        return "\n".join(lines)


def is_classifier(shape: tuple[int, ...]) -> bool:
    """A [1, N] output of N >= 2 scores."""
    return len(shape) == 2 and shape[0] == 1 and shape[1] >= 2


def _output_report(graph: Graph, index: int, raw: np.ndarray) -> OutputReport:
    tensor = graph.tensors[graph.outputs[index]]
    q = tensor.quantization
    top = [int(c) for c in np.argsort(-raw.ravel().astype(np.int64), kind="stable")[:TOP_K]]
    return OutputReport(index, tensor.index, raw, q.scale if q else None, q.zero_points[0] if q else 0,
                        top if is_classifier(raw.shape) else [])


def timing(result: RunResult, board: Board) -> Timing:
    """The whole invoke's count and the clock it converts at (see the module's docstring)."""
    if board.emulated:
        count = result.instructions
        if count is None:  # QEMU behind a serial port: SysTick ticks, converted as the runner does
            count = round(result.total_cycles * board.instructions_per_tick)
        return Timing(count, "instructions", board.core_hz, True)
    if result.counter == "systick":
        return Timing(result.total_cycles, "SysTick ticks", board.systick_hz, False)
    return Timing(result.total_cycles, "cycles", board.core_hz, False)


def build_run_report(graph: Graph, result: RunResult, board: Board) -> RunReport:
    outputs = [_output_report(graph, i, raw) for i, raw in enumerate(result.outputs)]
    return RunReport(board.name, outputs, timing(result, board))


def run_json(report: RunReport, result: RunResult) -> dict:
    """The run's JSON: the report, and of RunResult's counts those that mean something on this board (under QEMU
    the instructions; SysTick ticks are left out), each labelled with its unit."""
    data = {**result.to_json(), **report.to_json()}
    if report.timing.emulated:
        data["instructions"] = report.timing.count
        for meaningless in ("total_cycles", "step_cycles", "counter"):
            data.pop(meaningless)
    else:
        data["count_unit"] = report.timing.unit
    return data


def _columns(values: list[str]) -> str:
    return " ".join(f"{v:>8}" for v in values)


def _format_output(output: OutputReport) -> list[str]:
    raw, real = output.raw.ravel(), output.dequantized.ravel()
    shown = min(raw.size, SHOWN_VALUES)
    quant = f"scale {output.scale:.6g}, zero point {output.zero_point}" if output.scale is not None else "float"
    more = f", first {shown} of {raw.size} values" if shown < raw.size else ""
    lines = [f"output {output.index} (tensor {output.tensor}) {list(output.raw.shape)} {output.raw.dtype}, "
             f"{quant}{more}:",
             f"  {'raw':<12}{_columns([str(int(v)) for v in raw[:shown]])}",
             f"  {'dequantized':<12}{_columns([f'{v:.4g}' for v in real[:shown]])}"]
    if output.top:
        lines.append(f"  top-{len(output.top)}: {'class':>6} {'raw':>5} {'dequantized':>12}")
        lines += [f"  {'':<7}{c:>6} {int(raw[c]):>5} {real[c]:>12.6g}" for c in output.top]
    return lines


def save_outputs(path: str, outputs: list[np.ndarray]) -> None:
    """The raw outputs (the model's output dtype and shape): FILE.npy for a model of one output, FILE.npz
    (output_0, output_1, ...) for any number."""
    from firmware_gen.output_paths import written_file

    with written_file(path, "--save-outputs") as temporary:
        if path.endswith(".npz"):
            np.savez(temporary, **{f"output_{i}": o for i, o in enumerate(outputs)})
        else:
            np.save(temporary, outputs[0])


def check_save_path(path: str, outputs: int | None = None) -> None:
    """Refuse, before the build (outputs None) and before the run (outputs: the model's count), a --save-outputs
    that could not be written."""
    from firmware_gen.output_paths import check_output_file

    if not path.endswith((".npy", ".npz")):
        raise UserError(f"--save-outputs {path}: give a .npy file (one output) or a .npz file (any number)")
    if outputs is None:
        check_output_file(path, "--save-outputs")
    elif outputs > 1 and path.endswith(".npy"):
        raise UserError(f"--save-outputs {path}: the model has {outputs} outputs and a .npy holds one array: "
                        "give a .npz file")
