"""Prints, for each shared model x QEMU board: the static worst-case stack (target/stack_bound.py: the deepest path
from reset, an exception frame on top), the high-water mark measured under QEMU (the stack painted at reset, read
at the end), their ratio, and whether the bound is exact (no recursion, unresolved call or unsized frame).

    python bench/stack_bounds.py [--models DIR] [--boards mps2_an385,microbit]

The issue's target: bound >= measured, and bound <= 1.25 x measured, on every pair that fits.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_gen.check.inputs import random_inputs
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.errors import DoesNotFitError
from firmware_gen.target.boards import list_boards

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
LOOSE = 1.25


def _row(path: Path, board: str) -> tuple[str, bool]:
    try:
        deployment = prepare(path.read_bytes(), str(path), board)
    except DoesNotFitError as error:
        return f"does not fit: {error}", True
    bound = deployment.firmware.stack
    measured = run(deployment, random_inputs(deployment.graph, seed=0)).stack_bytes_used
    if bound is None or measured is None:
        return "no bound or no measurement", False
    ratio = bound.thread.bytes / measured
    good = bound.exact and measured <= bound.thread.bytes
    tight = "" if ratio <= LOOSE else f"  looser than {LOOSE}x: deepest path {bound.thread.describe()}"
    exact = "exact" if bound.exact else "NOT EXACT: " + "; ".join(bound.problems)
    return f"{bound.thread.bytes:>8,} {measured:>9,} {ratio:>6.2f}x  {exact}{tight}", good


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--boards", default=",".join(list_boards(emulated=True)))
    args = parser.parse_args()
    boards = [b for b in args.boards.split(",") if b]
    print(f"{'model':<26} {'board':<19} {'bound B':>8} {'measured':>9} {'ratio':>7}")
    failures = 0
    for path in sorted(args.models.glob("*.tflite")):
        for board in boards:
            text, good = _row(path, board)
            failures += not good
            print(f"{path.stem:<26} {board:<19} {text}", flush=True)
    print(f"{failures} pair(s) with a bound below the measurement, not exact, or not measured")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/stack_bounds.py"))
