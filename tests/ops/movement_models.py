"""Single-operator int8 (or int16) models of the data-movement operators (issue 15), for their property tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from target.batched import merge_models
from validated import assert_bit_exact

from firmware_gen.modelgen.writer import ModelBuilder

# Each example is CASES single-operator models merged into one (tests/target/batched.py), validated at once: one
# generated, sanitized host build and one TFLM run for all of them.
FEW_EXAMPLES = 2
CASES = 4


def movement_model(opcode: str, in_shapes: Sequence[Sequence[int]], out_shapes: Sequence[Sequence[int]],
                   params: Sequence[np.ndarray] = (), options: dict | None = None, params_first: bool = False,
                   quantization: tuple[float, int] = (0.05, -3), dtype: str = "int8") -> bytes:
    """One operator: int8 (or `dtype`) inputs of in_shapes (graph inputs), constant int32 params after them (before
    them with params_first, as SPLIT takes its axis), outputs of out_shapes, every output a graph output. int16
    tensors take zero point 0, as 16x8 models have."""
    scale, zero_point = quantization
    if dtype == "int16":
        zero_point = 0
    b = ModelBuilder(opcode.lower())
    data = [b.input(f"x{i}", shape, dtype, scale=scale, zero_point=zero_point) for i, shape in enumerate(in_shapes)]
    constants = [b.constant(f"p{i}", np.asarray(p, dtype=np.int32)) for i, p in enumerate(params)]
    outputs = [b.tensor(f"y{i}", shape, dtype, scale=scale, zero_point=zero_point)
               for i, shape in enumerate(out_shapes)]
    b.operator(opcode, constants + data if params_first else data + constants, outputs, options or {})
    for y in outputs:
        b.output(y)
    return b.build()


def assert_cases_bit_exact(models: Sequence[bytes], seed: int = 0) -> None:
    """Every case's every tensor equal to TFLM's, the cases merged into one model (one validation)."""
    merged, _ = merge_models(models)
    assert_bit_exact(merged, seed=seed)
