"""RESHAPE and SQUEEZE: views sharing their input's storage, bit-exact against TFLM alone and in chains."""

from __future__ import annotations

import numpy as np
import pytest
from validated import assert_bit_exact, refusal

from firmware_gen.driver.compiler import compile_graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY

from conftest import SHARED_MODEL_NAMES, shared_model


def view_model(opcode, in_shape, out_shape, options=None, then_transpose=False) -> bytes:
    b = ModelBuilder(opcode.lower())
    x = b.input("x", in_shape, "int8", scale=0.1, zero_point=3)
    y = b.tensor("y", out_shape, "int8", scale=0.1, zero_point=3)
    b.operator(opcode, inputs=[x], outputs=[y], options=options or {})
    if then_transpose:
        perm = list(range(len(out_shape)))[::-1]
        z = b.tensor("z", [out_shape[p] for p in perm], "int8", scale=0.1, zero_point=3)
        b.operator("TRANSPOSE", inputs=[y, b.constant("perm", np.array(perm, np.int32))], outputs=[z])
        b.output(z)
    else:
        b.output(y)
    return b.build()


@pytest.mark.parametrize("opcode, in_shape, out_shape, options", [
    ("RESHAPE", (1, 4, 6), (24,), None),
    ("RESHAPE", (2, 3, 4), (4, 3, 2), None),
    ("SQUEEZE", (1, 5, 1, 3), (5, 3), {"squeeze_dims": ()}),
    ("SQUEEZE", (1, 5, 1, 3), (1, 5, 3), {"squeeze_dims": (2,)}),
])
@pytest.mark.parametrize("then_transpose", [False, True])
def test_view_is_bit_exact(opcode, in_shape, out_shape, options, then_transpose):
    assert_bit_exact(view_model(opcode, in_shape, out_shape, options, then_transpose))


def test_view_shares_its_input_storage():
    graph = read_model(view_model("RESHAPE", (2, 3, 4), (6, 4), then_transpose=True))
    compiled = compile_graph(graph)
    reshape = graph.operators[0]
    assert compiled.calls.keys() == {1}
    assert compiled.plan.offset_of(reshape.outputs[0]) == compiled.plan.offset_of(reshape.inputs[0])


def test_element_count_mismatch_is_refused():
    assert "different element counts" in refusal(view_model("RESHAPE", (2, 3, 4), (5, 5)))


@pytest.mark.parametrize("name", SHARED_MODEL_NAMES)
def test_views_of_shared_models_are_accepted(name):
    graph = read_model(shared_model(name).read_bytes(), name)
    for op in graph.operators:
        if op.opcode in ("RESHAPE", "SQUEEZE"):
            REGISTRY[op.opcode].check(graph, op)
