"""The DSP 4-bit convolution's blocks on the stack (ops/variants/dsp_4bit.py, dsp_blocking): deep windows (a 1x1 over
250 channels to 7, a 3x3 over 31 to 9, odd both) take pixel and channel blocks past the small-stack bound on the
16 KB-stack Armv7E-M and Armv8-M boards, bit-exact with TFLM and their worst-case stack exact and above what the
firmware measures; a board with an 8 KB stack (nucleo_f746zg, built only: no QEMU machine) keeps within the small
bound and its stack."""

from __future__ import annotations

import numpy as np
import pytest
from target_fixtures import needs_cross_gcc, needs_qemu

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.variants.dsp_4bit import SMALL_INPUTS, SMALL_UNPACKED

LAYERS = [(250, 7, (1, 1)), (31, 9, (3, 3))]  # in_c, out_c, window


def _deep_model() -> bytes:
    """Each of LAYERS on its own 5x6 input with 4-bit per-channel weights, SAME padding."""
    rng = np.random.default_rng(25)
    b = ModelBuilder("deep_s4")
    for k, (in_c, out_c, window) in enumerate(LAYERS):
        x = b.input(f"x{k}", (1, 5, 6, in_c), "int8", scale=0.05, zero_point=int(rng.integers(-20, 20)))
        scales = [float(s) for s in rng.uniform(0.01, 0.1, out_c)]
        w = b.constant(f"w{k}", rng.integers(-8, 8, (out_c, *window, in_c)).astype(np.int8), scales, int4=True)
        bias = b.constant(f"b{k}", rng.integers(-300, 300, out_c).astype(np.int32), [0.05 * s for s in scales])
        spread = 0.05 * float(np.mean(scales)) * 40 * np.sqrt(in_c * window[0] * window[1])
        y = b.tensor(f"y{k}", (1, 5, 6, out_c), "int8", scale=spread, zero_point=int(rng.integers(-20, 20)))
        b.operator("CONV_2D", [x, w, bias], [y], {"padding": "SAME", "activation": "RELU" if k else "NONE"})
        b.output(y)
    return b.build()


def _blocks(deployment) -> list[tuple[int, int, int]]:
    """(tiles, channel pairs, run-time stack) of each fg_conv2d_s4_dsp call."""
    calls = [call for call in deployment.compiled.calls.values() if call.function == "fg_conv2d_s4_dsp"]
    assert len(calls) == len(LAYERS), [call.function for call in calls]
    tables = [next(t.values for t in call.tables if t.suffix == call.params["packed"].suffix) for call in calls]
    return [(int(values[0]), int(values[1]), call.run_time_stack) for values, call in zip(tables, calls, strict=True)]


def _within_small_bound(blocks: tuple[int, int, int], pairs: int) -> bool:
    return 3 * pairs * blocks[0] <= SMALL_INPUTS and 2 * pairs * blocks[1] <= SMALL_UNPACKED


PAIRS = [-(-in_c * window[0] * window[1] // 8) * 4 for in_c, _, window in LAYERS]


@needs_qemu
@pytest.mark.qemu
@pytest.mark.parametrize("board", ["mps2_an386", "mps2_an521"])
def test_deep_windows_take_bigger_blocks_on_a_16k_stack(board, tmp_path):
    data = _deep_model()
    deployment = prepare(data, "deep_s4.tflite", board, out_dir=tmp_path)
    blocks = _blocks(deployment)
    assert not any(_within_small_bound(b, pairs) for b, pairs in zip(blocks, PAIRS, strict=True)), blocks
    bound = deployment.firmware.stack
    assert bound is not None and bound.exact, bound and bound.problems
    assert max(b[2] for b in blocks) < bound.thread.bytes <= 16384
    inputs = random_inputs(deployment.graph, 6)
    result = run(deployment, inputs)
    assert all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))
    assert result.stack_bytes_used is not None and 0 < result.stack_bytes_used <= bound.thread.bytes


@needs_cross_gcc
def test_an_8k_stack_keeps_the_small_blocks(tmp_path):
    deployment = prepare(_deep_model(), "deep_s4.tflite", "nucleo_f746zg", out_dir=tmp_path)
    blocks = _blocks(deployment)
    assert all(_within_small_bound(b, pairs) for b, pairs in zip(blocks, PAIRS, strict=True)), blocks
    bound = deployment.firmware.stack
    assert bound is not None and bound.exact and bound.thread.bytes <= 8192, bound
