"""The arithmetic and reductions synthetic block (modelgen/arithmetic.py): bit-exact with TFLM on the host, and on
mps2_an386 under QEMU (one firmware build, two input sets)."""

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
from firmware_gen.modelgen.arithmetic import arithmetic_block
from firmware_gen.ops import output_overlaps
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.cross_build import build_firmware

NEW_OPERATORS = {"SUB", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM", "ABS", "RSQRT", "ADD_N", "SUM", "MEAN",
                 "REDUCE_MAX", "REDUCE_MIN", "ARG_MAX", "ARG_MIN"}


def test_arithmetic_block_uses_every_new_operator_and_is_bit_exact_on_the_host():
    model = arithmetic_block()
    assert NEW_OPERATORS <= {op.opcode for op in read_model(model).operators}
    report = validate_model(model, seed=3, sanitize=True)
    assert report.outputs_compared == 7 and report.bit_exact, report.mismatches


def test_arithmetic_block_is_bit_exact_with_overlapping_buffers_on_the_host():
    graph = read_model(arithmetic_block())
    declared = output_overlaps(graph)
    assert {graph.operators[i].opcode for i in declared} >= {"SUB", "ABS", "ADD_N", "SUM", "REDUCE_MAX"}
    report = validate_model(arithmetic_block(), seed=4, options=PlanningOptions(overlap=True))
    assert report.bit_exact, report.mismatches


@needs_qemu
@pytest.mark.qemu
def test_arithmetic_block_is_bit_exact_on_mps2_an386(tmp_path):
    model = arithmetic_block()
    graph = read_model(model, "arithmetic_block")
    generate(graph, tmp_path / "model", source="arithmetic_block")
    firmware = build_firmware(tmp_path / "model", "mps2_an386", tmp_path / "firmware")
    for seed in (0, 1):
        inputs = random_inputs(graph, seed=seed)
        ours = run_model(firmware, inputs, timeout=120).outputs
        theirs = run_tflm(model, inputs, len(graph.tensors)).outputs
        assert len(ours) == len(theirs) == 7
        for mine, expected in zip(ours, theirs, strict=True):
            assert np.array_equal(mine.ravel(), np.asarray(expected).ravel())
