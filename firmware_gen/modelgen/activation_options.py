"""The activation operators of issue 15 in the model writer: their builtin options and operator versions (merged
into writer.py's OPTION_WRITERS and _VERSIONS). Options missing from `options` take the schema defaults."""

from __future__ import annotations

from typing import Any

from tflite.BuiltinOptions import BuiltinOptions
from tflite.TensorType import TensorType

VERSIONS = {
    "RELU": 2, "RELU6": 2, "RELU_N1_TO_1": 1, "LEAKY_RELU": 2, "PRELU": 1, "HARD_SWISH": 1, "TANH": 2, "ELU": 1,
    "EXP": 2, "LOG": 1, "LOG_SOFTMAX": 2, "CAST": 1, "GELU": 2,
}


def _no_fields(builder: Any, o: dict[str, Any]) -> list:
    return []


def _cast_fields(builder: Any, o: dict[str, Any]) -> list:
    """in_data_type / out_data_type by dtype name ("int8", "int16", ...), written only when given."""
    return [(slot, "Int8", getattr(TensorType, o[key].upper())) for slot, key
            in enumerate(("in_data_type", "out_data_type")) if key in o]


OPTION_WRITERS = {
    "RELU": (BuiltinOptions.NONE, _no_fields),
    "RELU6": (BuiltinOptions.NONE, _no_fields),
    "RELU_N1_TO_1": (BuiltinOptions.NONE, _no_fields),
    "LEAKY_RELU": (BuiltinOptions.LeakyReluOptions, lambda b, o: [(0, "Float32", float(o.get("alpha", 0.0)))]),
    "PRELU": (BuiltinOptions.NONE, _no_fields),
    "HARD_SWISH": (BuiltinOptions.HardSwishOptions, _no_fields),
    "TANH": (BuiltinOptions.NONE, _no_fields),
    "ELU": (BuiltinOptions.NONE, _no_fields),
    "EXP": (BuiltinOptions.ExpOptions, _no_fields),
    "LOG": (BuiltinOptions.NONE, _no_fields),
    "LOG_SOFTMAX": (BuiltinOptions.LogSoftmaxOptions, _no_fields),
    "CAST": (BuiltinOptions.CastOptions, _cast_fields),
    "GELU": (BuiltinOptions.GeluOptions, lambda b, o: [(0, "Bool", bool(o.get("approximate", False)))]),
}
