"""The serial link under faults, the full campaign: one tiny_cnn firmware run N times through a proxy that drops,
corrupts, duplicates and delays bytes and closes the connection at random points (tests/target/link_faults.py).
Prints the counts: runs, ok (TFLM's outputs), clean errors (one line, in time), wrong outputs, tracebacks, hangs,
orphan QEMUs; exit status 1 if any of the last four is not zero.

    python bench/link_faults.py [--runs 250] [--seed 0] [--workers 4] [--board mps2_an385] [--verbose]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "target"))

from link_faults import Campaign, counts  # noqa: E402

from firmware_gen.check.inputs import random_inputs  # noqa: E402
from firmware_gen.check.oracle import run_tflm  # noqa: E402
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.deploy import prepare  # noqa: E402
from firmware_gen.modelgen import zoo  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=250)
    parser.add_argument("--seed", type=int, default=0, help="the first seed; runs use seed .. seed+runs-1")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--board", default="mps2_an385")
    parser.add_argument("--verbose", action="store_true", help="print every run that did not end with outputs")
    args = parser.parse_args()
    model = zoo.tiny_cnn()
    with tempfile.TemporaryDirectory(prefix="fg-bench-link-") as scratch:
        deployment = prepare(model, "tiny_cnn.tflite", args.board, out_dir=Path(scratch))
        inputs = random_inputs(deployment.graph, seed=0)
        expected = run_tflm(model, inputs, len(deployment.graph.tensors)).outputs
        started = time.monotonic()
        outcomes = Campaign(deployment.firmware, inputs, expected).run(
            range(args.seed, args.seed + args.runs), workers=args.workers)
    for outcome in outcomes:
        if outcome.verdict != "ok" and (args.verbose or outcome.verdict != "clean_error"):
            print(f"seed {outcome.seed}: {outcome.verdict} after {outcome.seconds:.1f} s: {outcome.detail}")
    tally = counts(outcomes)
    print(" ".join(f"{name} {value}" for name, value in tally.items()),
          f"({time.monotonic() - started:.0f} s, {args.workers} at a time)")
    failures = tally["wrong_output"] + tally["traceback"] + tally["hang"] + tally["orphan"]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/link_faults.py"))
