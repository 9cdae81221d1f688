"""Patch-based execution (issue 24): per model, the pool without and with `--patches min` (the inputs and outputs in
the pool, and in the caller's buffers), QEMU's exact instruction counts without and with on each board, whether the
run is bit-exact with TFLM, and the stage and grid chosen.

    python bench/patches.py [--models DIR] [--boards mps2_an385,mps2_an386] [--only NAME] [--no-run]

Models: every .tflite of ../shared/models, then the MobileNets modelgen writes (mobilenet_v2 from
firmware_gen/modelgen/mobilenet_v2.py once it exists; until then `mobilenet_v2_stand_in`, written here). The
estimate of extra instructions the compiler chose by is printed beside the measured count; only the count is exact.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.compiler import compile_graph
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.errors import UserError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.boards import load_board

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"


def _mobilenet_v1() -> bytes:
    from firmware_gen.modelgen.mobilenet import mobilenet_v1

    return mobilenet_v1(alpha=0.25, input_size=96, channels=3, num_classes=2, seed=1)


def _mobilenet_v2(alpha: float, size: int) -> Callable[[], bytes] | None:
    """The hook for the MobileNetV2 generator (firmware_gen/modelgen/mobilenet_v2.py, written on another branch):
    None until modelgen has it; its function called with those of these arguments it takes."""
    try:
        module = importlib.import_module("firmware_gen.modelgen.mobilenet_v2")
    except ModuleNotFoundError:
        return None
    make = module.mobilenet_v2
    wanted = {"alpha": alpha, "input_size": size, "num_classes": 2, "seed": 1}
    taken = {k: v for k, v in wanted.items() if k in inspect.signature(make).parameters}
    return lambda: make(**taken)


def _inverted_residual(graph, x, expand: int, out: int, stride: int, name: str):
    channels = x.values.shape[3]
    y = graph.conv2d(x, channels * expand, kernel=1, name=f"{name}_expand") if expand != 1 else x
    y = graph.depthwise_conv2d(y, stride=stride, name=f"{name}_dw")
    y = graph.conv2d(y, out, kernel=1, activation="NONE", name=f"{name}_project", mean=0.0)
    return graph.add(x, y, name=f"{name}_add") if stride == 1 and channels == out else y


def mobilenet_v2_stand_in(alpha: float, size: int) -> bytes:
    """A MobileNetV2 (Sandler et al.: the inverted residual blocks, ReLU6, linear bottlenecks) at `alpha` and
    `size`, written here until modelgen has its own generator; random calibrated weights, 2 classes."""
    from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images

    def width(n: int) -> int:
        return max(8, int(n * alpha + 4) // 8 * 8)
    graph = CalibratedBuilder(name=f"mobilenet_v2_{alpha}_{size}", seed=1)
    x = graph.input("input", calibration_images(graph.rng, 4, size, size, 3), dtype="int8")
    x = graph.conv2d(x, width(32), stride=2, name="stem")
    blocks = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    for group, (expand, out, repeat, stride) in enumerate(blocks):
        for k in range(repeat):
            x = _inverted_residual(graph, x, expand, width(out), stride if k == 0 else 1, f"block{group}_{k}")
    x = graph.conv2d(x, 1280, kernel=1, name="head")
    x = graph.average_pool(x, x.values.shape[1], name="pool")
    x = graph.reshape(x, (1, x.values.shape[3]), name="flatten")
    graph.output(graph.fully_connected(x, 2, name="classifier"))
    return graph.build()


def generated_models() -> dict[str, Callable[[], bytes]]:
    v2 = {(0.35, 96): _mobilenet_v2(0.35, 96), (1.0, 96): _mobilenet_v2(1.0, 96)}
    models: dict[str, Callable[[], bytes] | None] = {"mobilenet_v1_0.25_96 (modelgen)": _mobilenet_v1}
    for (alpha, size), make in v2.items():
        if make is not None:
            models[f"mobilenet_v2_{alpha}_{size} (modelgen)"] = make
        else:
            models[f"mobilenet_v2_{alpha}_{size} (stand-in)"] = functools.partial(mobilenet_v2_stand_in, alpha, size)
    return {name: make for name, make in models.items() if make is not None}


def pool_and_stage(graph, board: str, options: PlanningOptions) -> tuple[int, str, str]:
    compiled = compile_graph(graph, options=options, isa=load_board(board).isa)
    stage = compiled.stage
    if stage is None:
        return compiled.plan.pool_bytes, "-", "-"
    first, last = (compiled.graph.operators[p].index for p in (stage.stage.positions[0], stage.stage.last))
    grid = stage.stage.spec if stage.stage.mode == "rows" else f"{stage.stage.grid[0]}x{stage.stage.grid[1]}"
    label = f"ops {first}..{last} {grid}"
    return compiled.plan.pool_bytes, label, f"+{stage.extra_fraction:.1%}"


def instructions(data: bytes, name: str, board: str, options: PlanningOptions) -> tuple[int, bool]:
    deployment = prepare(data, name, board, options=options)
    inputs = random_inputs(deployment.graph, 0)
    result = run(deployment, inputs)
    equal = outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors))
    return result.instructions, all(equal)


def measure(name: str, data: bytes, boards: list[str], run_boards: bool) -> list[str]:
    graph = read_model(data, name)
    rows = []
    for io_in_pool in (True, False):
        off = PlanningOptions(io_in_pool=io_in_pool, patches="off")
        on = PlanningOptions(io_in_pool=io_in_pool, patches="min")
        for board in boards:
            try:
                before, _, _ = pool_and_stage(graph, board, off)
                after, stage, estimate = pool_and_stage(graph, board, on)
                counts = "-"
                if run_boards and stage != "-":
                    (base, exact_off), (patched, exact_on) = (instructions(data, name, board, o) for o in (off, on))
                    verdict = "bit-exact" if exact_off and exact_on else "MISMATCH"
                    counts = f"{base:>11,} {patched:>11,} {patched / base - 1:>+7.1%}  {verdict}"
            except UserError as error:  # a plan or a firmware that does not fit the board: its row says so
                rows.append(f"{name:<34} {board:<11} {'in' if io_in_pool else 'out':<4} {error}")
                continue
            rows.append(f"{name:<34} {board:<11} {'in' if io_in_pool else 'out':<4} {before:>8,} {after:>8,} "
                        f"{stage:<16} {estimate:>7}  {counts}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--boards", default="mps2_an385,mps2_an386")
    parser.add_argument("--only", help="models whose name contains this")
    parser.add_argument("--no-run", action="store_true", help="pools only, no QEMU runs")
    args = parser.parse_args()
    models: dict[str, Callable[[], bytes]] = {p.stem: p.read_bytes for p in sorted(args.models.glob("*.tflite"))}
    models.update(generated_models())
    boards = args.boards.split(",")
    print(f"{'model':<34} {'board':<11} {'I/O':<4} {'pool off':>8} {'pool min':>8} {'stage':<16} {'est.':>7}  "
          f"{'instr off':>11} {'instr min':>11} {'measured':>8}")
    for name, make in models.items():
        if args.only and args.only not in name:
            continue
        for row in measure(name, make(), boards, not args.no_run):
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/patches.py"))
