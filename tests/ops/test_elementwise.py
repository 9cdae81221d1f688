"""ADD and MUL (int8, with broadcasting): lowering checks and bit-exactness against TFLM."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from isolate import operators_of

from firmware_gen.check.host_validation import validate_model
from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY
from firmware_gen.ops.support.broadcast import broadcast_loops

from conftest import shared_model

ACTIVATIONS = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]


def binary_model(opcode: str, shape1: tuple[int, ...], shape2: tuple[int, ...], quant1: tuple[float, int],
                 quant2: tuple[float, int], quant_out: tuple[float, int], activation: str = "NONE",
                 constant: int | None = None, seed: int = 0) -> bytes:
    """One ADD or MUL; `constant` (0 or 1) makes that input a constant tensor of random values."""
    builder = ModelBuilder(opcode.lower())
    rng = np.random.default_rng(seed)
    operands = []
    for position, (shape, (scale, zero_point)) in enumerate(((shape1, quant1), (shape2, quant2))):
        name = f"x{position + 1}"
        if position == constant:
            data = rng.integers(-128, 128, shape, endpoint=False).astype(np.int8)
            operands.append(builder.constant(name, data, scale=scale, zero_point=zero_point))
        else:
            operands.append(builder.input(name, shape, "int8", scale=scale, zero_point=zero_point))
    out = builder.tensor("y", np.broadcast_shapes(shape1, shape2), "int8", scale=quant_out[0],
                         zero_point=quant_out[1])
    builder.operator(opcode, inputs=operands, outputs=[out], options={"activation": activation})
    builder.output(out)
    return builder.build()


def assert_bit_exact(model: bytes, seed: int = 0) -> None:
    report = validate_model(model, seed=seed, sanitize=True)
    assert report.bit_exact, report.mismatches
    assert report.tensors_compared == 1


scales = st.floats(min_value=-10.0, max_value=0.0).map(lambda e: float(np.float32(2.0**e)))
zero_points = st.integers(-128, 127)


@st.composite
def binary_cases(draw: st.DrawFn, opcode: str) -> dict:
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=1, max_side=6))
    scale1, scale2 = draw(scales), draw(scales)
    # An output scale near the result's natural range, so that outputs are not all saturated.
    natural = scale1 + scale2 if opcode == "ADD" else scale1 * scale2 * 128
    factor = draw(st.floats(min_value=-3.0, max_value=3.0))
    return {
        "opcode": opcode,
        "shape1": shapes.input_shapes[0],
        "shape2": shapes.input_shapes[1],
        "quant1": (scale1, draw(zero_points)),
        "quant2": (scale2, draw(zero_points)),
        "quant_out": (float(np.float32(natural * 2.0**factor)), draw(zero_points)),
        "activation": draw(st.sampled_from(ACTIVATIONS)),
        "constant": draw(st.sampled_from([None, 0, 1])),
        "seed": draw(st.integers(0, 2**16)),
    }


@pytest.mark.parametrize("opcode", ["ADD", "MUL"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bit_exact_with_tflm(opcode: str, data: st.DataObject) -> None:
    case = data.draw(binary_cases(opcode))
    assert_bit_exact(binary_model(**{k: v for k, v in case.items() if k != "seed"}, seed=case["seed"]),
                     seed=case["seed"])


@pytest.mark.parametrize("opcode", ["ADD", "MUL"])
@pytest.mark.parametrize("shape1, shape2", [
    ((1, 8, 8, 16), (1, 1, 1, 16)),  # per-channel constant
    ((1, 8, 8, 16), ()),  # scalar
    ((1, 1, 1, 16), (1, 8, 8, 16)),  # broadcast first operand
    ((2, 1, 3, 1, 2), (1, 3, 1, 4, 1)),  # rank 5, alternating
    ((2, 1, 2, 1, 2, 3), (1, 3, 1, 2, 2, 1)),  # rank 6
])
def test_broadcast_patterns(opcode: str, shape1: tuple, shape2: tuple) -> None:
    assert_bit_exact(binary_model(opcode, shape1, shape2, (0.05, 3), (0.02, -7), (0.06, 5), "RELU",
                                  constant=1 if math.prod(shape2) < math.prod(shape1) else None))


@pytest.mark.parametrize("shape1, shape2, loops", [
    ((1, 8, 8, 16), (1, 8, 8, 16), ((1024,), (1,), (1,))),
    ((1, 8, 8, 16), (1, 1, 1, 16), ((64, 16), (16, 1), (0, 1))),
    ((1, 8, 8, 16), (), ((1024,), (1,), (0,))),
    ((2, 1, 3), (1, 5, 1), ((2, 5, 3), (3, 0, 1), (0, 1, 0))),
    ((), (), ((), (), ())),
])
def test_broadcast_loops_fuse_dimensions(shape1: tuple, shape2: tuple, loops: tuple) -> None:
    out = np.broadcast_shapes(shape1, shape2)
    result = broadcast_loops(shape1, shape2, out)
    assert (result.dims, result.strides1, result.strides2) == loops


def test_add_multipliers_follow_tflm() -> None:
    # TFLM: twice_max = 2 * max(s1, s2); inputs s / twice_max; output twice_max / (2^20 * s_out).
    graph = read_model(binary_model("ADD", (1, 4), (1, 4), (0.5, 0), (0.25, 0), (1.0, 0)))
    params = REGISTRY["ADD"].lower(graph, graph.operators[0]).params
    assert (params["input1_multiplier"], params["input1_shift"]) == (1 << 30, 0)  # 0.5
    assert (params["input2_multiplier"], params["input2_shift"]) == (1 << 30, -1)  # 0.25
    assert (params["output_multiplier"], params["output_shift"]) == (1 << 30, -19)  # 2^-20
    assert params["left_shift"] == 20


@pytest.mark.parametrize("opcode", ["ADD", "MUL"])
def test_rejects_mixed_int8_and_int16_naming_it(opcode: str) -> None:
    builder = ModelBuilder("bad")
    x = builder.input("x", (1, 4), "int8", scale=0.1, zero_point=0)
    w = builder.input("w", (1, 4), "int16", scale=0.1, zero_point=0)
    y = builder.tensor("y", (1, 4), "int8", scale=0.1, zero_point=0)
    builder.operator(opcode, inputs=[x, w], outputs=[y])
    builder.output(y)
    graph = read_model(builder.build())
    with pytest.raises(UnsupportedModelError, match=r"operator 0 .*tensor 1 'w'.* is int16 but .*share one type"):
        REGISTRY[opcode].check(graph, graph.operators[0])


def test_rejects_shapes_that_do_not_broadcast() -> None:
    graph = read_model(binary_model("ADD", (1, 4), (1, 4), (0.1, 0), (0.1, 0), (0.1, 0)))
    graph.tensors[1].shape = (1, 3)
    with pytest.raises(UnsupportedModelError, match="do not broadcast"):
        REGISTRY["ADD"].check(graph, graph.operators[0])


def test_resnet_adds() -> None:
    cases = operators_of(shared_model("pretrainedResnet_quant"), {"ADD", "MUL"})
    assert cases
    for label, model in cases:
        report = validate_model(model, seed=1)
        assert report.bit_exact, (label, report.mismatches)
