"""Pool bytes per planning algorithm and model, without and with operator-level overlap, against the tensor-level
lower bound and TFLM's greedy planner; and the time the default planner (all algorithms, best kept) takes.

    python bench/planners.py [--models DIR] [--validate]

--validate also runs the overlapped plan's generated C on the host against TFLM (bit-exact or not). The kernels do
not yet promise to honour overlap (plan_graph's default stays overlap=False), so that column is a measurement.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from firmware_gen.compiler import view_aliases
from firmware_gen.importer import load_model
from firmware_gen.planner import ALGORITHMS, check_plan, plan_graph

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
# ../shared/models/README.md: the arena head of TFLM's GreedyMemoryPlanner.
TFLM_GREEDY = {"person_detect": 55296, "vww_96_int8": 73728, "kws_ref_model": 16000, "pretrainedResnet_quant": 49152,
               "ad01_int8": 768, "hello_world_int8": 32, "micro_speech_quantized": 5968}


def validated(path: Path) -> str:
    import firmware_gen.compiler as compiler
    from firmware_gen.validate import validate_model

    def overlapped(graph, **options):
        return plan_graph(graph, **{**options, "overlap": True})

    original, compiler.plan_graph = compiler.plan_graph, overlapped
    try:
        return "bit-exact" if validate_model(path).bit_exact else "MISMATCH"
    finally:
        compiler.plan_graph = original


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--validate", action="store_true", help="run the overlapped plans on the host vs TFLM")
    args = parser.parse_args()
    paths = sorted(args.models.glob("*.tflite"))
    if not paths:
        print(f"no .tflite models in {args.models}", file=sys.stderr)
        return 1
    names = list(ALGORITHMS)
    header = (f"{'model':<24} {'overlap':<7} " + " ".join(f"{n[:14]:>14}" for n in names)
              + f" {'best':>8} {'time':>6} {'proven':>6} {'bound':>8} {'tensor LB':>9} {'TFLM':>7}"
              + ("  host" if args.validate else ""))
    print(header)
    print("-" * len(header))
    for path in paths:
        graph = load_model(path)
        aliases = view_aliases(graph)
        for overlap in (False, True):
            pools = {name: plan_graph(graph, aliases=aliases, algorithm=name, overlap=overlap).pool_bytes
                     for name in names}
            start = time.perf_counter()
            best = plan_graph(graph, aliases=aliases, overlap=overlap)
            seconds = time.perf_counter() - start
            check_plan(best, graph)
            row = (f"{path.stem:<24} {'yes' if overlap else 'no':<7} "
                   + " ".join(f"{pools[n]:>14,}" for n in names)
                   + f" {best.pool_bytes:>8,} {seconds:>5.2f}s {'yes' if best.proven_optimal else 'no':>6}"
                   + f" {best.proven_lower_bound_bytes:>8,} {best.lower_bound_bytes:>9,}"
                   + f" {TFLM_GREEDY.get(path.stem, 0):>7,}")
            if args.validate and overlap:
                row += f"  {validated(path)}"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
