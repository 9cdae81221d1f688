"""Generated models on the emulated boards: outputs bit-exact with TFLite Micro, profiles, memory limits."""

from __future__ import annotations

import numpy as np
import pytest
from target_fixtures import needs_qemu

from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.check.profile import build_profile, format_profile
from firmware_gen.driver.compiler import generate
from firmware_gen.errors import DoesNotFitError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen import zoo
from firmware_gen.target.boards import list_boards
from firmware_gen.target.cross_build import build_firmware

from conftest import shared_model

pytestmark = [needs_qemu, pytest.mark.qemu]


@pytest.fixture(scope="module")
def every_op(tmp_path_factory):
    data = zoo.every_op()
    graph = read_model(data, "every_op")
    model_dir = tmp_path_factory.mktemp("every_op")
    compiled = generate(graph, model_dir, source="every_op")
    inputs = random_inputs(graph, seed=1)
    # The graph as compiled (its PAD folded into the convolution reading it): one operator per step of the firmware.
    return data, compiled.graph, model_dir, inputs, run_tflm(data, inputs, len(graph.tensors)).outputs


@pytest.mark.parametrize("board", list_boards(emulated=True))
def test_every_op_model_is_bit_exact_on_the_board(every_op, tmp_path, board):
    _, graph, model_dir, inputs, expected = every_op
    result = run_model(build_firmware(model_dir, board, tmp_path), inputs, timeout=120)
    for ours, theirs in zip(result.outputs, expected, strict=True):
        assert np.array_equal(ours.ravel(), np.asarray(theirs).ravel())
    profile = build_profile(graph, result)
    assert profile.count > 0 and profile.macs == sum(layer.macs for layer in profile.layers)
    assert all(op.opcode in format_profile(profile) for op in graph.operators)


@pytest.mark.slow
def test_person_detect_fits_the_lm3s6965_and_runs_bit_exact(tmp_path):
    data = shared_model("person_detect").read_bytes()
    graph = read_model(data, "person_detect")
    generate(graph, tmp_path / "model")
    build = build_firmware(tmp_path / "model", "qemu_cortex_m3", tmp_path / "fw")
    assert build.fits and build.flash_bytes > 200_000 and 0 < build.workspace_bytes <= 40 * 1024
    inputs = random_inputs(graph, seed=0)
    first, second = (run_model(build, inputs, timeout=300) for _ in range(2))
    assert first.instructions == second.instructions and first.step_cycles == second.step_cycles
    expected = run_tflm(data, inputs, len(graph.tensors)).outputs
    assert np.array_equal(first.outputs[0].ravel(), np.asarray(expected[0]).ravel())
    assert 15e6 < first.instructions < 30e6  # 7.2 M MACs through the blocked kernels: ~3.3 instructions per MAC


def test_anomaly_detection_weights_do_not_fit_the_lm3s6965_flash(tmp_path):
    graph = read_model(shared_model("ad01_int8").read_bytes(), "ad01_int8")
    generate(graph, tmp_path / "model")
    # Its int8 weights alone (270,880 B) exceed the 256 KiB; the paired layout of its one-batch FULLY_CONNECTED
    # layers (twice the weight bytes) is given only where the flash allows (ops/variant_choice.py).
    with pytest.raises(DoesNotFitError, match=r"needs 27\d,\d{3} B of flash \(.*constants 27\d,\d{3} B.*\); "
                                              r"qemu_cortex_m3 has 262,144 B"):
        build_firmware(tmp_path / "model", "qemu_cortex_m3", tmp_path / "fw")
