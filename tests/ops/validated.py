"""Shared pieces of the single-operator tests that go through the whole pipeline: strategies for quantization
parameters and the end-to-end bit-exactness assertion (generated C, with sanitizers, against TFLM)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from hypothesis import strategies as st

from firmware_gen.check.host_validation import validate_model
from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import PORTABLE, Isa
from firmware_gen.ops import check_supported
from firmware_gen.planner import PlanningOptions

MAX_EXAMPLES = 25

scales = st.floats(min_value=1e-3, max_value=2.0, allow_nan=False, allow_infinity=False)
int8_zero_points = st.integers(min_value=-128, max_value=127)


def shapes(min_rank: int = 1, max_rank: int = 4, max_side: int = 6) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(1, max_side), min_size=min_rank, max_size=max_rank).map(tuple)


def assert_bit_exact(model: bytes, inputs: Sequence[np.ndarray] | None = None, seed: int = 0,
                     isa: Isa = PORTABLE, options: PlanningOptions = PlanningOptions()) -> None:
    report = validate_model(model, inputs=list(inputs) if inputs is not None else None, seed=seed, sanitize=True,
                            isa=isa, options=options)
    assert report.tensors_compared >= 1
    assert report.bit_exact, report.mismatches


def refusal(model: bytes) -> str:
    """The message with which the model is refused (fails the test when it is accepted)."""
    graph = read_model(model)
    try:
        check_supported(graph)
    except UnsupportedModelError as error:
        return str(error)
    raise AssertionError("the model was accepted")
