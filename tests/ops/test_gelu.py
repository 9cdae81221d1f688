"""GELU int8, beyond TFLite Micro: TFLM has no GELU kernel (its interpreter refuses the model), so the oracle is
LiteRT's reference kernel (PyPI ai-edge-litert, in the `reference` and `test` extras; its BUILTIN_REF op resolver),
whose int8 GELU is a table filled in float32. The tables are checked on all 256 input bytes, the C kernel end to end."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_oracle import VALUES, table_rows
from validated import int8_zero_points, shapes

from firmware_gen.check.host_validation import run_trace
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.activation.activation_tables import gelu_table
from firmware_gen.target.host_build import build_trace_executable

litert = pytest.importorskip("ai_edge_litert.interpreter", reason="GELU's oracle: ai-edge-litert (extra reference)")

float32_scales = st.floats(-3.0, 0.3).map(lambda e: float(np.float32(10.0**e)))
quantizations = st.tuples(float32_scales, int8_zero_points)


def gelu_model(cases, approximate: bool, shape=VALUES.shape) -> bytes:
    builder = ModelBuilder("gelu")
    for k, ((in_scale, in_zp), (out_scale, out_zp)) in enumerate(cases):
        x = builder.input(f"x{k}", shape, "int8", scale=in_scale, zero_point=in_zp)
        y = builder.tensor(f"y{k}", shape, "int8", scale=out_scale, zero_point=out_zp)
        builder.operator("GELU", inputs=[x], outputs=[y], options={"approximate": approximate})
        builder.output(y)
    return builder.build()


def run_litert(model: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    interpreter = litert.Interpreter(model_content=model,
                                     experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    for detail, x in zip(interpreter.get_input_details(), inputs, strict=True):
        interpreter.set_tensor(detail["index"], x)
    interpreter.invoke()
    return [interpreter.get_tensor(detail["index"]).copy() for detail in interpreter.get_output_details()]


@settings(max_examples=3, deadline=None)
@given(cases=st.lists(st.tuples(quantizations, quantizations), min_size=32, max_size=32), approximate=st.booleans())
def test_every_input_byte_matches_litert(cases, approximate):
    expected = run_litert(gelu_model(cases, approximate), [VALUES] * len(cases))
    ours = table_rows([gelu_table(*case, approximate) for case in cases])
    for case, theirs, mine in zip(cases, expected, ours, strict=True):
        assert np.array_equal(theirs.ravel(), mine), case


@settings(max_examples=2, deadline=None)
@given(shape=shapes(1, 4), source=quantizations, result=quantizations, approximate=st.booleans(),
       seed=st.integers(0, 99))
def test_generated_c_matches_litert(shape, source, result, approximate, seed):
    model = gelu_model([(source, result)], approximate, shape)
    x = np.random.default_rng(seed).integers(-128, 128, size=shape, dtype=np.int8)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        generate(read_model(model), work / "model")
        _, outputs = run_trace(build_trace_executable(work / "model", work / "build", sanitize=True), work, [x])
    assert np.frombuffer(outputs[0], np.int8).tobytes() == run_litert(model, [x])[0].tobytes()
