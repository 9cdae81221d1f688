"""inspect on a model firmware-gen cannot compile: every unsupported operator listed with its index, in one run;
control flow, resource variables and custom operators named as such."""

from __future__ import annotations

import json

import numpy as np
import pytest

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen import writer
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import check_supported, refusals

from conftest import run_cli

Q = {"scale": 0.1, "zero_point": 0}


def _model_with_gaps(monkeypatch: pytest.MonkeyPatch) -> bytes:
    for opcode in ("EXP", "VAR_HANDLE", "READ_VARIABLE"):
        monkeypatch.setitem(writer.OPTION_WRITERS, opcode, writer.OPTION_WRITERS["LOGISTIC"])
        monkeypatch.setitem(writer._VERSIONS, opcode, 1)
    b = ModelBuilder("gaps")
    x = b.input("x", (1, 4), "int8", **Q)
    h = b.tensor("h", (1, 4), "int8", **Q)
    b.operator("EXP", [x], [h])
    handle = b.tensor("handle", (), "int32")
    b.operator("VAR_HANDLE", [], [handle])
    v = b.tensor("v", (1, 4), "int8", **Q)
    b.operator("READ_VARIABLE", [handle], [v])
    s = b.tensor("s", (1, 4), "int8", **Q)
    b.operator("STRIDED_SLICE", [h, b.constant("b", np.zeros(2, np.int32)), b.constant("e", np.array([1, 4], np.int32)),
                                 b.constant("t", np.ones(2, np.int32))], [s], {"ellipsis_mask": 1})
    y = b.tensor("y", (1, 4), "int8", **Q)
    b.operator("ADD", [s, v], [y])
    b.output(y)
    return b.build()


def test_every_unsupported_operator_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = read_model(_model_with_gaps(monkeypatch), "gaps.tflite")
    problems = refusals(graph)
    assert sorted(problems) == [0, 1, 2, 3]
    assert "operator 0 is EXP, which firmware-gen does not support" in problems[0]
    assert "operator 1 is VAR_HANDLE, a resource variable operator" in problems[1]
    assert "option ellipsis_mask = 1" in problems[3]
    with pytest.raises(UnsupportedModelError, match="operator 0 is EXP"):
        check_supported(graph)  # the other commands: one line, the first problem


def test_inspect_lists_them_all_and_exits_2(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    path = tmp_path / "gaps.tflite"
    path.write_bytes(_model_with_gaps(monkeypatch))
    done = run_cli("inspect", str(path))
    assert done.returncode == 2
    assert "4 operator(s) firmware-gen cannot compile:" in done.stdout
    for index in range(4):
        assert f"operator {index} " in done.stdout
    assert done.stderr.strip().splitlines() == [
        "firmware-gen: error: gaps: 4 operators cannot be compiled (0, 1, 2, 3; listed above)"]
    done = run_cli("inspect", str(path), "--json")
    assert [op["index"] for op in json.loads(done.stdout)["operators"] if op["unsupported"]] == [0, 1, 2, 3]


def test_control_flow_and_custom_operators_say_what_they_are() -> None:
    tensors = [Tensor(i, f"t{i}", (1,), DType.INT8) for i in range(3)]
    operators = [Operator(0, "WHILE", (0,), (1,)), Operator(1, "CUSTOM (TFLite_Detection_PostProcess)", (1,), (2,))]
    problems = refusals(Graph(tensors, operators, inputs=(0,), outputs=(2,), name="flow"))
    assert problems == {0: "flow: operator 0 is WHILE, control flow, which firmware-gen does not compile",
                        1: "flow: operator 1 is CUSTOM (TFLite_Detection_PostProcess), a custom operator, which "
                           "firmware-gen does not compile"}


def test_a_model_with_control_flow_names_it_when_refusing_its_subgraphs() -> None:
    from tflite.BuiltinOperator import BuiltinOperator

    from firmware_gen.frontend.tflite_reader import _Reader

    class Code:
        def __init__(self, code: int) -> None:
            self.code = code

        def BuiltinCode(self) -> int:  # noqa: N802 (the flatbuffer reader's names)
            return self.code

        def DeprecatedBuiltinCode(self) -> int:  # noqa: N802
            return min(self.code, 127)

    class Op:
        def __init__(self, opcode_index: int) -> None:
            self.opcode_index = opcode_index

        def OpcodeIndex(self) -> int:  # noqa: N802
            return self.opcode_index

    codes = [Code(BuiltinOperator.ADD), Code(BuiltinOperator.WHILE)]
    ops = [Op(0), Op(1), Op(0)]
    main = type("Subgraph", (), {"OperatorsLength": lambda self: 3, "Operators": lambda self, i: ops[i]})()
    model = type("Model", (), {"SubgraphsLength": lambda self: 3, "Subgraphs": lambda self, i: main,
                               "OperatorCodesLength": lambda self: 2, "OperatorCodes": lambda self, i: codes[i]})()
    with pytest.raises(UnsupportedModelError, match=r"has 3 subgraphs \(control flow: operator 1 is WHILE\)"):
        _Reader(b"", "loop.tflite")._read_model(model)
