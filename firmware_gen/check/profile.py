"""The per-layer profile of one run: where the instructions go, and how many MACs each one buys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from firmware_gen.errors import UserError
from firmware_gen.figures import pyplot, save_figure
from firmware_gen.frontend.ir import Graph
from firmware_gen.link.runner import RunResult
from firmware_gen.ops import macs
from firmware_gen.ops.base import KernelCall

PROFILE_DPI = 120


@dataclass
class LayerProfile:
    index: int
    opcode: str
    output_shape: list[int]
    macs: int
    count: int  # instructions under QEMU, core cycles on a board
    share: float  # of the sum over all steps, 0..1
    macs_per_count: float | None
    kernel: str = ""  # the C function the step called ("" for a view, which runs no code)
    isa: str = ""  # the instruction-set class that function was chosen for ("portable C" when no variant fit)
    estimated_cycles: int | None = None  # an estimate from QEMU's execution trace (run --cycles), not a measurement


@dataclass
class ModelProfile:
    board: str
    unit: str  # "instructions" or "cycles"
    layers: list[LayerProfile]
    macs: int
    count: int  # the sum over the steps
    invoke_count: int  # the whole invoke, hook calls between steps included
    cycle_estimate: dict | None = None  # CycleEstimate.to_json() plus the clock, when the run estimated cycles
    counter: str = ""  # RunResult.counter: what timed the steps ("systick", "dwt", "zephyr_cycles")

    @property
    def macs_per_count(self) -> float | None:
        return self.macs / self.count if self.count else None

    def to_json(self) -> dict:
        return {**asdict(self), "macs_per_count": self.macs_per_count}


def build_profile(graph: Graph, result: RunResult, calls: Mapping[int, KernelCall] | None = None,
                  core_hz: int = 0) -> ModelProfile:
    """calls: the compiled model's kernel calls, to name the kernel of each step; core_hz: the board's clock, to
    turn estimated cycles into milliseconds."""
    if len(result.step_cycles) != len(graph.operators):
        raise UserError(f"the run timed {len(result.step_cycles)} steps; the model has {len(graph.operators)} "
                        "operators: was the firmware built from this model?")
    if result.step_instructions is not None:
        unit, counts, invoke = "instructions", result.step_instructions, result.instructions or 0
    else:
        unit, counts, invoke = "cycles", result.step_cycles, result.total_cycles
    total = sum(counts)
    layers = []
    op_macs = macs(graph)
    for op, count in zip(graph.operators, counts, strict=True):
        n = op_macs[op.index]
        call = (calls or {}).get(op.index)
        layers.append(LayerProfile(op.index, op.opcode, list(graph.tensors[op.outputs[0]].shape), n, count,
                                   count / total if total else 0.0, n / count if count and n else None,
                                   call.function if call else "", call.isa if call else ""))
    estimate = None
    if result.cycles is not None:
        for layer, position in zip(layers, range(len(layers)), strict=True):
            layer.estimated_cycles = round(result.cycles.segments.get(position, 0.0))
        estimate = {**result.cycles.to_json(), "core_hz": core_hz,
                    "ms": 1e3 * result.cycles.cycles / core_hz if core_hz else None}
    return ModelProfile(result.board, unit, layers, sum(layer.macs for layer in layers), total, invoke, estimate,
                        result.counter)


def _estimate_columns(profile: ModelProfile, cycles: int | None) -> str:
    if profile.cycle_estimate is None:
        return ""
    hz = profile.cycle_estimate.get("core_hz") or 0
    ms = f"{1e3 * cycles / hz:.3f}" if hz and cycles is not None else "-"
    return f" {cycles if cycles is not None else 0:>14,} {ms:>9}"


def estimate_note(estimate: dict) -> str:
    hz = estimate.get("core_hz") or 0
    at = f" = {estimate['ms']:.3f} ms at {hz / 1e6:g} MHz" if hz else ""
    return (f"est. cycles: an ESTIMATE, not a measurement ({estimate['core']} timing model on QEMU's execution "
            f"trace of {estimate['trace_instructions']:,} instructions): the invoke {estimate['cycles']:,} "
            f"cycles{at}, of them {estimate['wait_state_cycles']:,} wait states; memory assumed: "
            f"{estimate['memory']}")


# How a Zephyr run was timed, said after its profile (a bare-metal run: SysTick under QEMU, else the DWT).
_ZEPHYR_COUNTERS = {"zephyr_cycles": "; timed by Zephyr's k_cycle_get_32() (SysTick)",
                    "dwt": "; timed by the DWT cycle counter"}


def format_profile(profile: ModelProfile) -> str:
    unit = profile.unit
    extra = f" {'est. cycles':>14} {'est. ms':>9}" if profile.cycle_estimate is not None else ""
    lines = [f"{'#':>4}  {'operator':<18} {'output shape':<18} {'MACs':>12} {unit:>14} {'%':>6} "
             f"{'MACs/' + unit[:5]:>11}{extra}  kernel"]
    for layer in profile.layers:
        ratio = f"{layer.macs_per_count:.3f}" if layer.macs_per_count is not None else "-"
        kernel = f"{layer.kernel} ({layer.isa})" if layer.kernel else ""
        lines.append(f"{layer.index:>4}  {layer.opcode:<18} {str(layer.output_shape):<18} {layer.macs:>12,} "
                     f"{layer.count:>14,} {100 * layer.share:>6.2f} {ratio:>11}"
                     f"{_estimate_columns(profile, layer.estimated_cycles)}  {kernel}".rstrip())
    ratio = f"{profile.macs_per_count:.3f}" if profile.macs_per_count is not None else "-"
    steps = sum(layer.estimated_cycles or 0 for layer in profile.layers)
    lines.append(f"{'':>4}  {'total':<18} {'':<18} {profile.macs:>12,} {profile.count:>14,} {100.0:>6.2f} "
                 f"{ratio:>11}{_estimate_columns(profile, steps if profile.cycle_estimate else None)}".rstrip())
    overhead = profile.invoke_count - profile.count
    timed_by = _ZEPHYR_COUNTERS.get(profile.counter, "") if "Zephyr" in profile.board else ""
    lines.append(f"board {profile.board}: the whole invoke took {profile.invoke_count:,} {unit} "
                 f"({overhead:,} outside the steps: calls and timing hooks){timed_by}")
    if profile.cycle_estimate is not None:
        lines.append(estimate_note(profile.cycle_estimate))
    return "\n".join(lines)


def profile_figure(profile: ModelProfile, title: str = "") -> Any:
    """A bar chart of the count per layer, as a matplotlib figure (the caller saves and closes it)."""
    plt = pyplot()
    labels = [f"{layer.index} {layer.opcode}" for layer in profile.layers]
    # Horizontal bars, one row per layer, first layer at the top: readable for 100+ layers (the figure grows).
    figure, axes = plt.subplots(figsize=(8.0, max(3.0, 0.18 * len(labels) + 1.5)))
    axes.barh(range(len(labels)), [layer.count for layer in profile.layers], color="tab:blue")
    axes.set_yticks(range(len(labels)), labels, fontsize=7 if len(labels) <= 60 else 5)
    axes.set_ylim(len(labels) - 0.5, -0.5)
    axes.set_xlabel(f"{profile.unit} per layer")
    total = f"total {profile.count:,} {profile.unit} over {len(labels)} layers"
    axes.set_title(f"{title} ({total})" if title else f"{profile.board}: {total}", fontsize=9)
    figure.tight_layout()
    return figure


def plot_profile(profile: ModelProfile, path: str | Path, title: str = "") -> Path:
    """The profile's bar chart as a PNG at `path`. Needs matplotlib (pip install matplotlib)."""
    return save_figure(profile_figure(profile, title), path, dpi=PROFILE_DPI)
