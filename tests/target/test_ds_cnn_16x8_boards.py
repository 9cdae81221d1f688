"""The 16x8 DS-CNN (int16 activations, int8 weights, int64 biases; residual: 16x8 ADDs too) bit-exact with TFLM on
both Cortex-M QEMU boards, one build each."""

from __future__ import annotations

import numpy as np
import pytest
from target_fixtures import needs_qemu

from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen.ds_cnn_16x8 import ds_cnn_16x8
from firmware_gen.target.boards import load_board
from firmware_gen.target.cross_build import build_firmware

pytestmark = [needs_qemu, pytest.mark.qemu]


@pytest.mark.parametrize("board_name", ["mps2_an385", "mps2_an386"])
def test_ds_cnn_16x8_is_bit_exact_on_the_board(tmp_path, board_name):
    data = ds_cnn_16x8(seed=2, residual=True)
    graph = read_model(data, "ds_cnn_16x8")
    board = load_board(board_name)
    generate(graph, tmp_path / "model", source="ds_cnn_16x8", isa=board.isa)
    build = build_firmware(tmp_path / "model", board, tmp_path / "fw")
    inputs = random_inputs(graph, seed=4)
    result = run_model(build, inputs, timeout=120)
    expected = np.asarray(run_tflm(data, inputs, len(graph.tensors)).outputs[0])
    assert result.outputs[0].dtype == np.int16
    assert np.array_equal(result.outputs[0].ravel(), expected.ravel())
    assert len(np.unique(expected)) > 1
