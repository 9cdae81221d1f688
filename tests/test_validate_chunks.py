"""`validate --dataset --jobs N` (issue 28): the samples in chunks across worker processes, on the host and on a
QEMU board; the report is the one worker's, every figure of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from firmware_gen.modelgen.zoo import tiny_cnn

from conftest import run_cli


@pytest.fixture(scope="module")
def model_and_dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("chunks")
    (root / "tiny_cnn.tflite").write_bytes(tiny_cnn(7))
    rng = np.random.default_rng(2)
    np.savez(root / "samples.npz", images=rng.uniform(-1, 1, (23, 16, 16, 3)).astype(np.float32))
    np.save(root / "labels.npy", rng.integers(0, 4, 23))
    return root / "tiny_cnn.tflite", root / "samples.npz", root / "labels.npy"


def validate(paths: tuple[Path, Path, Path], *extra: str) -> dict:
    model, dataset, labels = paths
    done = run_cli("validate", str(model), "--dataset", str(dataset), "--labels", str(labels), "--json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_chunks_on_the_host_give_the_one_worker_report(model_and_dataset: tuple[Path, Path, Path]) -> None:
    one = validate(model_and_dataset)
    assert one["samples"] == 23 and one["bit_exact"]
    assert validate(model_and_dataset, "--jobs", "2") == one


@pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                    reason="needs qemu-system-arm and arm-none-eabi-gcc")
def test_chunks_on_a_qemu_board_give_the_one_worker_report(model_and_dataset: tuple[Path, Path, Path]) -> None:
    one = validate(model_and_dataset, "--board", "mps2_an385")
    assert one["where"] == "mps2_an385" and one["bit_exact"]
    assert validate(model_and_dataset, "--board", "mps2_an385", "--jobs", "2") == one


def test_jobs_without_a_dataset_is_refused(model_and_dataset: tuple[Path, Path, Path]) -> None:
    done = run_cli("validate", str(model_and_dataset[0]), "--jobs", "2")
    assert done.returncode == 2 and "give --dataset" in done.stderr and len(done.stderr.splitlines()) == 1
