"""The firmware cache under concurrency: N `firmware-gen validate MODEL --board B --json` started at once on an
empty cache (models x boards, some pairs twice), each checked against TFLM. Prints each run and the counts: runs,
exit 0, bit-exact, tracebacks, entries published, private build directories left; exit status 1 unless every
run succeeded bit-exact and nothing was left half-built.

    python bench/cache_concurrency.py [--models DIR] [--boards mps2_an385,mps2_an386,mps2_an500,mps3_an547]
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

from firmware_gen.cli.stop_signals import run_script

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
MODELS = ("kws_ref_model", "hello_world_int8", "ad01_int8", "micro_speech_quantized")
BOARDS = ("mps2_an385", "mps2_an386", "mps2_an500", "mps3_an547")


def concurrent_runs(pairs: list[tuple[Path, str]], cache: Path, timeout: float = 900) -> list[dict]:
    """Every (model, board) validated at once, in child processes sharing the cache directory `cache`."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    started = [(model, board, subprocess.Popen(
        [sys.executable, "-m", "firmware_gen", "validate", str(model), "--board", board, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)) for model, board in pairs]
    results = []
    for model, board, process in started:
        out, err = process.communicate(timeout=timeout)
        try:
            report = json.loads(out)
        except json.JSONDecodeError:
            report = {}
        results.append({"model": model.stem, "board": board, "status": process.returncode,
                        "bit_exact": report.get("bit_exact") is True, "traceback": "Traceback" in err,
                        "error": err.strip().splitlines()[-1] if process.returncode and err.strip() else ""})
    return results


def cache_state(cache: Path) -> tuple[int, int]:
    """(published entries, private build directories) in the firmware cache."""
    root = cache / "firmware-gen" / "firmware"
    names = [p.name for p in root.iterdir()] if root.is_dir() else []
    return sum(not n.startswith(".") for n in names), sum(n.endswith(".partial") for n in names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--boards", default=",".join(BOARDS))
    args = parser.parse_args()
    boards = args.boards.split(",")
    pairs = [(args.models / f"{m}.tflite", b) for m in MODELS for b in boards]
    pairs[-3:] = pairs[:3]  # 16 runs: every model, every board, 3 pairs twice
    with tempfile.TemporaryDirectory(prefix="fg-bench-cache-") as cache:
        begun = time.monotonic()
        results = concurrent_runs(pairs, Path(cache))
        seconds = time.monotonic() - begun
        entries, partial = cache_state(Path(cache))
    for r in results:
        print(f"{r['model']:<24} {r['board']:<12} exit {r['status']} bit-exact {r['bit_exact']} {r['error']}")
    ok = sum(r["status"] == 0 for r in results)
    exact = sum(r["bit_exact"] for r in results)
    tracebacks = sum(r["traceback"] for r in results)
    print(f"runs {len(results)} exit0 {ok} bit_exact {exact} tracebacks {tracebacks} entries {entries} "
          f"partial_left {partial} ({seconds:.0f} s)")
    return 0 if ok == exact == len(results) and not tracebacks and not partial else 1


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/cache_concurrency.py"))
