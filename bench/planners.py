"""Pool bytes per planning algorithm and model: without overlap, with operator-level overlap (the default), and with
overlap and the model's inputs and outputs outside the pool (--no-io-in-pool), against the tensor-level lower bound
and TFLM's greedy planner (whose arena holds the inputs and outputs too); and the time the default planner (all
algorithms, best kept) takes.

    python bench/planners.py [--models DIR] [--validate]

--validate also runs each plan's generated C on the host against TFLM (every tensor, bit-exact or not).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.compiler import overlap_allowances
from firmware_gen.frontend.tflite_reader import load_model
from firmware_gen.ops import check_supported, view_aliases
from firmware_gen.planner import ALGORITHMS, PlanningOptions, check_plan, plan_graph

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
# ../shared/models/README.md: the arena head of TFLM's GreedyMemoryPlanner.
TFLM_GREEDY = {"person_detect": 55296, "vww_96_int8": 73728, "kws_ref_model": 16000, "pretrainedResnet_quant": 49152,
               "ad01_int8": 768, "hello_world_int8": 32, "micro_speech_quantized": 5968}


# (label, overlap, inputs and outputs in the pool)
MODES = (("no", False, True), ("yes", True, True), ("yes, I/O out", True, False))


def validated(path: Path, overlap: bool, io_in_pool: bool) -> str:
    from firmware_gen.check.host_validation import validate_model

    report = validate_model(path, options=PlanningOptions(overlap=overlap, io_in_pool=io_in_pool))
    return "bit-exact" if report.bit_exact else "MISMATCH"


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
    header = (f"{'model':<24} {'overlap':<12} " + " ".join(f"{n[:14]:>14}" for n in names)
              + f" {'best':>8} {'time':>6} {'proven':>6} {'bound':>8} {'tensor LB':>9} {'TFLM':>7} {'vs TFLM':>7}"
              + ("  host" if args.validate else ""))
    print(header)
    print("-" * len(header))
    for path in paths:
        graph = load_model(path)
        check_supported(graph)
        aliases, allowances = view_aliases(graph), overlap_allowances(graph)
        tflm = TFLM_GREEDY.get(path.stem, 0)
        for label, overlap, io_in_pool in MODES:
            options = PlanningOptions(overlap=overlap, io_in_pool=io_in_pool)
            pools = {name: plan_graph(graph, aliases, PlanningOptions(overlap=overlap, io_in_pool=io_in_pool,
                                                                      algorithm=name), allowances).pool_bytes
                     for name in names}
            started = time.perf_counter()
            best = plan_graph(graph, aliases, options, allowances)
            seconds = time.perf_counter() - started
            check_plan(best, graph, allowances)
            saved = f"{100 * (best.pool_bytes - tflm) / tflm:+.0f}%" if tflm else "-"
            row = (f"{path.stem:<24} {label:<12} "
                   + " ".join(f"{pools[n]:>14,}" for n in names)
                   + f" {best.pool_bytes:>8,} {seconds:>5.2f}s {'yes' if best.proven_optimal else 'no':>6}"
                   + f" {best.proven_lower_bound_bytes:>8,} {best.lower_bound_bytes:>9,} {tflm:>7,} {saved:>7}")
            if args.validate:
                row += f"  {validated(path, overlap, io_in_pool)}"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/planners.py"))
