"""Every 16x8 operator (int16 activations, zero point 0) bit-exact with TFLM on a QEMU board: one single-operator
model per operator (and SOFTMAX int8 -> int16, QUANTIZE to and from int32), all in one firmware. CONV_2D,
DEPTHWISE_CONV_2D, FULLY_CONNECTED, AVERAGE_POOL_2D and SOFTMAX run on the boards inside the 16x8 DS-CNN too
(test_ds_cnn_16x8_boards.py)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from batched import assert_batch_bit_exact
from target_fixtures import needs_qemu

from firmware_gen.modelgen.writer import ModelBuilder

pytestmark = [needs_qemu, pytest.mark.qemu]

SHAPE = (1, 4, 5, 8)
Q15 = 2.0**-15


def _single(opcode: str, extra_inputs: Callable[[ModelBuilder], list[int]] | None = None,
            options: dict | None = None, out_shape: tuple[int, ...] = SHAPE, in_scale: float = 0.01,
            out_scale: float = 0.01, in_dtype: str = "int16", out_dtype: str = "int16",
            out_zero_point: int = 0) -> bytes:
    """x (SHAPE, in_dtype) -> opcode -> y; extra_inputs adds the operator's other inputs."""
    b = ModelBuilder(opcode.lower())
    x = b.input("x", SHAPE, in_dtype, scale=in_scale if in_dtype != "float32" else None)
    y = b.tensor("y", out_shape, out_dtype, scale=out_scale if out_dtype != "float32" else None,
                 zero_point=out_zero_point)
    b.operator(opcode, [x, *(extra_inputs(b) if extra_inputs else [])], [y], options or {})
    b.output(y)
    return b.build()


def _ints(values) -> Callable[[ModelBuilder], list[int]]:
    def add(b: ModelBuilder) -> list[int]:
        return [b.constant(f"c{len(b.tensors)}", np.asarray(v, dtype=np.int32)) for v in values]
    return add


def _binary(opcode: str, out_scale: float, options: dict | None = None) -> bytes:
    """x (SHAPE) op y (broadcast along the channels)."""
    b = ModelBuilder(opcode.lower())
    x = b.input("x", SHAPE, "int16", scale=0.01)
    w = b.input("w", (1, 1, 1, SHAPE[-1]), "int16", scale=0.02)
    y = b.tensor("y", SHAPE, "int16", scale=out_scale)
    b.operator(opcode, [x, w], [y], {"activation": "NONE"} if options is None else options)
    b.output(y)
    return b.build()


def _concatenation() -> bytes:
    b = ModelBuilder("concatenation")
    x = b.input("x", SHAPE, "int16", scale=0.01)
    y = b.tensor("y", (*SHAPE[:3], 2 * SHAPE[3]), "int16", scale=0.01)
    b.operator("CONCATENATION", [x, x], [y], {"axis": 3})
    b.output(y)
    return b.build()


def _transpose_conv() -> bytes:
    rng = np.random.default_rng(3)
    b = ModelBuilder("transpose_conv")
    out_shape = (1, 8, 10, 4)
    shape = b.constant("output_shape", np.asarray(out_shape, dtype=np.int32))
    weights = b.constant("w", rng.integers(-127, 128, (4, 3, 3, SHAPE[-1])).astype(np.int8), scale=0.02)
    x = b.input("x", SHAPE, "int16", scale=0.01)
    bias = b.constant("b", rng.integers(-3000, 3000, 4).astype(np.int64), scale=0.0002)
    y = b.tensor("y", out_shape, "int16", scale=0.05)
    b.operator("TRANSPOSE_CONV", [shape, weights, x, bias], [y], {"padding": "SAME", "stride_h": 2, "stride_w": 2})
    b.output(y)
    return b.build()


def _batch_matmul() -> bytes:
    b = ModelBuilder("batch_matmul")
    x = b.input("x", SHAPE, "int16", scale=0.01)
    rhs = b.constant("rhs", np.random.default_rng(4).integers(-32768, 32768, (1, 4, 8, 3)).astype(np.int16),
                     scale=0.001)
    y = b.tensor("y", (1, 4, 5, 3), "int16", scale=0.5)
    b.operator("BATCH_MATMUL", [x, rhs], [y])
    b.output(y)
    return b.build()


def _models() -> list[bytes]:
    pool = {"padding": "SAME", "stride_h": 2, "stride_w": 2, "filter_h": 2, "filter_w": 3}
    pooled = (1, 2, 3, 8)
    return [
        _binary("ADD", 0.03), _binary("SUB", 0.03), _binary("MUL", 0.01 * 0.02 * 2.0**15),
        _single("LOGISTIC", in_scale=2.0**-12, out_scale=Q15), _single("LOGISTIC", in_scale=0.001, out_scale=Q15),
        _single("TANH", in_scale=0.0003, out_scale=Q15), _single("LEAKY_RELU", options={"alpha": 0.2}),
        _single("SOFTMAX", options={"beta": 1.0}, in_scale=0.0005, out_scale=Q15),
        _single("MEAN", _ints([[1, 2]]), {"keep_dims": True}, (1, 1, 1, 8), out_scale=0.004),
        _single("SUM", _ints([[2]]), {"keep_dims": False}, (1, 4, 8), out_scale=0.05),
        _single("AVERAGE_POOL_2D", options=pool, out_shape=pooled),
        _single("MAX_POOL_2D", options=pool, out_shape=pooled),
        _single("TRANSPOSE", _ints([[0, 2, 1, 3]]), out_shape=(1, 5, 4, 8)),
        _single("STRIDED_SLICE", _ints([[0, 3, 0, 1], [1, 0, 5, 8], [1, -2, 2, 3]]), {"end_mask": 2},
                out_shape=(1, 2, 3, 3)),
        _single("SLICE", _ints([[0, 1, 1, 2], [1, 2, 3, 4]]), out_shape=(1, 2, 3, 4)),
        _single("PAD", _ints([[[0, 0], [1, 0], [0, 2], [0, 0]]]), out_shape=(1, 5, 7, 8)),
        _single("PADV2", lambda b: [*_ints([[[0, 0], [1, 0], [0, 2], [0, 0]]])(b),
                                    b.constant("value", np.array([-1], dtype=np.int16))], out_shape=(1, 5, 7, 8)),
        _single("PADV2", lambda b: [*_ints([[[0, 0], [0, 1], [2, 0], [0, 0]]])(b),
                                    b.constant("value", np.array([0x1234], dtype=np.int16))], out_shape=(1, 5, 7, 8)),
        _concatenation(),
        _single("RESHAPE", _ints([[1, 20, 8]]), {"new_shape": (1, 20, 8)}, out_shape=(1, 20, 8)),
        _single("QUANTIZE", out_scale=0.02), _single("QUANTIZE", out_dtype="int8", out_scale=0.5),
        _single("QUANTIZE", in_dtype="int8", in_scale=0.5), _single("QUANTIZE", in_dtype="float32"),
        _single("DEQUANTIZE", out_dtype="float32"), _transpose_conv(),
        _single("SOFTMAX", options={"beta": 1.0}, in_dtype="int8", in_scale=0.05, out_scale=2.0**-16,
                out_zero_point=-32768),
        _single("RELU", out_scale=0.02), _single("RELU6", in_scale=0.001, out_scale=0.001), _single("ABS"),
        _binary("MAXIMUM", 0.02, {}), _binary("SQUARED_DIFFERENCE", 2.0, {}),
        _single("RESIZE_NEAREST_NEIGHBOR", _ints([[8, 10]]), out_shape=(1, 8, 10, 8)),
        _single("QUANTIZE", out_dtype="int32", out_scale=0.0003), _single("QUANTIZE", in_dtype="int32", in_scale=1e-4),
        _single("LEAKY_RELU", options={"alpha": 0.3}, in_scale=0.0066339182667434216,
                out_scale=0.0013524781679734588),
        _batch_matmul(),
        _single("PRELU", lambda b: [b.constant("alpha", np.arange(-4, 4, dtype=np.int8) * 30, scale=0.01,
                                               zero_point=3)], out_scale=0.007),
    ]


def test_every_16x8_operator_is_bit_exact_on_mps2_an385(tmp_path):
    functions = assert_batch_bit_exact(_models(), "mps2_an385", tmp_path, seed=5, expect_functions=[
        "fg_prelu_s16", "fg_batch_matmul_s16", "fg_quantize_s16_s32", "fg_quantize_s32_s16", "fg_leaky_relu_s16"])
    assert any(f.endswith("_s16") for f in functions)
