"""End to end on the host: model -> generated C -> host build -> every tensor equal to TFLM's."""

from __future__ import annotations

import json

import pytest

from firmware_gen.check.host_validation import validate_model

from conftest import SHARED_MODEL_NAMES, run_cli, shared_model


@pytest.mark.parametrize("name", SHARED_MODEL_NAMES)
def test_shared_model_bit_exact_under_sanitizers(name: str) -> None:
    report = validate_model(shared_model(name), seed=1, sanitize=True)
    assert report.bit_exact, report.mismatches[:3]
    assert report.tensors_compared >= 3
    assert report.pool_bytes <= report.lower_bound_bytes  # overlap (the default) can go below the tensor bound


@pytest.mark.parametrize("seed", [0, 7])
def test_synthetic_mobilenet_bit_exact(seed: int) -> None:
    from firmware_gen.modelgen.mobilenet import mobilenet_v1

    report = validate_model(mobilenet_v1(seed=seed), seed=seed, sanitize=seed == 0)
    assert report.bit_exact, report.mismatches[:3]
    assert report.tensors_compared > 25


def test_cli_validate_json(tmp_path) -> None:
    from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS

    name, make = next(iter(SYNTHETIC_MODELS.items()))
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(make())
    done = run_cli("validate", str(path), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["bit_exact"] is True
    assert report["mismatches"] == []
    assert report["tensors_compared"] >= 1
