"""`firmware-gen validate MODEL --dataset` (issue 11): 100 vww samples on the host bit-exact with TFLM within 10 s
wall, the metrics and accuracies in JSON, and each bad dataset refused in one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli, shared_model


@pytest.fixture(scope="module")
def vww_dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("dataset")
    rng = np.random.default_rng(1)
    np.savez(root / "vww.npz", images=rng.uniform(-1, 1, (100, 96, 96, 3)).astype(np.float32))
    np.save(root / "labels.npy", rng.integers(0, 2, 100))
    return root / "vww.npz", root / "labels.npy"


def test_hundred_vww_samples_on_the_host(vww_dataset: tuple[Path, Path]) -> None:
    dataset, labels = vww_dataset
    done = run_cli("validate", str(shared_model("vww_96_int8")), "--dataset", str(dataset), "--labels", str(labels),
                   "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["samples"] == 100 and report["bit_exact"]
    output = report["outputs"][0]
    assert output["bit_exact"] == 100 and output["rmse"] == 0 and output["cosine"] == pytest.approx(1.0)
    assert report["accuracy"]["ours"] == report["accuracy"]["tflm"]


def _bad(tmp_path: Path, arrays: dict[str, np.ndarray], labels: np.ndarray | None = None) -> str:
    dataset = tmp_path / "bad.npz"
    np.savez(dataset, **arrays)
    extra = []
    if labels is not None:
        np.save(tmp_path / "labels.npy", labels)
        extra = ["--labels", str(tmp_path / "labels.npy")]
    done = run_cli("validate", str(shared_model("hello_world_int8")), "--dataset", str(dataset), *extra)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def test_bad_datasets_are_refused_in_one_line(tmp_path: Path) -> None:
    assert "shape [4, 3]" in _bad(tmp_path, {"x": np.zeros((4, 3), np.float32)})
    assert "dtype int16" in _bad(tmp_path, {"x": np.zeros((4, 1), np.int16)})
    assert "holds no arrays" in _bad(tmp_path, {})
    assert "3 labels for 4 samples" in _bad(tmp_path, {"x": np.zeros((4, 1), np.float32)}, np.zeros(3, np.int64))
