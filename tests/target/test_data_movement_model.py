"""The data-movement synthetic model (modelgen/data_movement.py, issue 15): bit-exact with TFLM on the host (every
tensor, the folded constants included) and on mps2_an386 under QEMU (its outputs; one firmware build)."""

from __future__ import annotations

import numpy as np
import pytest
from target_fixtures import needs_qemu

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.check.profile import build_profile
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.modelgen.data_movement import data_movement

pytestmark = [needs_qemu, pytest.mark.qemu]


def test_data_movement_model_is_bit_exact_on_host_and_mps2_an386(tmp_path):
    model = data_movement(seed=3)
    report = validate_model(model, seed=1)
    assert report.bit_exact, report.mismatches
    deployment = prepare(model, "data_movement.tflite", "mps2_an386", out_dir=tmp_path / "build")
    assert {s.call.function for s in deployment.compiled.steps if s.call} >= {
        "fg_mirror_pad_s8", "fg_transpose_s8", "fg_split_s8", "fg_gather_s8", "fg_gather_nd_offsets_s8"}
    inputs = random_inputs(deployment.graph, 1)
    result = run(deployment, inputs)
    expected = run_tflm(model, inputs, len(deployment.graph.tensors)).outputs
    for ours, theirs in zip(result.outputs, expected, strict=True):
        assert np.array_equal(np.asarray(ours).ravel(), np.asarray(theirs).ravel())
    # one timed step per operator left after folding (TRANSPOSE, RESHAPE of weights, FILL, ZEROS_LIKE, SHAPE gone)
    profile = build_profile(deployment.graph, result, deployment.compiled.calls)
    assert len(profile.layers) == len(deployment.compiled.steps) == 14
