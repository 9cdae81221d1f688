"""Stateful models (issue 12): variable tensors are buffers of the plan that live over the whole schedule and share
no byte with anything, under every planning algorithm, with overlap allowances, in a named pool and under both
calling conventions; model.h resets them; the SVDF keyword spotter is bit-exact over a sequence."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.sequence_validation import validate_sequence
from firmware_gen.cli import main
from firmware_gen.driver.compiler import compile_graph, generate, overlap_allowances, plan_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.svdf import svdf_keyword_spotter
from firmware_gen.planner import ALGORITHMS, PlanError, PlanningOptions, PoolSpec, check_plan
from firmware_gen.planner.plan import MemoryPlan
from firmware_gen.target.host_build import WARNINGS, c_sources, host_compiler

SEQUENCE = 12


@pytest.fixture(scope="module")
def kws() -> bytes:
    return svdf_keyword_spotter(seed=0)


def _frames(count: int, seed: int = 0) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.integers(-128, 128, size=(1, 40)).astype(np.int8)] for _ in range(count)]


def _assert_state_is_alone(plan: MemoryPlan, graph) -> None:
    states = [b for b in plan.buffers if b.kind == "state"]
    assert sorted(t for b in states for t in b.tensors) == sorted(t.index for t in graph.state_tensors)
    for state in states:
        assert (state.first_op, state.last_op) == (0, len(graph.operators) - 1)
        assert len(state.tensors) == 1 and state.size == graph.tensors[state.tensor].nbytes
        for other in plan.buffers:
            if other is not state and other.pool == state.pool:  # live at some step, as the state at every step
                assert other.end <= state.offset or state.end <= other.offset, (state, other)


@pytest.mark.parametrize("algorithm", [None, *ALGORITHMS])
@pytest.mark.parametrize("overlap", [True, False])
def test_no_tensor_shares_a_state_buffer_at_any_step(kws: bytes, algorithm, overlap: bool) -> None:
    graph = read_model(kws)
    plan = plan_model(graph, PlanningOptions(overlap=overlap, algorithm=algorithm))
    _assert_state_is_alone(plan, graph)
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
    _assert_state_is_alone(plan, graph)


def test_keyword_spotter_is_bit_exact_over_a_sequence(kws: bytes) -> None:
    report = validate_sequence(kws, _frames(SEQUENCE), sanitize=True)
    assert (report.invocations, report.outputs_compared) == (SEQUENCE, SEQUENCE)
    assert report.tensors_compared == SEQUENCE * (4 + 2)  # 4 operator outputs and 2 states per invocation
    assert report.bit_exact, report.format()
    assert validate_model(kws, interface="packed").bit_exact
    outside = validate_sequence(kws, _frames(4, seed=4), options=PlanningOptions(io_in_pool=False))
    assert outside.bit_exact, outside.format()  # I/O in the caller's buffers: the state stays in the pool


_RESET_MAIN = r"""
#include <stdint.h>
#include <string.h>
#include "model.h"
#define FRAMES 6
int main(void) {
    static int8_t input[KWS_MODEL_INPUT0_BYTES], first[FRAMES][KWS_MODEL_OUTPUT0_BYTES];
    static int8_t output[KWS_MODEL_OUTPUT0_BYTES];
    const void *inputs[1] = { input };
    void *outputs[1] = { output };
    for (int pass = 0; pass < 2; ++pass) {
        for (int frame = 0; frame < FRAMES; ++frame) {
            for (int i = 0; i < KWS_MODEL_INPUT0_BYTES; ++i) {
                input[i] = (int8_t)((frame * 37 + i * 11) % 256 - 128);
            }
            if (kws_model_run(inputs, outputs) != 0) {
                return 2;
            }
            if (pass == 0) {
                memcpy(first[frame], output, sizeof output);
            } else if (memcmp(first[frame], output, sizeof output) != 0) {
                return 1;
            }
        }
        kws_model_reset_state();
    }
    return 0;
}
"""


def test_reset_state_starts_the_sequence_again(kws: bytes, tmp_path: Path) -> None:
    generate(read_model(kws), tmp_path / "model", generation=GenerationOptions(name="kws"))
    header = (tmp_path / "model" / "model.h").read_text()
    assert "void kws_model_reset_state(void);" in header
    (tmp_path / "main.c").write_text(_RESET_MAIN)
    executable = tmp_path / "reset"
    subprocess.run([host_compiler(), "-std=c99", *WARNINGS, f"-I{tmp_path / 'model'}",
                    f"-I{tmp_path / 'model' / 'runtime' / 'include'}", str(tmp_path / "main.c"),
                    *map(str, c_sources(tmp_path / "model")), "-o", str(executable)], check=True)
    assert subprocess.run([str(executable)]).returncode == 0


def test_validate_takes_a_sequence_from_the_command_line(kws: bytes, tmp_path: Path, capsys) -> None:
    (tmp_path / "kws.tflite").write_bytes(kws)
    np.save(tmp_path / "frames.npy", np.stack([frame[0] for frame in _frames(10, seed=1)]))
    assert main(["validate", str(tmp_path / "kws.tflite"), "--input", str(tmp_path / "frames.npy")]) == 0
    assert "bit-exact with TFLite Micro over 10 invocations" in capsys.readouterr().out


@pytest.mark.qemu
@pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                    reason="needs qemu-system-arm and arm-none-eabi-gcc")
@pytest.mark.parametrize("board", ["mps2_an385", "mps2_an386"])
def test_keyword_spotter_is_bit_exact_over_a_sequence_under_qemu(kws: bytes, board: str, tmp_path: Path,
                                                                 capsys) -> None:
    (tmp_path / "kws.tflite").write_bytes(kws)
    np.save(tmp_path / "frames.npy", np.stack([frame[0] for frame in _frames(SEQUENCE, seed=2)]))
    assert main(["validate", str(tmp_path / "kws.tflite"), "--input", str(tmp_path / "frames.npy"),
                 "--board", board]) == 0
    assert f"on {board}: bit-exact with TFLite Micro over {SEQUENCE} invocations" in capsys.readouterr().out


def test_a_dataset_of_a_stateful_model_runs_as_one_sequence_on_the_host(kws: bytes) -> None:
    from firmware_gen.check.dataset_validation import validate_dataset

    report = validate_dataset(read_model(kws), kws, "kws", _frames(8, seed=3))
    assert report.bit_exact, report.format()
