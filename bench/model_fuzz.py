"""The importer and planner fuzz campaign, in full: N mutated models (tests/model_fuzz.py: truncations, flipped
bits, overwritten words; wrong indices, huge shapes, negative strides, zero or NaN scales, quantization of the
wrong length...) through inspect, plan and generate in-process. Prints the counts: cases, results, one-line
UserErrors, tracebacks, cases over 5 s; exit status 1 if any of the last two is not zero.

    python bench/model_fuzz.py [--cases 10000] [--seed 0] [--verbose]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from model_fuzz import campaign, counts  # noqa: E402

from firmware_gen.cli.stop_signals import run_script


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0, help="the first seed; cases use seed .. seed+cases-1")
    parser.add_argument("--verbose", action="store_true", help="print every case's error, not only the findings")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warnings on absurd scales
    started = time.monotonic()
    outcomes = campaign(range(args.seed, args.seed + args.cases))
    for outcome in outcomes:
        if outcome.verdict in ("traceback", "slow") or (args.verbose and outcome.verdict == "user_error"):
            print(f"seed {outcome.seed}: {outcome.verdict} in {outcome.stage} after {outcome.seconds:.2f} s: "
                  f"{outcome.detail}")
    tally = counts(outcomes)
    slowest = max((o.seconds for o in outcomes), default=0.0)
    print(" ".join(f"{name} {value}" for name, value in tally.items()),
          f"(slowest case {slowest:.2f} s; {time.monotonic() - started:.0f} s in all)")
    return 1 if tally["traceback"] or tally["slow"] else 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/model_fuzz.py"))
