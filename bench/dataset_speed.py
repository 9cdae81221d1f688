"""Wall time of `firmware-gen validate MODEL --dataset` over N seeded random samples, on the host and on a QEMU board
(issue 11's targets: 100 samples of vww_96_int8 on the host under 10 s, on mps2_an386 under 60 s). Figures, printed;
the tests check the results, not the time. The board's firmware is built once first (the build cache), so the
figure is that of a warm cache, as a user's second run; the cold build is printed beside it.

    python bench/dataset_speed.py [--model ../shared/models/vww_96_int8.tflite] [--samples 100]
                                  [--board mps2_an386] [--host-only]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from firmware_gen.cli.stop_signals import run_script
from firmware_gen.frontend.tflite_reader import read_model

DEFAULT_MODEL = Path(__file__).resolve().parent.parent.parent / "shared" / "models" / "vww_96_int8.tflite"


def _validate(model: Path, dataset: Path, labels: Path, board: str | None, env: dict) -> tuple[dict | None, float]:
    """(the JSON report, or None if the command failed, its wall time)."""
    command = [sys.executable, "-m", "firmware_gen", "validate", str(model), "--dataset", str(dataset), "--labels",
               str(labels), "--json", *(["--board", board] if board else [])]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - started
    if done.returncode not in (0, 1):
        print(done.stderr.strip(), file=sys.stderr)
        return None, elapsed
    return json.loads(done.stdout), elapsed


def _line(model: Path, report: dict, where: str, elapsed: float, note: str = "") -> str:
    exact = ", ".join(f"{o['bit_exact']}/{report['samples']}" for o in report["outputs"])
    return (f"{model.stem}: {report['samples']} samples on {where} in {elapsed:.1f} s wall "
            f"({elapsed / report['samples'] * 1000:.0f} ms per sample), bit-exact outputs {exact}{note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--board", default="mps2_an386", help="the QEMU board of the board figure")
    parser.add_argument("--host-only", action="store_true", help="only the host figure")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    graph = read_model(args.model.read_bytes())
    shape = graph.tensors[graph.inputs[0]].shape
    with tempfile.TemporaryDirectory(prefix="fg-dataset-") as scratch:
        dataset, labels = Path(scratch) / "samples.npz", Path(scratch) / "labels.npy"
        np.savez(dataset, images=rng.uniform(-1, 1, (args.samples, *shape[1:])).astype(np.float32))
        np.save(labels, rng.integers(0, 2, args.samples))
        report, elapsed = _validate(args.model, dataset, labels, None, dict(os.environ))
        if report is None:
            return 2
        print(_line(args.model, report, "the host", elapsed))
        if args.host_only:
            return 0
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(scratch) / "cache")}  # the cold build is this run's
        cold = _validate(args.model, dataset, labels, args.board, env)
        warm = _validate(args.model, dataset, labels, args.board, env)
        if cold[0] is None or warm[0] is None:
            return 2
        note = f" ({cold[1]:.1f} s with the firmware build)"
        print(_line(args.model, warm[0], f"{args.board} (QEMU)", warm[1], note))
    return 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/dataset_speed.py"))
