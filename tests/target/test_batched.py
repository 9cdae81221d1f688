"""The batch harness itself: several models merged into one run side by side, each bit-exact, on a QEMU board."""

from __future__ import annotations

import pytest
from batched import assert_batch_bit_exact, merge_models
from target_fixtures import needs_qemu

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS


def test_merged_model_keeps_every_case_apart() -> None:
    models = [SYNTHETIC_MODELS[name]() for name in ("tiny_cnn", "residual_block")]
    merged, counts = merge_models(models)
    graph = read_model(merged)
    parts = [read_model(model) for model in models]
    assert counts == [len(p.outputs) for p in parts]
    assert len(graph.operators) == sum(len(p.operators) for p in parts)
    assert len(graph.inputs) == sum(len(p.inputs) for p in parts)


@needs_qemu
def test_a_batch_runs_bit_exact_in_one_firmware(tmp_path) -> None:
    models = [SYNTHETIC_MODELS[name]() for name in ("tiny_cnn", "residual_block", "every_op")]
    functions = assert_batch_bit_exact(models, "mps2_an385", tmp_path / "build")
    assert len(functions) >= 3
    assert {"fg_conv2d_pointwise_paired_s8", "fg_conv2d_pointwise_fused_s8"} & set(functions)


@needs_qemu
def test_a_differing_case_is_named(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import batched

    models = [SYNTHETIC_MODELS["tiny_cnn"]()] * 2
    monkeypatch.setattr(batched, "outputs_equal_oracle", lambda *args: [True, False])
    with pytest.raises(AssertionError, match="case 1 of 2 differs from TFLM on mps2_an385"):
        assert_batch_bit_exact(models, "mps2_an385", tmp_path / "build")
