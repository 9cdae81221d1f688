"""Wall time of `firmware-gen validate MODEL --dataset` over N seeded random samples (issue 11's target: 100 samples
of vww_96_int8 on the host under 10 s). A figure, printed; the tests check the results, not the time.

    python bench/dataset_speed.py [--model ../shared/models/vww_96_int8.tflite] [--samples 100]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from firmware_gen.frontend.tflite_reader import read_model

DEFAULT_MODEL = Path(__file__).resolve().parent.parent.parent / "shared" / "models" / "vww_96_int8.tflite"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    graph = read_model(args.model.read_bytes())
    shape = graph.tensors[graph.inputs[0]].shape
    with tempfile.TemporaryDirectory(prefix="fg-dataset-") as scratch:
        dataset, labels = Path(scratch) / "samples.npz", Path(scratch) / "labels.npy"
        np.savez(dataset, images=rng.uniform(-1, 1, (args.samples, *shape[1:])).astype(np.float32))
        np.save(labels, rng.integers(0, 2, args.samples))
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "firmware_gen", "validate", str(args.model), "--dataset",
                               str(dataset), "--labels", str(labels), "--json"], capture_output=True, text=True)
        elapsed = time.monotonic() - started
    if done.returncode != 0:
        print(done.stderr.strip(), file=sys.stderr)
        return done.returncode
    report = json.loads(done.stdout)
    print(f"{args.model.stem}: {report['samples']} samples on the host in {elapsed:.1f} s wall "
          f"({elapsed / report['samples'] * 1000:.0f} ms per sample), bit-exact {report['bit_exact']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
