"""Helpers shared by the stateful-model tests (tests/test_stateful.py: SVDF; tests/test_stateful_lstm.py: LSTM): the
planner property every state buffer must have, seeded frames, the model.h reset check and validation on a QEMU
board over a sequence."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.cli import main
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.planner.plan import MemoryPlan
from firmware_gen.target.host_build import WARNINGS, c_sources, host_compiler

SEQUENCE = 12
BOARDS = ["mps2_an385", "mps2_an386"]
_TOOLS_MISSING = shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None


def on_qemu(test):
    """Marks a test that runs QEMU boards (skipped without qemu-system-arm and arm-none-eabi-gcc)."""
    skip = pytest.mark.skipif(_TOOLS_MISSING, reason="needs qemu-system-arm and arm-none-eabi-gcc")
    return pytest.mark.qemu(skip(test))


def assert_state_is_alone(plan: MemoryPlan, graph) -> None:
    """Every variable tensor is one state buffer, live at every step, sharing no byte with any other buffer."""
    states = [b for b in plan.buffers if b.kind == "state"]
    assert sorted(t for b in states for t in b.tensors) == sorted(t.index for t in graph.state_tensors)
    for state in states:
        assert (state.first_op, state.last_op) == (0, len(graph.operators) - 1)
        assert len(state.tensors) == 1 and state.size == graph.tensors[state.tensor].nbytes
        for other in plan.buffers:
            if other is not state and other.pool == state.pool:  # live at some step, as the state at every step
                assert other.end <= state.offset or state.end <= other.offset, (state, other)


def int8_frames(shape: tuple[int, ...], count: int, seed: int = 0) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.integers(-128, 128, size=shape).astype(np.int8)] for _ in range(count)]


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


def assert_reset_starts_the_sequence_again(model: bytes, tmp_path: Path) -> None:
    """A C program runs 6 frames, resets the state with kws_model_reset_state() and gets the same outputs again."""
    generate(read_model(model), tmp_path / "model", generation=GenerationOptions(name="kws"))
    header = (tmp_path / "model" / "model.h").read_text()
    assert "void kws_model_reset_state(void);" in header
    (tmp_path / "main.c").write_text(_RESET_MAIN)
    executable = tmp_path / "reset"
    subprocess.run([host_compiler(), "-std=c99", *WARNINGS, f"-I{tmp_path / 'model'}",
                    f"-I{tmp_path / 'model' / 'runtime' / 'include'}", str(tmp_path / "main.c"),
                    *map(str, c_sources(tmp_path / "model")), "-o", str(executable)], check=True)
    assert subprocess.run([str(executable)]).returncode == 0


def assert_bit_exact_on_board(model: bytes, frames: list[list[np.ndarray]], board: str, tmp_path: Path,
                              capsys) -> None:
    """`firmware-gen validate --input frames.npy --board B`: the sequence on QEMU, compared with TFLM."""
    (tmp_path / "kws.tflite").write_bytes(model)
    np.save(tmp_path / "frames.npy", np.stack([frame[0] for frame in frames]))
    assert main(["validate", str(tmp_path / "kws.tflite"), "--input", str(tmp_path / "frames.npy"),
                 "--board", board]) == 0
    assert f"on {board}: bit-exact with TFLite Micro over {len(frames)} invocations" in capsys.readouterr().out
