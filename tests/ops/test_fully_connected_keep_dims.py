"""FULLY_CONNECTED with keep_num_dims on inputs of rank 3 and 4 (an attention block's projections): bit-exact against
TFLM on the host, and every kernel variant still selects a valid call (the variants read the input as
[batches, accum_depth], which keep_num_dims does not change)."""

from __future__ import annotations

import numpy as np
import pytest
from test_fully_connected import fc_model
from validated import assert_bit_exact
from weighted import Weights

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import CORE_FEATURES, Isa
from firmware_gen.ops import lower


def _model(input_shape, bias: bool) -> bytes:
    rng = np.random.default_rng(7)
    w = Weights(rng.integers(-127, 128, (6, input_shape[-1])).astype(np.int8), [0.01 * (1 + c) for c in range(6)],
                rng.integers(-4000, 4000, 6).astype(np.int32) if bias else None, 0.4)
    return fc_model(input_shape, w, 0.05, 3, -2, keep_num_dims=True)


@pytest.mark.parametrize("input_shape", [(2, 3, 8), (2, 1, 3, 5)])
def test_keep_num_dims_is_bit_exact(input_shape):
    assert_bit_exact(_model(input_shape, bias=True), seed=1)


@pytest.mark.parametrize("core", ["cortex-m3", "cortex-m4", "cortex-m55"])
def test_keep_num_dims_lowers_for_every_isa(core):
    graph = read_model(_model((2, 1, 3, 5), bias=False))
    (call,) = lower(graph, Isa(CORE_FEATURES[core])).values()
    assert call.params["batches"] == 6 and call.params["out_depth"] == 6
