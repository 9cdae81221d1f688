"""Throughput of `firmware-gen sweep` (issue 28): 64 jobs (4 shared models x 4 QEMU boards x overlap on/off x two
planning algorithms, each generated, built, run and compared with TFLM) on 1 local worker, on 2 local workers, and
on a two-node Ray cluster on this machine (one CPU per node, on 127.0.0.1); the rows of all three must be the same
(apart from wall times and nodes). Each sweep starts from an empty firmware cache, the kernels' object caches warmed
once before; a node's first build for a board's flags (its cold object cache) is measured apart. Then the overhead
per task of each executor (tasks that do nothing: scheduling and result transfer), and from the figures the
projection, an estimate, of a 10,000-job sweep on 16 nodes x 16 cores.

    python bench/sweep.py [--models DIR] [--skip-ray] [--small]

Figures, printed; on a machine shared with other work the throughput and the speed-up are depressed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

for _name, _value in {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}.items():
    os.environ.setdefault(_name, _value)  # before Ray is imported: its nodes stay on 127.0.0.1

from firmware_gen.sweep.job import same_result  # noqa: E402
from firmware_gen.sweep.local_pool import LocalExecutor  # noqa: E402
from firmware_gen.sweep.run import run_sweep  # noqa: E402

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
MODELS = ("kws_ref_model", "hello_world_int8", "ad01_int8", "micro_speech_quantized")
BOARDS = ("mps2_an385", "mps2_an386", "mps2_an500", "mps3_an547")
OBJECT_CACHES = ("host-objects", "cross-objects")
NOOP_TASKS = 200
PROJECTED_JOBS, NODES, CORES = 10_000, 16, 16


def write_spec(path: Path, models: list[Path], boards: list[str], overlap: list[bool], algorithms: list[str]) -> Path:
    path.write_text(f"models = {json.dumps([str(m) for m in models])}\nboards = {json.dumps(boards)}\n[options]\n"
                    f"overlap = {json.dumps(overlap)}\nalgorithm = {json.dumps(algorithms)}\n")
    return path


def fresh_cache(root: Path, name: str, warm: Path) -> Path:
    """An XDG_CACHE_HOME with no firmware built, its object caches those of `warm`."""
    (root / name / "firmware-gen").mkdir(parents=True)
    for kind in OBJECT_CACHES:
        (warm / "firmware-gen" / kind).mkdir(parents=True, exist_ok=True)
        (root / name / "firmware-gen" / kind).symlink_to(warm / "firmware-gen" / kind, target_is_directory=True)
    return root / name


def timed_sweep(spec: Path, out: Path, cache: Path | None, **where: object) -> tuple[dict[str, dict], float]:
    """(the rows by job, seconds of wall time); cache: this process's XDG_CACHE_HOME (the local workers')."""
    if cache is not None:
        os.environ["XDG_CACHE_HOME"] = str(cache)
    started = time.monotonic()
    run_sweep(str(spec), str(out), progress=False, **where)
    elapsed = time.monotonic() - started
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {row["job"]: row for row in rows}, elapsed


def identical(a: dict[str, dict], b: dict[str, dict]) -> bool:
    return set(a) == set(b) and all(same_result(a[key], b[key]) for key in a)


def _noop(payload: dict) -> dict:
    return payload


def per_task_overhead(executor: object) -> float:
    """Seconds per task of tasks that do nothing, a row-sized result each, through the executor."""
    payload = {"job": "0" * 16, "options": {"algorithm": "greedy_by_size"}, "error": None, "wall_s": 1.0}
    started = time.monotonic()
    outcomes = list(executor.run(_noop, [(payload,)] * NOOP_TASKS, [None] * NOOP_TASKS))
    assert all(result == payload for _, result, _ in outcomes)
    return (time.monotonic() - started) / NOOP_TASKS


def row_append_seconds(root: Path, spec: Path) -> float:
    """Seconds the driver takes to append and fsync one row (results.jsonl), its own part of each result."""
    from firmware_gen.sweep.results import ResultsDir
    from firmware_gen.sweep.spec import read_spec

    results = ResultsDir.check(root / "append", read_spec(spec))
    results.start()
    started = time.monotonic()
    for number in range(NOOP_TASKS):
        results.add({"job": f"{number:016x}", "options": {"algorithm": "greedy_by_size"}, "error": None})
    results.close()
    return (time.monotonic() - started) / NOOP_TASKS


def cold_cache_cost(root: Path, models: list[Path]) -> float:
    """Seconds a node's first job for a board pays to compile the kernels' objects (empty cache vs warm)."""
    spec = write_spec(root / "one.toml", models[1:2], ["mps2_an386"], [True], ["greedy_by_size"])
    _, cold = timed_sweep(spec, root / "cold-out", root / "cold", jobs=1)
    _, warm = timed_sweep(spec, root / "warm-out", fresh_cache(root, "cold-warmed", root / "cold"), jobs=1)
    return cold - warm


def ray_sweep(spec: Path, root: Path, warm: Path) -> tuple[dict[str, dict], float, float]:
    """(rows, wall seconds, seconds per no-op task) on a head + one node, one CPU each, then every process stopped."""
    from ray.cluster_utils import Cluster

    from firmware_gen.sweep.ray_pool import RayExecutor

    cluster = Cluster(initialize_head=True, connect=False, head_node_args={
        "num_cpus": 1, "include_dashboard": False, "env_vars": {"XDG_CACHE_HOME": str(fresh_cache(root, "h", warm))}})
    try:
        cluster.add_node(num_cpus=1, env_vars={"XDG_CACHE_HOME": str(fresh_cache(root, "n", warm))})
        rows, elapsed = timed_sweep(spec, root / "ray", None, ray=cluster.address)
        executor = RayExecutor(cluster.address)
        try:
            overhead = per_task_overhead(executor)
        finally:
            executor.close()
    finally:
        session = cluster.head_node.get_session_dir_path()
        cluster.shutdown()
        shutil.rmtree(session, ignore_errors=True)
    return rows, elapsed, overhead


def project(job_seconds: float, cold: float, driver_seconds: float, append_seconds: float) -> str:
    """The estimate of PROJECTED_JOBS jobs on NODES x CORES workers, and what bounds it."""
    workers = NODES * CORES
    compute = PROJECTED_JOBS * job_seconds / workers + len(BOARDS) * cold
    driver = PROJECTED_JOBS * driver_seconds
    bound = ("the driver's one loop (Ray's submission and result transfer, the row appended and fsynced)"
             if driver > compute else "the jobs' CPU (gcc, QEMU, the TFLM oracle), the driver keeping up")
    return (f"ESTIMATE, {PROJECTED_JOBS:,} jobs on {NODES} nodes x {CORES} cores: {max(compute, driver) / 60:.1f} min, "
            f"bound by {bound}: the jobs {PROJECTED_JOBS:,} x {job_seconds:.2f} CPU-s / {workers} workers + "
            f"{len(BOARDS)} boards' cold objects x {cold:.1f} s per node = {compute / 60:.1f} min; the driver at "
            f"{driver_seconds * 1000:.1f} ms per result (no-op tasks on 2 workers: an upper bound; its own part, "
            f"the row appended and fsynced, {append_seconds * 1000:.2f} ms) = {driver / 60:.1f} min at most, "
            f"overlapping the jobs")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--skip-ray", action="store_true", help="only the local figures")
    parser.add_argument("--small", action="store_true", help="8 jobs (2 models x 2 boards x overlap): a quick check")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fg-bench-sweep-"))
    try:
        models = [args.models.resolve() / f"{name}.tflite" for name in MODELS]
        algorithms = ["greedy_by_size"] if args.small else ["greedy_by_size", "hill_climb"]
        chosen, boards = (models[1::2], list(BOARDS[:2])) if args.small else (models, list(BOARDS))
        spec = write_spec(root / "bench.toml", chosen, boards, [True, False], algorithms)
        cold = cold_cache_cost(root, models)
        print(f"cold cache: a node's first job for a board's flags takes {cold:.1f} s more (the kernels' objects)")
        warm = root / "warm"
        timed_sweep(spec, root / "warm-up", warm, jobs=2)  # every board's objects compiled once
        one, t1 = timed_sweep(spec, root / "local-1", fresh_cache(root, "c1", warm), jobs=1)
        two, t2 = timed_sweep(spec, root / "local-2", fresh_cache(root, "c2", warm), jobs=2)
        passed = sum(row["bit_exact"] is True for row in one.values())
        print(f"{len(one)} jobs, {passed} bit-exact with TFLM, "
              f"{sum(row['error'] is not None for row in one.values())} failed")
        print(f"local, 1 worker:   {t1:6.1f} s wall, {len(one) / t1 * 60:5.1f} jobs/min")
        print(f"local, 2 workers:  {t2:6.1f} s wall, {len(two) / t2 * 60:5.1f} jobs/min: {t1 / t2:.2f}x one worker "
              f"(target >= 1.8x); rows identical: {identical(one, two)}")
        local_overhead = per_task_overhead(LocalExecutor(2))
        print(f"local pool: {local_overhead * 1000:.1f} ms per task that does nothing (2 workers)")
        if not args.skip_ray:
            rows, t_ray, ray_overhead = ray_sweep(spec, root, warm)
            print(f"Ray, 2 nodes x 1 CPU: {t_ray:6.1f} s wall, {len(rows) / t_ray * 60:5.1f} jobs/min: "
                  f"{t1 / t_ray:.2f}x one local worker; rows identical to the local ones: {identical(one, rows)}")
            print(f"Ray: {ray_overhead * 1000:.1f} ms per task that does nothing (scheduling + result transfer); "
                  f"per job {(t_ray - t2) * 2 / len(rows):+.2f} CPU-s against the local pool")
            append = row_append_seconds(root, spec)
            print(f"driver: {append * 1000:.2f} ms to append and fsync a row")
            print(project(t1 / len(one), cold, ray_overhead, append))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
