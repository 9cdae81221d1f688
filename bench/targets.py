"""Prints, for each model x board: flash bytes, RAM bytes, pool bytes vs the activation lower bound, and
guest instructions per inference and per MAC (QEMU -icount shift=0: deterministic counts, not timings).

    python bench/targets.py [--models DIR] [--boards qemu_cortex_m3,mps2_an386] [--interface packed]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.model_summary import summarize
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.errors import DoesNotFitError
from firmware_gen.modelgen.mobilenet import mobilenet_v1
from firmware_gen.target.boards import list_boards

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--boards", default="qemu_cortex_m3,mps2_an385,mps2_an386,mps2_an500,mps3_an547")
    parser.add_argument("--interface", default="unpacked", choices=["unpacked", "packed"])
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/fg-bench"))
    args = parser.parse_args()
    boards = [b for b in args.boards.split(",") if b]
    unknown = sorted(set(boards) - set(list_boards()))
    if unknown:
        parser.error(f"unknown boards {unknown}; known: {list_boards()}")
    args.scratch.mkdir(parents=True, exist_ok=True)
    synthetic = args.scratch / "mobilenet_v1_025_96_seed0.tflite"
    synthetic.write_bytes(mobilenet_v1())
    models = [*sorted(args.models.glob("*.tflite"))] if args.models.is_dir() else []
    header = (f"{'model':<28} {'board':<15} {'flash B':>9} {'RAM B':>8} {'pool B':>8} {'lower bd':>8} "
              f"{'instructions':>13} {'instr/MAC':>9}  TFLM")
    print(f"interface: {args.interface}")
    print(header)
    print("-" * len(header))
    failures = 0
    for path in [*models, synthetic]:
        data = path.read_bytes()
        for board in boards:
            try:
                deployment = prepare(data, str(path), board, interface=args.interface)
            except DoesNotFitError as error:
                print(f"{path.stem:<28} {board:<15} does not fit: {error}")
                continue
            inputs = random_inputs(deployment.graph)
            result = run(deployment, inputs)
            exact = all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))
            failures += not exact
            macs = summarize(deployment.graph).macs
            firmware, plan = deployment.firmware, deployment.compiled.plan
            print(f"{path.stem:<28} {board:<15} {firmware.flash_bytes:>9,} {firmware.ram_bytes:>8,} "
                  f"{plan.pool_bytes:>8,} {plan.lower_bound_bytes:>8,} {result.instructions:>13,} "
                  f"{result.instructions / macs:>9.2f}  {'equal' if exact else 'DIFFERS'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/targets.py"))
