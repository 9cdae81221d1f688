"""`firmware-gen run MODEL --input frames.npy` of a stateful model (issue 12): the frames run in order in one
session through one model instance (the sequence session of fg_protocol.h), so the state is carried; every
invocation's outputs equal TFLM's over the same sequence, and the profile and times are printed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from target_fixtures import needs_qemu

from firmware_gen.check.oracle import run_tflm_sequence
from firmware_gen.modelgen.svdf import svdf_keyword_spotter

from conftest import run_cli

FRAMES = 10


@needs_qemu
@pytest.mark.qemu
def test_run_carries_the_state_over_a_sequence_and_matches_tflm(tmp_path: Path) -> None:
    model = svdf_keyword_spotter(seed=0)
    (tmp_path / "kws.tflite").write_bytes(model)
    frames = np.random.default_rng(4).integers(-128, 128, size=(FRAMES, 1, 40)).astype(np.int8)
    np.save(tmp_path / "frames.npy", frames)
    result = run_cli("run", str(tmp_path / "kws.tflite"), "--board", "mps2_an385", "--input",
                     str(tmp_path / "frames.npy"), "--save-outputs", str(tmp_path / "out.npy"))
    assert result.returncode == 0, result.stderr
    assert f"profile of invocation 0 of {FRAMES}:" in result.stdout
    assert f"invocation {FRAMES - 1} of {FRAMES}:" in result.stdout
    ours = np.load(tmp_path / "out.npy")
    theirs = run_tflm_sequence(model, [[frame] for frame in frames], 0)
    assert ours.shape[0] == FRAMES
    for invocation, oracle in enumerate(theirs):
        assert ours[invocation].tobytes() == np.asarray(oracle.outputs[0]).tobytes(), f"invocation {invocation}"
    assert not np.array_equal(ours[0], ours[-1])  # the state moved the outputs: not a model without memory


@needs_qemu
@pytest.mark.qemu
def test_the_firmware_refuses_a_sequence_of_no_invocations(tmp_path: Path) -> None:
    import struct

    from firmware_gen.abi import FrameType
    from firmware_gen.driver.deploy import prepare
    from firmware_gen.link.framing import LinkError
    from firmware_gen.link.session import next_frame, open_session

    deployment = prepare(svdf_keyword_spotter(seed=0), "kws", "mps2_an385")
    with pytest.raises(LinkError, match="rejected the sequence request"):
        with open_session(deployment.firmware, timeout=60) as session:
            session.link.send(FrameType.SEQUENCE_REQUEST, struct.pack("<I", 0))
            next_frame(session.link, 20, "the sequence request")


@needs_qemu
@pytest.mark.qemu
def test_layer_validation_runs_the_schedule_once_per_frame(tmp_path: Path) -> None:
    """`validate --layers --board` of a sequence: every layer of every invocation equals TFLM's, the SVDF state
    carried by the step session from one frame to the next."""
    (tmp_path / "kws.tflite").write_bytes(svdf_keyword_spotter(seed=0))
    frames = np.random.default_rng(5).integers(-128, 128, size=(FRAMES, 1, 40)).astype(np.int8)
    np.save(tmp_path / "frames.npy", frames)
    result = run_cli("validate", str(tmp_path / "kws.tflite"), "--board", "mps2_an386", "--layers", "--input",
                     str(tmp_path / "frames.npy"), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["bit_exact"] and report["invocations"] == FRAMES
    assert report["tensors_compared"] == FRAMES * 4
