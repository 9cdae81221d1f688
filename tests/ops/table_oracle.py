"""Unary int8 operators checked on all 256 input bytes at once: one model holds one copy of the operator per
quantization case, TFLM runs it once, and each output row is compared with the table the compiler computes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from firmware_gen.check.oracle import run_tflm
from firmware_gen.modelgen.writer import ModelBuilder

VALUES = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
Quant = tuple[float, int]


def tflm_rows(opcode: str, cases: Sequence[tuple[Quant, Quant]], options: dict[str, Any] | None = None,
              ) -> list[np.ndarray]:
    """TFLM's outputs for the inputs -128..127, one row per (input, output) quantization case."""
    builder = ModelBuilder(f"{opcode.lower()}_rows")
    for k, ((in_scale, in_zp), (out_scale, out_zp)) in enumerate(cases):
        x = builder.input(f"x{k}", VALUES.shape, "int8", scale=in_scale, zero_point=in_zp)
        y = builder.tensor(f"y{k}", VALUES.shape, "int8", scale=out_scale, zero_point=out_zp)
        builder.operator(opcode, inputs=[x], outputs=[y], options=options or {})
        builder.output(y)
    result = run_tflm(builder.build(), [VALUES] * len(cases), 0)
    return [row.ravel() for row in result.outputs]


def table_rows(tables: Sequence[np.ndarray]) -> list[np.ndarray]:
    """What each table gives for the inputs -128..127 (a table is indexed by the input byte as uint8)."""
    return [table[VALUES.ravel().view(np.uint8)] for table in tables]


def mismatches(opcode: str, cases: Sequence[tuple[Quant, Quant]], tables: Sequence[np.ndarray],
               options: dict[str, Any] | None = None) -> list[str]:
    """One line per case whose table differs from TFLM on some input byte (empty when all 256 x cases agree)."""
    lines = []
    for case, expected, got in zip(cases, tflm_rows(opcode, cases, options), table_rows(tables), strict=True):
        wrong = np.nonzero(expected != got)[0]
        if wrong.size:
            lines.append(f"{opcode} {case}: inputs {(wrong - 128)[:4].tolist()} give {got[wrong][:4].tolist()}, "
                         f"TFLM {expected[wrong][:4].tolist()}")
    return lines
