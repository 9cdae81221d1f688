"""The synthetic U-Net block (TRANSPOSE_CONV, CONCATENATION, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR among
convolutions) bit-exact with TFLM on the host (every tensor, sanitizers on) and on mps2_an386 (outputs, one build)."""

from __future__ import annotations

import numpy as np
import pytest
from target_fixtures import needs_qemu

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen.unet import unet_block
from firmware_gen.target.cross_build import build_firmware

pytestmark = [needs_qemu, pytest.mark.qemu]


def test_unet_block_is_bit_exact_on_the_host_and_on_mps2_an386(tmp_path):
    data = unet_block(seed=3)
    graph = read_model(data, "unet_block")
    inputs = random_inputs(graph, seed=2)
    report = validate_model(data, inputs=inputs, sanitize=True)
    assert report.bit_exact and report.tensors_compared == 9, report.mismatches
    assert {op.opcode for op in graph.operators} >= {"TRANSPOSE_CONV", "CONCATENATION", "RESIZE_BILINEAR",
                                                    "RESIZE_NEAREST_NEIGHBOR"}
    generate(graph, tmp_path / "model", source="unet_block")
    result = run_model(build_firmware(tmp_path / "model", "mps2_an386", tmp_path / "fw"), inputs, timeout=120)
    expected = run_tflm(data, inputs, len(graph.tensors)).outputs
    assert np.array_equal(result.outputs[0].ravel(), np.asarray(expected[0]).ravel())
