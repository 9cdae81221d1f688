"""Builtin options of the stateful operators of issue 12 (SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM), for the model writer
(see family_options.py)."""

from __future__ import annotations

from typing import Any

from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOptions import BuiltinOptions


def _svdf(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    activation = getattr(ActivationFunctionType, o.get("activation", "NONE"))
    return [(0, "Int32", o.get("rank", 1)), (1, "Int8", activation)]


def _lstm(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    activation = getattr(ActivationFunctionType, o.get("activation", "TANH"))
    return [(0, "Int8", activation), (1, "Float32", float(o.get("cell_clip", 0.0))),
            (2, "Float32", float(o.get("proj_clip", 0.0))), (3, "Bool", bool(o.get("time_major", False))),
            (4, "Bool", False), (5, "Bool", bool(o.get("diagonal_recurrent_tensors", False)))]


OPTION_WRITERS = {"SVDF": (BuiltinOptions.SVDFOptions, _svdf),
                  "UNIDIRECTIONAL_SEQUENCE_LSTM": (BuiltinOptions.UnidirectionalSequenceLSTMOptions, _lstm)}
VERSIONS = {"SVDF": 4, "UNIDIRECTIONAL_SEQUENCE_LSTM": 3}
