"""Single-operator int8 models of the data-movement operators (issue 15), for their property tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from firmware_gen.modelgen.writer import ModelBuilder

FEW_EXAMPLES = 4  # each example is a generated, sanitized host build and a TFLM run (several seconds here)


def movement_model(opcode: str, in_shapes: Sequence[Sequence[int]], out_shapes: Sequence[Sequence[int]],
                   params: Sequence[np.ndarray] = (), options: dict | None = None, params_first: bool = False,
                   quantization: tuple[float, int] = (0.05, -3)) -> bytes:
    """One operator: int8 inputs of in_shapes (graph inputs), constant int32 params after them (before them with
    params_first, as SPLIT takes its axis), int8 outputs of out_shapes, every output a graph output."""
    scale, zero_point = quantization
    b = ModelBuilder(opcode.lower())
    data = [b.input(f"x{i}", shape, "int8", scale=scale, zero_point=zero_point) for i, shape in enumerate(in_shapes)]
    constants = [b.constant(f"p{i}", np.asarray(p, dtype=np.int32)) for i, p in enumerate(params)]
    outputs = [b.tensor(f"y{i}", shape, "int8", scale=scale, zero_point=zero_point)
               for i, shape in enumerate(out_shapes)]
    b.operator(opcode, constants + data if params_first else data + constants, outputs, options or {})
    for y in outputs:
        b.output(y)
    return b.build()
