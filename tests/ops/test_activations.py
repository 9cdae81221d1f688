"""RELU, RELU6, LEAKY_RELU, HARD_SWISH, TANH, ELU: the generation-time tables against TFLM on all 256 input bytes
(many quantizations per TFLM run), the lookup kernel end to end, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_oracle import mismatches
from validated import assert_bit_exact, int8_zero_points, refusal, shapes

from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.activation import activation_tables as tables

CASES_PER_RUN = 24
float32_scales = st.floats(-3.0, 0.3).map(lambda e: float(np.float32(10.0**e)))
quantizations = st.tuples(float32_scales, int8_zero_points)
case_lists = st.lists(st.tuples(quantizations, quantizations), min_size=CASES_PER_RUN, max_size=CASES_PER_RUN)

TABLES = {
    "RELU": tables.relu_table,
    "RELU6": tables.relu6_table,
    "TANH": tables.tanh_table,
    "ELU": tables.elu_table,
}


@pytest.mark.parametrize("opcode", sorted(TABLES))
@settings(max_examples=2, deadline=None)
@given(cases=case_lists)
def test_every_input_byte_matches_tflm(opcode, cases):
    assert not mismatches(opcode, cases, [TABLES[opcode](*case) for case in cases])


@settings(max_examples=3, deadline=None)
@given(cases=case_lists, alpha=st.floats(-2.0, 2.0).map(lambda a: float(np.float32(a))))
def test_leaky_relu_matches_tflm_on_every_input_byte(cases, alpha):
    assert not mismatches("LEAKY_RELU", cases, [tables.leaky_relu_table(*case, alpha) for case in cases],
                          {"alpha": alpha})


@settings(max_examples=3, deadline=None)
@given(cases=case_lists)
def test_hard_swish_matches_tflm_on_every_input_byte(cases):
    cases = [case for case in cases if tables.hard_swish_parameters(*case)[1] <= 0]  # TFLM refuses the others
    assert not mismatches("HARD_SWISH", cases, [tables.hard_swish_table(*case) for case in cases])


def test_tables_at_the_edges_of_quantization_match_tflm():
    edges = [((1e-4, 0), (1e-4, 0)), ((2.0, 127), (0.001, -128)), ((0.001, -128), (2.0, 127)),
             ((1 / 16, 0), (1 / 128, 0)), ((3e-8, 0), (1.0, 0)), ((8.0, -3), (8.0, 5)), ((0.05, 0), (0.05, 0)),
             ((1.0, 0), (0.004, 0)), ((12.0, 0), (1.0, 0)), ((0.48, 3), (0.1, 0))]  # 6 / 12 = 0.5 rounds away
    for opcode, table in TABLES.items():
        assert not mismatches(opcode, edges, [table(*case) for case in edges])


def unary_model(opcode: str, shape, source, result, options=None) -> bytes:
    builder = ModelBuilder(opcode.lower())
    x = builder.input("x", shape, "int8", scale=source[0], zero_point=source[1])
    y = builder.tensor("y", shape, "int8", scale=result[0], zero_point=result[1])
    builder.operator(opcode, inputs=[x], outputs=[y], options=options or {})
    builder.output(y)
    return builder.build()


@settings(max_examples=3, deadline=None)
@given(opcode=st.sampled_from(["RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "TANH", "ELU"]), shape=shapes(1, 4),
       source=st.tuples(st.floats(0.01, 0.1), int8_zero_points),
       result=st.tuples(st.floats(0.01, 0.1), int8_zero_points), seed=st.integers(0, 99))
def test_lookup_kernel_is_bit_exact_end_to_end(opcode, shape, source, result, seed):
    assert_bit_exact(unary_model(opcode, shape, source, result, {"alpha": 0.25} if opcode == "LEAKY_RELU" else {}),
                     seed=seed)


@pytest.mark.parametrize("opcode, source, result, options, words", [
    ("HARD_SWISH", (1.0, 0), (1e-4, 0), {}, "exponent 7"),
    ("TANH", (2.0**-30, 0), (1 / 128, 0), {}, "2^-28"),
    ("LEAKY_RELU", (0.1, 0), (0.1, 0), {"alpha": float("nan")}, "option alpha is nan"),
])
def test_what_tflm_refuses_is_refused_naming_operator_and_value(opcode, source, result, options, words):
    message = refusal(unary_model(opcode, (1, 4), source, result, options))
    assert "operator 0" in message and opcode in message and words in message


def test_int16_input_is_refused():  # ELU: TFLM has no int16 form either (RELU and RELU6 have one)
    builder = ModelBuilder("elu16")
    x = builder.input("x", (4,), "int16", scale=0.1, zero_point=0)
    y = builder.tensor("y", (4,), "int16", scale=0.1, zero_point=0)
    builder.operator("ELU", inputs=[x], outputs=[y])
    builder.output(y)
    assert "only int8 is supported" in refusal(builder.build())
