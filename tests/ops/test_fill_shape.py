"""FILL, ZEROS_LIKE (run on the device when their value or output needs it), SHAPE (always folded) and EXPAND_DIMS
(a view), bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from validated import assert_bit_exact, refusal

from firmware_gen.driver.compiler import compile_graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder

Q = {"scale": 0.1, "zero_point": 3}


def test_fill_zeros_like_at_run_time_are_bit_exact():
    b = ModelBuilder("fill")
    x = b.input("x", (2, 3), "int8", **Q)
    v = b.input("v", (), "int8", **Q)
    zeros, filled = b.tensor("z", (2, 3), "int8", **Q), b.tensor("f", (2, 3), "int8", **Q)
    b.operator("ZEROS_LIKE", [x], [zeros])
    b.operator("FILL", [b.constant("dims", np.array([2, 3], np.int32)), v], [filled])
    b.output(zeros)
    b.output(filled)
    assert_bit_exact(b.build(), inputs=[np.ones((2, 3), np.int8), np.array(-7, np.int8)])


def test_expand_dims_is_a_view_and_shape_folds():
    b = ModelBuilder("expand")
    x = b.input("x", (2, 3), "int8", **Q)
    e = b.tensor("e", (2, 1, 3), "int8", **Q)
    b.operator("EXPAND_DIMS", [x, b.constant("axis", np.array([1], np.int32))], [e])
    s = b.tensor("s", (3,), "int32")
    b.operator("SHAPE", [e], [s])
    r = b.tensor("r", (2, 1, 3), "int8", **Q)
    b.operator("RESHAPE", [e, s], [r], {"new_shape": (2, 1, 3)})  # a shape computed by SHAPE, known here
    t = b.tensor("t", (3, 1, 2), "int8", **Q)
    b.operator("TRANSPOSE", [r, b.constant("perm", np.array([2, 1, 0], np.int32))], [t])
    b.output(t)
    model = b.build()
    compiled = compile_graph(read_model(model))
    # two views and the transpose; SHAPE was folded away
    assert [(s.op.opcode, s.call is not None) for s in compiled.steps] == [
        ("EXPAND_DIMS", False), ("RESHAPE", False), ("TRANSPOSE", True)]
    assert_bit_exact(model)


def test_shape_as_a_graph_output_is_refused():
    b = ModelBuilder("shape")
    x = b.input("x", (2, 3), "int8", **Q)
    s = b.tensor("s", (2,), "int32")
    b.operator("SHAPE", [x], [s])
    b.output(s)
    assert "is a graph output" in refusal(b.build())
