"""Prints, for each model: weight bytes, MACs, pool bytes (tensor-level, and with operator overlap) vs the
activation lower bound, TFLM's figures, and whether the generated C is bit-exact with TFLM on the host (every
tensor, both plans).

    python bench/host_models.py [--models DIR] [--sanitize]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.model_summary import summarize
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.frontend.tflite_reader import load_model
from firmware_gen.modelgen.mobilenet import mobilenet_v1
from firmware_gen.planner import PlanningOptions

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
# ../shared/models/README.md: TFLM's GreedyMemoryPlanner and the smallest arena tflite-micro runs with.
TFLM_FIGURES = {
    "person_detect": (55296, 85264), "vww_96_int8": (73728, 103672), "kws_ref_model": (16000, 24272),
    "pretrainedResnet_quant": (49152, 55984), "ad01_int8": (768, 4632), "hello_world_int8": (32, 1936),
    "micro_speech_quantized": (5968, 7584),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--sanitize", action="store_true")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/fg-bench"))
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    synthetic = args.scratch / "mobilenet_v1_025_96_seed0.tflite"
    synthetic.write_bytes(mobilenet_v1())
    paths = sorted(args.models.glob("*.tflite")) if args.models.is_dir() else []
    header = (f"{'model':<28} {'weights B':>10} {'MACs':>12} {'lower bd':>8} {'pool B':>8} {'overlap':>8} "
              f"{'TFLM greedy':>11} {'TFLM arena':>10}  bit-exact")
    print(header)
    print("-" * len(header))
    all_exact = True
    for path in [*paths, synthetic]:
        summary = summarize(load_model(path))
        tensor_level = validate_model(path, sanitize=args.sanitize, options=PlanningOptions(overlap=False))
        overlapped = validate_model(path, sanitize=args.sanitize, options=PlanningOptions(overlap=True))
        exact = tensor_level.bit_exact and overlapped.bit_exact
        all_exact &= exact
        greedy, arena = TFLM_FIGURES.get(path.stem, (None, None))
        print(f"{path.stem:<28} {summary.weight_bytes:>10,} {summary.macs:>12,} "
              f"{tensor_level.lower_bound_bytes:>8,} {tensor_level.pool_bytes:>8,} {overlapped.pool_bytes:>8,} "
              f"{greedy if greedy is not None else '-':>11} {arena if arena is not None else '-':>10}  "
              f"{'yes' if exact else 'NO'} ({tensor_level.tensors_compared} tensors x 2 plans)")
    return 0 if all_exact else 1


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/host_models.py"))
