"""QUANTIZE to, from and between int16 (float32 -> int16, int8 <-> int16, int16 -> int16) and DEQUANTIZE int16 ->
float32: bit-exact against TFLM; a non-zero int16 zero point is refused."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales

from firmware_gen.modelgen.writer import ModelBuilder

PAIRS = [("QUANTIZE", "float32", "int16"), ("QUANTIZE", "int8", "int16"), ("QUANTIZE", "int16", "int8"),
         ("QUANTIZE", "int16", "int16"), ("DEQUANTIZE", "int16", "float32")]
SHAPE = (2, 33)


def _quantization(dtype: str, scale: float, int8_zero_point: int) -> dict:
    if dtype == "float32":
        return {"scale": None}
    return {"scale": scale, "zero_point": int8_zero_point if dtype == "int8" else 0}


def conversion(opcode: str, source: str, target: str, in_scale: float, out_scale: float, zero_point: int) -> bytes:
    b = ModelBuilder(opcode.lower())
    x = b.input("x", SHAPE, source, **_quantization(source, in_scale, zero_point))
    y = b.tensor("y", SHAPE, target, **_quantization(target, out_scale, zero_point))
    b.operator(opcode, [x], [y])
    b.output(y)
    return b.build()


@settings(max_examples=max(MAX_EXAMPLES // 5, 1), deadline=None)
@given(pair=st.sampled_from(PAIRS), in_scale=scales, out_scale=scales, zero_point=int8_zero_points,
       seed=st.integers(0, 99))
def test_int16_conversions_are_bit_exact(pair, in_scale, out_scale, zero_point, seed):
    assert_bit_exact(conversion(*pair, in_scale / 64, out_scale / 64, zero_point), seed=seed)


def test_a_nonzero_int16_zero_point_is_refused():
    b = ModelBuilder("quantize")
    x = b.input("x", SHAPE, "int8", scale=0.1, zero_point=0)
    y = b.tensor("y", SHAPE, "int16", scale=0.001, zero_point=7)
    b.operator("QUANTIZE", [x], [y])
    b.output(y)
    assert "zero point 7; int16 tensors must have zero point 0" in refusal(b.build())
