"""Patch-based execution (issue 24): per model, the pool without and with `--patches min` (the inputs and outputs in
the pool, and in the caller's buffers), QEMU's exact instruction counts without and with on each board, whether the
run is bit-exact with TFLM, and the stage and grid chosen.

    python bench/patches.py [--models DIR] [--boards mps2_an385,mps2_an386] [--only NAME] [--no-run]

Models: every .tflite of ../shared/models, then the MobileNets modelgen writes (`GENERATED`; mobilenet_v2 joins
them once firmware_gen/modelgen/mobilenet_v2.py exists). The estimate of extra instructions the compiler chose by is
printed beside the measured count; only the count is exact.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
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


def generated_models() -> dict[str, Callable[[], bytes]]:
    models: dict[str, Callable[[], bytes] | None] = {
        "mobilenet_v1_0.25_96 (modelgen)": _mobilenet_v1,
        "mobilenet_v2_0.35_96 (modelgen)": _mobilenet_v2(0.35, 96),
        "mobilenet_v2_1.0_128 (modelgen)": _mobilenet_v2(1.0, 128),
    }
    return {name: make for name, make in models.items() if make is not None}


def pool_and_stage(graph, board: str, options: PlanningOptions) -> tuple[int, str, str]:
    compiled = compile_graph(graph, options=options, isa=load_board(board).isa)
    stage = compiled.stage
    if stage is None:
        return compiled.plan.pool_bytes, "-", "-"
    first, last = (graph.operators[p].index for p in (stage.stage.positions[0], stage.stage.last))
    label = f"ops {first}..{last} {stage.stage.grid[0]}x{stage.stage.grid[1]}"
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
            except UserError as error:
                rows.append(f"{name:<34} {board:<11} {'in' if io_in_pool else 'out':<4} {error}")
                continue
            counts = "-"
            if run_boards and stage != "-":
                (base, exact_off), (patched, exact_on) = (instructions(data, name, board, o) for o in (off, on))
                verdict = "bit-exact" if exact_off and exact_on else "MISMATCH"
                counts = f"{base:>11,} {patched:>11,} {patched / base - 1:>+7.1%}  {verdict}"
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
    sys.exit(main())
