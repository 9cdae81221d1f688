"""Python values -> C source text."""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import DType


def c_int(value: int) -> str:
    if value == -(2**31):
        return "(-2147483647 - 1)"
    return str(int(value))


def c_float(value: float) -> str:
    value = float(np.float32(value))
    if math.isinf(value):
        return "(1.0f / 0.0f)" if value > 0 else "(-1.0f / 0.0f)"
    text = f"{value:.9g}"
    if not any(ch in text for ch in ".en"):
        text += ".0"
    return text + "f"


def c_array_body(values: np.ndarray, width: int = 116, indent: str = "    ") -> str:
    """The comma-separated elements of an initializer, wrapped to about `width` columns."""
    flat = np.asarray(values).ravel()
    if flat.dtype.kind == "f":
        items = [c_float(v) for v in flat.tolist()]
    elif flat.dtype.kind == "b":
        items = ["1" if v else "0" for v in flat.tolist()]
    else:
        items = [c_int(v) for v in flat.tolist()]
    per_line = max(1, (width - len(indent)) // (max(map(len, items), default=1) + 2))
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return (",\n" + indent).join(lines)


def short_name(text: str, limit: int = 56) -> str:
    """A tensor name cut to fit a comment line (converters write names hundreds of characters long)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def c_comment_safe(text: str) -> str:
    return text.replace("*/", "* /")


def pointer_type(dtype: DType, const: bool) -> str:
    return f"{'const ' if const else ''}{dtype.c_type} *"
