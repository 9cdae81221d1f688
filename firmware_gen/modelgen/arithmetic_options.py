"""The model writer's builtin options and operator versions for the arithmetic and reduction operators
(issue 15), kept apart from writer.py's own table (which merges them) so that the writer stays small.
Each writer returns `(schema slot, Builder kind, value)` fields, as in writer.py."""

from __future__ import annotations

from typing import Any

from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOptions import BuiltinOptions
from tflite.TensorType import TensorType

Field = tuple[int, str, Any]


def _activation_only(builder: Any, o: dict[str, Any]) -> list[Field]:
    return [(0, "Int8", getattr(ActivationFunctionType, o.get("activation", "NONE")))]


def _no_fields(builder: Any, o: dict[str, Any]) -> list[Field]:
    return []


def _reducer_fields(builder: Any, o: dict[str, Any]) -> list[Field]:
    return [(0, "Bool", bool(o.get("keep_dims", False)))]


def _arg_fields(builder: Any, o: dict[str, Any]) -> list[Field]:
    """output_type: "int32" (the only one TFLM supports) or "int64"."""
    return [(0, "Int8", getattr(TensorType, o.get("output_type", "int32").upper()))]


OPTION_WRITERS = {
    "SUB": (BuiltinOptions.SubOptions, _activation_only),
    "SQUARED_DIFFERENCE": (BuiltinOptions.SquaredDifferenceOptions, _no_fields),
    "MAXIMUM": (BuiltinOptions.MaximumMinimumOptions, _no_fields),
    "MINIMUM": (BuiltinOptions.MaximumMinimumOptions, _no_fields),
    "ABS": (BuiltinOptions.AbsOptions, _no_fields),
    "NEG": (BuiltinOptions.NegOptions, _no_fields),
    "RSQRT": (BuiltinOptions.NONE, _no_fields),  # the schema has no RsqrtOptions
    "SQRT": (BuiltinOptions.NONE, _no_fields),
    "ADD_N": (BuiltinOptions.AddNOptions, _no_fields),
    "SUM": (BuiltinOptions.ReducerOptions, _reducer_fields),
    "REDUCE_MAX": (BuiltinOptions.ReducerOptions, _reducer_fields),
    "REDUCE_MIN": (BuiltinOptions.ReducerOptions, _reducer_fields),
    "ARG_MAX": (BuiltinOptions.ArgMaxOptions, _arg_fields),
    "ARG_MIN": (BuiltinOptions.ArgMinOptions, _arg_fields),
}

# As the TFLite converter writes them for int8 models (TFLM does not check them).
VERSIONS = {
    "SUB": 2, "SQUARED_DIFFERENCE": 2, "MAXIMUM": 2, "MINIMUM": 2, "ABS": 2, "NEG": 1, "RSQRT": 2, "SQRT": 1,
    "ADD_N": 1, "SUM": 2, "REDUCE_MAX": 2, "REDUCE_MIN": 2, "ARG_MAX": 2, "ARG_MIN": 2,
}
