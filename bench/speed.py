"""Prints, for each shared model x board: guest instructions per inference, instructions per MAC and flash bytes,
and whether the outputs equal TFLM's (QEMU -icount shift=0: deterministic counts, not timings).

    python bench/speed.py [--models DIR] [--boards qemu_cortex_m3,mps2_an386,mps3_an547]
                          [--save after.json] [--compare before.json]

--save writes the rows as JSON; --compare adds the instructions of an earlier --save and the speed-up.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.model_summary import summarize
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.errors import DoesNotFitError
from firmware_gen.target.boards import list_boards

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
DEFAULT_BOARDS = "qemu_cortex_m3,mps2_an386,mps3_an547"


def measure(path: Path, board: str) -> dict:
    """One row: instructions, instructions per MAC, flash bytes and the oracle's verdict (or why it did not run)."""
    data = path.read_bytes()
    row: dict = {"model": path.stem, "board": board}
    try:
        deployment = prepare(data, str(path), board)
    except DoesNotFitError as error:
        return {**row, "error": f"does not fit: {str(error).splitlines()[0]}"}
    inputs = random_inputs(deployment.graph)
    result = run(deployment, inputs)
    macs = summarize(deployment.graph).macs
    return {**row, "instructions": result.instructions, "macs": macs, "flash_bytes": deployment.firmware.flash_bytes,
            "bit_exact": all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))}


def format_row(row: dict, before: dict | None) -> str:
    head = f"{row['model']:<24} {row['board']:<15}"
    if "error" in row:
        return f"{head} {row['error']}"
    line = (f"{head} {row['instructions']:>13,} {row['instructions'] / max(row['macs'], 1):>9.2f} "
            f"{row['flash_bytes']:>9,}  {'equal' if row['bit_exact'] else 'DIFFERS'}")
    if before and "instructions" in before:
        line += (f"  {before['instructions']:>13,} {before['instructions'] / max(before['macs'], 1):>9.2f} "
                 f"{before['flash_bytes']:>9,} {before['instructions'] / row['instructions']:>7.2f}x")
    return line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--boards", default=DEFAULT_BOARDS)
    parser.add_argument("--only", default="", help="comma-separated model names (file stems) to keep")
    parser.add_argument("--save", type=Path, help="write the rows to this JSON file")
    parser.add_argument("--compare", type=Path, help="an earlier --save to compare against")
    args = parser.parse_args()
    boards = [b for b in args.boards.split(",") if b]
    unknown = sorted(set(boards) - set(list_boards()))
    if unknown:
        parser.error(f"unknown boards {unknown}; known: {list_boards()}")
    if not args.models.is_dir():
        print(f"no models folder {args.models}", file=sys.stderr)
        return 2
    only = {name for name in args.only.split(",") if name}
    models = [p for p in sorted(args.models.glob("*.tflite")) if not only or p.stem in only]
    earlier = {(r["model"], r["board"]): r for r in json.loads(args.compare.read_text())} if args.compare else {}
    header = f"{'model':<24} {'board':<15} {'instructions':>13} {'instr/MAC':>9} {'flash B':>9}  TFLM"
    if earlier:
        header += f"  {'before instr':>13} {'instr/MAC':>9} {'flash B':>9} speedup"
    print(header)
    print("-" * len(header))
    rows = []
    for path in models:
        for board in boards:
            row = measure(path, board)
            rows.append(row)
            print(format_row(row, earlier.get((row["model"], row["board"]))), flush=True)
    if args.save:
        args.save.write_text(json.dumps(rows, indent=1))
    return 1 if any(r.get("bit_exact") is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
