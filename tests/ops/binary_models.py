"""Single binary-operator models (int8 or int16 activations, with broadcasting), for their property tests."""

from __future__ import annotations

import numpy as np

from firmware_gen.modelgen.writer import ModelBuilder

VALUE_RANGES = {"int8": (-128, 128), "int16": (-32768, 32768)}


def binary_model(opcode: str, shapes: tuple[tuple[int, ...], ...], quants: tuple[tuple[float, int], ...],
                 activation: str = "NONE", constant: int | None = None, seed: int = 0, dtype: str = "int8") -> bytes:
    """One binary operator; `constant` (0 or 1) makes that input a constant tensor of random values."""
    builder = ModelBuilder(opcode.lower())
    rng = np.random.default_rng(seed)
    operands = []
    for position, (shape, (scale, zero_point)) in enumerate(zip(shapes, quants[:2], strict=True)):
        if position == constant:
            data = rng.integers(*VALUE_RANGES[dtype], shape).astype(dtype)
            operands.append(builder.constant(f"x{position}", data, scale=scale, zero_point=zero_point))
        else:
            operands.append(builder.input(f"x{position}", shape, dtype, scale=scale, zero_point=zero_point))
    out = builder.tensor("y", np.broadcast_shapes(*shapes), dtype, scale=quants[2][0], zero_point=quants[2][1])
    builder.operator(opcode, inputs=operands, outputs=[out], options={"activation": activation})
    builder.output(out)
    return builder.build()
