"""Single binary-operator models (int8 or int16 activations, with broadcasting), for their property tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

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


def natural_output_scale(opcode: str, scale1: float, scale2: float, dtype: str = "int8") -> float:
    """An output scale near the result's range, so that outputs are not all saturated."""
    if opcode == "SQUARED_DIFFERENCE":
        return (scale1 + scale2) ** 2 * 64
    if opcode == "MUL":
        return scale1 * scale2 * 2.0 ** (15 if dtype == "int16" else 7)
    return scale1 + scale2


@st.composite
def broadcast_operands(draw: st.DrawFn, opcode: str, scales: st.SearchStrategy[float],
                       dtype: str = "int8") -> tuple[tuple[tuple[int, ...], ...], float, float, float]:
    """Two shapes broadcasting up to 6-D, the inputs' scales and an output scale within 8x of the natural one."""
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=6, max_side=4))
    scale1, scale2 = draw(scales), draw(scales)
    factor = 2.0 ** draw(st.floats(min_value=-3.0, max_value=3.0))
    out_scale = float(np.float32(natural_output_scale(opcode, scale1, scale2, dtype) * factor))
    return shapes.input_shapes, scale1, scale2, out_scale
