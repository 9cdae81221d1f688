"""A float model through every data-movement operator at once: QUANTIZE -> PAD -> RESHAPE -> TRANSPOSE ->
CONCATENATION (one tensor twice, plus a constant) -> SQUEEZE -> MEAN -> QUANTIZE -> DEQUANTIZE, bit-exact against
TFLM tensor by tensor."""

from __future__ import annotations

import numpy as np
from validated import assert_bit_exact

from firmware_gen.modelgen.writer import ModelBuilder


def chain_model() -> bytes:
    b = ModelBuilder("movement_chain")
    q = {"scale": 0.05, "zero_point": -4}
    x = b.input("x", (1, 4, 5, 3), "float32")
    xq = b.tensor("xq", (1, 4, 5, 3), "int8", **q)
    b.operator("QUANTIZE", inputs=[x], outputs=[xq])
    padded = b.tensor("padded", (1, 6, 5, 4), "int8", **q)
    b.operator("PAD", inputs=[xq, b.constant("paddings", np.array([[0, 0], [1, 1], [0, 0], [0, 1]], np.int32))],
               outputs=[padded])
    flat = b.tensor("flat", (6, 5, 4), "int8", **q)
    b.operator("RESHAPE", inputs=[padded], outputs=[flat])
    moved = b.tensor("moved", (4, 6, 5), "int8", **q)
    b.operator("TRANSPOSE", inputs=[flat, b.constant("perm", np.array([2, 0, 1], np.int32))], outputs=[moved])
    extra = b.constant("extra", np.arange(-60, 60, 1, dtype=np.int8).reshape(4, 6, 5), **q)
    joined = b.tensor("joined", (4, 6, 15), "int8", **q)
    b.operator("CONCATENATION", inputs=[moved, extra, moved], outputs=[joined], options={"axis": -1})
    expanded = b.tensor("expanded", (1, 4, 6, 15), "int8", **q)
    b.operator("RESHAPE", inputs=[joined], outputs=[expanded])
    squeezed = b.tensor("squeezed", (4, 6, 15), "int8", **q)
    b.operator("SQUEEZE", inputs=[expanded], outputs=[squeezed], options={"squeeze_dims": (0,)})
    mean = b.tensor("mean", (4, 1, 1), "int8", scale=0.02, zero_point=7)
    b.operator("MEAN", inputs=[squeezed, b.constant("axes", np.array([1, -1], np.int32))], outputs=[mean],
               options={"keep_dims": True})
    requantized = b.tensor("requantized", (4, 1, 1), "int8", scale=0.03, zero_point=-20)
    b.operator("QUANTIZE", inputs=[mean], outputs=[requantized])
    y = b.tensor("y", (4, 1, 1), "float32")
    b.operator("DEQUANTIZE", inputs=[requantized], outputs=[y])
    b.output(y)
    return b.build()


def test_chain_is_bit_exact():
    for seed in range(3):
        x = np.random.default_rng(seed).normal(0.0, 3.0, (1, 4, 5, 3)).astype(np.float32)
        assert_bit_exact(chain_model(), inputs=[x])
