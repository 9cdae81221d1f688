"""Builtin options of the stateful operators of issue 12 (SVDF), for the model writer (see family_options.py)."""

from __future__ import annotations

from typing import Any

from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOptions import BuiltinOptions


def _svdf(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    activation = getattr(ActivationFunctionType, o.get("activation", "NONE"))
    return [(0, "Int32", o.get("rank", 1)), (1, "Int8", activation)]


OPTION_WRITERS = {"SVDF": (BuiltinOptions.SVDFOptions, _svdf)}
VERSIONS = {"SVDF": 4}
