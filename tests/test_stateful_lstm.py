"""The LSTM keyword spotter (issue 12) as a stateful model: its hidden and cell states are state buffers that no
other buffer overlaps at any step (every planning algorithm, with and without overlap), model.h resets them, and it
is bit-exact with TFLM over a sequence of 12 invocations on the host and on QEMU (mps2_an385, mps2_an386)."""

from __future__ import annotations

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
from firmware_gen.driver.compiler import plan_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.lstm import lstm_keyword_spotter
from firmware_gen.planner import ALGORITHMS, PlanningOptions

FRAMES, FEATURES, UNITS = 4, 10, 16


@pytest.fixture(scope="module")
def kws() -> bytes:
    return lstm_keyword_spotter(seed=0, frames=FRAMES, features=FEATURES, units=UNITS)


def _frames(count: int, seed: int = 0) -> list[list[np.ndarray]]:
    return int8_frames((1, FRAMES, FEATURES), count, seed)


@pytest.mark.parametrize("algorithm", [None, *ALGORITHMS])
@pytest.mark.parametrize("overlap", [True, False])
def test_no_tensor_shares_the_lstm_state_at_any_step(kws: bytes, algorithm, overlap: bool) -> None:
    graph = read_model(kws)
    plan = plan_model(graph, PlanningOptions(overlap=overlap, algorithm=algorithm))
    assert_state_is_alone(plan, graph)
    assert sorted(b.size for b in plan.buffers if b.kind == "state") == [UNITS, 2 * UNITS]  # int8 hidden, int16 cell


def test_lstm_keyword_spotter_is_bit_exact_over_a_sequence(kws: bytes) -> None:
    report = validate_sequence(kws, _frames(SEQUENCE), sanitize=True)
    assert (report.invocations, report.outputs_compared) == (SEQUENCE, SEQUENCE)
    assert report.tensors_compared == SEQUENCE * (4 + 2)  # LSTM, view, FC and softmax outputs, 2 states
    assert report.bit_exact, report.format()
    assert validate_model(kws, interface="packed").bit_exact


def test_reset_state_starts_the_lstm_sequence_again(kws: bytes, tmp_path: Path) -> None:
    assert_reset_starts_the_sequence_again(kws, tmp_path)


@on_qemu
@pytest.mark.parametrize("board", BOARDS)
def test_lstm_keyword_spotter_is_bit_exact_over_a_sequence_under_qemu(kws: bytes, board: str, tmp_path: Path,
                                                                      capsys) -> None:
    assert_bit_exact_on_board(kws, _frames(SEQUENCE, seed=2), board, tmp_path, capsys)
