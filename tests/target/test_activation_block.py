"""The MobileNetV3-style block with every int8 activation of issue 15, bit-exact with TFLM on mps2_an386 (one build)."""

from __future__ import annotations

import numpy as np
import pytest
from target_fixtures import needs_qemu

from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen.mobilenet_v3 import mobilenet_v3_block
from firmware_gen.target.boards import load_board
from firmware_gen.target.cross_build import build_firmware

pytestmark = [needs_qemu, pytest.mark.qemu]


def test_mobilenet_v3_block_is_bit_exact_on_mps2_an386(tmp_path):
    data = mobilenet_v3_block(seed=3)
    graph = read_model(data, "mobilenet_v3_block")
    board = load_board("mps2_an386")  # generated as `build --board` does: the board's (DSP) kernel variants
    generate(graph, tmp_path / "model", source="mobilenet_v3_block", isa=board.isa)
    build = build_firmware(tmp_path / "model", board, tmp_path / "fw")
    inputs = random_inputs(graph, seed=5)
    result = run_model(build, inputs, timeout=120)
    expected = run_tflm(data, inputs, len(graph.tensors)).outputs
    assert np.array_equal(result.outputs[0].ravel(), np.asarray(expected[0]).ravel())
    assert len(np.unique(expected[0])) > 1  # the log-probabilities are not all saturated
