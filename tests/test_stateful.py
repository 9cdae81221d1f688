"""Stateful models (issue 12): variable tensors are buffers of the plan that live over the whole schedule and share
no byte with anything, under every planning algorithm, with overlap allowances, in a named pool and under both
calling conventions; model.h resets them; the SVDF keyword spotter is bit-exact over a sequence."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from stateful_support import (
    BOARDS,
    SEQUENCE,
    assert_bit_exact_on_board,
    assert_reset_starts_the_sequence_again,
    assert_state_is_alone,
    int8_frames,
    on_qemu,
)

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.sequence_validation import validate_sequence
from firmware_gen.cli import main
from firmware_gen.driver.compiler import compile_graph, overlap_allowances, plan_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.svdf import svdf_keyword_spotter
from firmware_gen.planner import ALGORITHMS, PlanError, PlanningOptions, PoolSpec, check_plan


@pytest.fixture(scope="module")
def kws() -> bytes:
    return svdf_keyword_spotter(seed=0)


def _frames(count: int, seed: int = 0) -> list[list[np.ndarray]]:
    return int8_frames((1, 40), count, seed)


@pytest.mark.parametrize("algorithm", [None, *ALGORITHMS])
@pytest.mark.parametrize("overlap", [True, False])
def test_no_tensor_shares_a_state_buffer_at_any_step(kws: bytes, algorithm, overlap: bool) -> None:
    graph = read_model(kws)
    plan = plan_model(graph, PlanningOptions(overlap=overlap, algorithm=algorithm))
    assert_state_is_alone(plan, graph)
    state_bytes = sum(b.size for b in plan.buffers if b.kind == "state")
    assert state_bytes == 32 * 2 * 10 * 2 + 16 * 6  # svdf0: int16 [1, 640]; svdf1: int8 [1, 96]


def test_the_checker_refuses_a_buffer_on_the_state(kws: bytes) -> None:
    graph = read_model(kws)
    plan = plan_model(graph)
    state = next(b for b in plan.buffers if b.kind == "state")
    # The input is read only at step 0: moved onto the state it would be "free" after it, but the state is not.
    buffers = [dataclasses.replace(b, offset=state.offset) if b.kind == "input" else b for b in plan.buffers]
    with pytest.raises(PlanError, match="overlap"):
        check_plan(dataclasses.replace(plan, buffers=buffers), graph, overlap_allowances(graph))


def test_packed_plans_identically_and_named_pools_hold_the_state(kws: bytes) -> None:
    graph = read_model(kws)
    unpacked, packed = compile_graph(graph, "unpacked"), compile_graph(graph, "packed")
    assert packed.plan.to_json() == unpacked.plan.to_json()
    check_plan(packed.plan, graph, overlap_allowances(graph))
    pools = (PoolSpec("dtcm", 1024, 0), PoolSpec("sram", None, 1))
    plan = plan_model(graph, PlanningOptions(pools=pools))
    assert {b.pool for b in plan.buffers if b.kind == "state"} <= {"dtcm", "sram"}
    assert_state_is_alone(plan, graph)


def test_keyword_spotter_is_bit_exact_over_a_sequence(kws: bytes) -> None:
    report = validate_sequence(kws, _frames(SEQUENCE), sanitize=True)
    assert (report.invocations, report.outputs_compared) == (SEQUENCE, SEQUENCE)
    assert report.tensors_compared == SEQUENCE * (4 + 2)  # 4 operator outputs and 2 states per invocation
    assert report.bit_exact, report.format()
    assert validate_model(kws, interface="packed").bit_exact
    outside = validate_sequence(kws, _frames(4, seed=4), options=PlanningOptions(io_in_pool=False))
    assert outside.bit_exact, outside.format()  # I/O in the caller's buffers: the state stays in the pool


def test_reset_state_starts_the_sequence_again(kws: bytes, tmp_path: Path) -> None:
    assert_reset_starts_the_sequence_again(kws, tmp_path)


def test_validate_takes_a_sequence_from_the_command_line(kws: bytes, tmp_path: Path, capsys) -> None:
    (tmp_path / "kws.tflite").write_bytes(kws)
    np.save(tmp_path / "frames.npy", np.stack([frame[0] for frame in _frames(10, seed=1)]))
    assert main(["validate", str(tmp_path / "kws.tflite"), "--input", str(tmp_path / "frames.npy")]) == 0
    assert "bit-exact with TFLite Micro over 10 invocations" in capsys.readouterr().out


@on_qemu
@pytest.mark.parametrize("board", BOARDS)
def test_keyword_spotter_is_bit_exact_over_a_sequence_under_qemu(kws: bytes, board: str, tmp_path: Path,
                                                                 capsys) -> None:
    assert_bit_exact_on_board(kws, _frames(SEQUENCE, seed=2), board, tmp_path, capsys)


def test_a_dataset_of_a_stateful_model_runs_as_one_sequence_on_the_host(kws: bytes) -> None:
    from firmware_gen.check.dataset_validation import validate_dataset

    report = validate_dataset(read_model(kws), kws, "kws", _frames(8, seed=3))
    assert report.bit_exact, report.format()
