"""`firmware-gen sweep --ray` on a real two-node Ray cluster on this machine (issue 28): its rows equal the local
pool's row for row (apart from wall times and nodes), the jobs of the board a node advertises ran on that node, and
a node lost in the middle of a sweep loses no job and writes none twice. The cluster is on 127.0.0.1 only; every
process it started is stopped by process id."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from ray_cluster import (
    FAST_FAILURE_DETECTION,
    RAY_ENVIRONMENT,
    listening_addresses,
    node_cache,
    node_pids,
    process_tree,
    stop_by_pid,
)
from test_sweep import write_models, write_spec

from firmware_gen.sweep.job import same_result

from conftest import REPO, run_cli

pytestmark = [pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                                 reason="needs qemu-system-arm and arm-none-eabi-gcc"),
              pytest.mark.xdist_group("ray_cluster")]

BOARD = "qemu_cortex_m3"  # the board node advertises board:qemu_cortex_m3: those jobs run there only


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    caches = tmp_path_factory.mktemp("node-caches")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in RAY_ENVIRONMENT.items():
            patch.setenv(name, value)  # for the cluster's processes and for the CLI's driver
        pytest.importorskip("ray", reason="Ray is the optional extra 'distributed'")
        from ray._private import ray_constants
        from ray.cluster_utils import Cluster

        patch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)  # read once, when Ray was first imported
        started = Cluster(initialize_head=True, connect=False, head_node_args={
            "num_cpus": 1, "include_dashboard": False, "env_vars": node_cache(caches, "head"),
            "_system_config": FAST_FAILURE_DETECTION})
        pids: set[int] = set()
        try:
            started.board_node = started.add_node(num_cpus=1, resources={f"board:{BOARD}": 1},
                                                  env_vars=node_cache(caches, "board"))
            started.caches = caches
            yield started
        finally:
            for node in [started.head_node, *started.worker_nodes]:
                pids |= process_tree(node_pids(node))
            session = started.head_node.get_session_dir_path()
            started.shutdown()
            left = stop_by_pid(pids - {os.getpid()})
            shutil.rmtree(session, ignore_errors=True)  # its logs and sockets under /tmp/ray
            assert not left, f"Ray processes left running: {sorted(left)}"


def _sweep(spec: Path, out: Path, *where: str) -> list[dict]:
    done = run_cli("sweep", str(spec), "-o", str(out), "--json", *where)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_the_cluster_is_on_loopback_only(cluster: object) -> None:
    nodes = [cluster.head_node, *cluster.worker_nodes]
    assert cluster.address.startswith("127.0.0.1:")
    assert [node.node_ip_address for node in nodes] == ["127.0.0.1"] * len(nodes)
    addresses = listening_addresses(set().union(*(process_tree(node_pids(node)) for node in nodes)))
    assert addresses and addresses <= {"127.0.0.1"}, addresses


def test_sweep_on_the_cluster_equals_the_local_one(cluster: object, tmp_path: Path) -> None:
    write_models(tmp_path / "models")
    spec = write_spec(tmp_path / "spec.toml", f'models = ["models/*.tflite"]\nboards = ["mps2_an385", "{BOARD}"]\n'
                                              '[options]\nalgorithm = "greedy_by_size"\n')
    local = {row["job"]: row for row in _sweep(spec, tmp_path / "local", "--jobs", "2")}
    remote = _sweep(spec, tmp_path / "ray", "--ray", cluster.address)
    assert len(remote) == len(local) == 4 and {row["job"] for row in remote} == set(local)
    for row in remote:
        assert same_result(row, local[row["job"]]), (row, local[row["job"]])
        assert row["error"] is None and row["bit_exact"] is True
        if row["board"] == BOARD:
            assert row["node"] == cluster.board_node.node_id
    # Each node built in its own cache: the board's firmware on the board node only.
    head_builds = list((cluster.caches / "head" / "firmware-gen" / "firmware").glob("*"))
    board_builds = list((cluster.caches / "board" / "firmware-gen" / "firmware").glob("*"))
    assert board_builds and len(head_builds) + len(board_builds) >= 4


def _wait_for_a_build(cache: Path, sweep: subprocess.Popen, timeout: float = 300) -> None:
    """Until a job has started building on the node of this cache (its private build folder appears)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and sweep.poll() is None:
        if (cache / "firmware").is_dir() and any((cache / "firmware").iterdir()):
            return
        time.sleep(0.05)
    pytest.fail("no job started on the node to lose")


def test_a_node_lost_mid_sweep_loses_no_job(cluster: object, tmp_path: Path) -> None:
    lost = cluster.add_node(num_cpus=1, env_vars=node_cache(cluster.caches, "lost"))
    lost_pids = process_tree(node_pids(lost))
    write_models(tmp_path / "models")
    spec = write_spec(tmp_path / "spec.toml", 'models = ["models/*.tflite"]\nboards = ["mps2_an385"]\n[options]\n'
                                              'algorithm = ["greedy_by_conflicts", "hill_climb", "branch_and_bound"]\n')
    out = tmp_path / "ray"
    sweep = subprocess.Popen([sys.executable, "-m", "firmware_gen", "sweep", str(spec), "-o", str(out), "--json",
                              "--ray", cluster.address], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        _wait_for_a_build(cluster.caches / "lost" / "firmware-gen", sweep)
        lost_pids |= process_tree(node_pids(lost))  # with its workers and what they started (gcc, QEMU)
        cluster.remove_node(lost)
        assert not stop_by_pid(lost_pids)
        stdout, stderr = sweep.communicate(timeout=600)
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()
    assert sweep.returncode == 0, stderr
    assert json.loads(stdout)["jobs"] == 6
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and len({row["job"] for row in rows}) == 6
    assert all(row["error"] is None and row["bit_exact"] for row in rows), rows


def test_validate_dataset_on_the_cluster_gives_the_one_worker_report(cluster: object, tmp_path: Path) -> None:
    write_models(tmp_path / "models")
    model = tmp_path / "models" / "tiny_cnn.tflite"
    images = np.random.default_rng(4).uniform(-1, 1, (9, 16, 16, 3)).astype(np.float32)
    np.savez(tmp_path / "samples.npz", images=images)
    reports = []
    for extra in ([], ["--ray", cluster.address]):
        done = run_cli("validate", str(model), "--dataset", str(tmp_path / "samples.npz"), "--json", *extra)
        assert done.returncode == 0, done.stderr
        reports.append(json.loads(done.stdout))
    assert reports[0]["samples"] == 9 and reports[1] == reports[0]


def test_a_real_board_no_node_has_is_refused(cluster: object, tmp_path: Path) -> None:
    write_models(tmp_path / "models")
    spec = write_spec(tmp_path / "spec.toml", 'models = ["models/tiny_cnn.tflite"]\nboards = ["nucleo_f746zg"]\n')
    done = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--ray", cluster.address)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "nucleo_f746zg is a real board and no node" in done.stderr and not (tmp_path / "out").exists()
