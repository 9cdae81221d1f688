"""Constant folding (ops/constant_folding.py): operators whose results are known at generation time emit no kernel
call, and the model stays bit-exact with TFLM (the folded constants are compared with TFLM's tensors too)."""

from __future__ import annotations

import numpy as np

from firmware_gen.check.host_validation import validate_model
from firmware_gen.driver.compiler import compile_graph, overlap_allowances
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import fold

Q = {"scale": 0.1, "zero_point": -2}


def _folding_model() -> bytes:
    """x + (TRANSPOSE of weights, then RESHAPE), and a FILL and a SHAPE-driven RESHAPE: only the ADD runs."""
    b = ModelBuilder("folding")
    x = b.input("x", (1, 2, 3), "int8", **Q)
    w = b.constant("w", np.arange(-3, 3, dtype=np.int8).reshape(3, 2), **Q)
    wt = b.tensor("wt", (2, 3), "int8", **Q)
    b.operator("TRANSPOSE", [w, b.constant("perm", np.array([1, 0], np.int32))], [wt])
    s = b.tensor("s", (3,), "int32")
    b.operator("SHAPE", [x], [s])
    wr = b.tensor("wr", (1, 2, 3), "int8", **Q)
    b.operator("RESHAPE", [wt, s], [wr], {"new_shape": (1, 2, 3)})
    f = b.tensor("f", (1, 2, 3), "int8", **Q)
    b.operator("FILL", [b.constant("dims", np.array([1, 2, 3], np.int32)), b.constant("v", np.array(5, np.int8), **Q)],
               [f])
    t = b.tensor("t", (1, 2, 3), "int8", **Q)
    b.operator("ADD", [x, wr], [t])
    y = b.tensor("y", (1, 2, 3), "int8", **Q)
    b.operator("ADD", [t, f], [y])
    b.output(y)
    return b.build()


def test_folded_operators_emit_no_kernel_call_and_stay_bit_exact():
    model = _folding_model()
    graph = read_model(model)
    compiled = compile_graph(graph)
    assert [s.op.opcode for s in compiled.steps] == ["ADD", "ADD"]
    assert [s.op.index for s in compiled.steps] == [4, 5]  # the file's operator numbers are kept...
    assert [s.index for s in compiled.steps] == [0, 1]  # ...the steps (profile slots, packed registry) count on
    assert overlap_allowances(compiled.graph).keys() == {0, 1}  # the in-place ADDs, at their steps
    folded = compiled.graph.tensors
    assert folded[graph.operators[1].outputs[0]].data.tolist() == [1, 2, 3]  # SHAPE
    assert (folded[graph.operators[3].outputs[0]].data == 5).all()  # FILL
    report = validate_model(model)
    assert report.bit_exact, report.mismatches
    assert report.tensors_compared == 6  # the four folded results and the two sums, all against TFLM


def test_arithmetic_and_graph_outputs_do_not_fold():
    b = ModelBuilder("no_fold")
    c = b.constant("c", np.ones((2, 2), np.int8), **Q)
    d = b.constant("d", np.ones((2, 2), np.int8), **Q)
    s = b.tensor("s", (2, 2), "int8", **Q)
    b.operator("ADD", [c, d], [s])  # int8 arithmetic: its rounding stays with the kernel
    x = b.input("x", (2, 2), "int8", **Q)
    y = b.tensor("y", (2, 2), "int8", **Q)
    b.operator("ADD", [x, s], [y])
    z = b.tensor("z", (2, 2), "int8", **Q)
    b.operator("ZEROS_LIKE", [x], [z])  # a graph output is written by a kernel
    b.output(y)
    b.output(z)
    graph = read_model(b.build())
    assert fold(graph) is graph
