"""The issue-15 convolution family, resampling and matrix kernels on a Cortex-M4 board: the synthetic U-Net block
(TRANSPOSE_CONV, CONCATENATION, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR among convolutions) and attention block
(FULLY_CONNECTED keep_num_dims, BATCH_MATMUL, SOFTMAX) bit-exact with TFLM on the host (every tensor, sanitizers on),
then, in one firmware on mps2_an386 (-Os, the kernels' O2 hot loops), both blocks and one single-operator case of
every other new kernel, each output bit-exact."""

from __future__ import annotations

import numpy as np
import pytest
from batched import assert_batch_bit_exact
from target_fixtures import needs_qemu

from firmware_gen.check.host_validation import validate_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.attention import attention_block
from firmware_gen.modelgen.unet import unet_block
from firmware_gen.modelgen.writer import ModelBuilder

pytestmark = [needs_qemu, pytest.mark.qemu]


def _single(opcode, inputs, output, constants=(), options=None, output_q=(0.05, 3)) -> bytes:
    """One operator: `inputs` are (shape, scale, zero point) graph inputs, then `constants` (arrays or
    (array, scale, zero point)) in order; `output` is its shape."""
    b = ModelBuilder(opcode.lower())
    indices = [b.input(f"x{k}", shape, "int8", scale=s, zero_point=z) for k, (shape, s, z) in enumerate(inputs)]
    for k, constant in enumerate(constants):
        data, scale, zero_point = constant if isinstance(constant, tuple) else (constant, None, 0)
        indices.append(b.constant(f"c{k}", data, scale=scale, zero_point=zero_point))
    y = b.tensor("y", output, "int8", scale=output_q[0], zero_point=output_q[1])
    b.operator(opcode, indices, [y], options or {})
    b.output(y)
    return b.build()


def _transpose_conv_without_bias() -> bytes:
    """VALID, stride (2, 1), per-tensor weights: inputs ordered output shape, filter, input by hand."""
    rng = np.random.default_rng(4)
    b = ModelBuilder("transpose_conv")
    x = b.input("x", (1, 4, 3, 5), "int8", scale=0.05, zero_point=3)
    shape = b.constant("shape", np.array([1, 9, 4, 3], np.int32))
    w = b.constant("w", rng.integers(-127, 128, (3, 3, 2, 5)).astype(np.int8), scale=0.02, zero_point=0)
    y = b.tensor("y", (1, 9, 4, 3), "int8", scale=0.3, zero_point=-5)
    b.operator("TRANSPOSE_CONV", [shape, w, x], [y], {"padding": "VALID", "stride_h": 2, "stride_w": 1})
    b.output(y)
    return b.build()


def _cases() -> list[bytes]:
    q = (0.05, 3)
    return [
        _transpose_conv_without_bias(),
        _single("BATCH_MATMUL", [((2, 1, 4, 3), 0.05, 3), ((3, 5, 4), 0.04, -6)], (2, 3, 3, 5),
                options={"adj_x": True, "adj_y": True}, output_q=(0.6, 2)),
        _single("DEPTH_TO_SPACE", [((1, 2, 3, 8), *q)], (1, 4, 6, 2), options={"block_size": 2}),
        _single("SPACE_TO_DEPTH", [((1, 4, 6, 2), *q)], (1, 2, 3, 8), options={"block_size": 2}),
        _single("SPACE_TO_BATCH_ND", [((1, 5, 4, 3), *q)], (4, 3, 2, 3),
                [np.array([2, 2], np.int32), np.array([[1, 0], [0, 0]], np.int32)]),
        _single("BATCH_TO_SPACE_ND", [((4, 3, 2, 3), *q)], (1, 5, 3, 3),
                [np.array([2, 2], np.int32), np.array([[1, 0], [0, 1]], np.int32)]),
        _single("L2_NORMALIZATION", [((2, 3, 7), *q)], (2, 3, 7), output_q=(1 / 128, 0)),
        _single("RESIZE_NEAREST_NEIGHBOR", [((1, 3, 4, 2), *q)], (1, 7, 5, 2), [np.array([7, 5], np.int32)],
                {"align_corners": True}),
        _single("RESIZE_BILINEAR", [((1, 3, 4, 2), *q)], (1, 5, 9, 2), [np.array([5, 9], np.int32)],
                {"align_corners": True}),
    ]


def test_unet_block_and_every_new_kernel_are_bit_exact_on_the_host_and_on_mps2_an386(tmp_path):
    data, attention = unet_block(seed=3), attention_block(seed=3)
    for model, tensors in ((data, 9), (attention, 7)):
        report = validate_model(model, seed=2, sanitize=True)
        assert report.bit_exact and report.tensors_compared == tensors, report.mismatches
    assert {op.opcode for op in read_model(data).operators} >= {"TRANSPOSE_CONV", "CONCATENATION", "RESIZE_BILINEAR",
                                                                "RESIZE_NEAREST_NEIGHBOR"}
    expected = ["fg_transpose_conv2d_s8", "fg_batch_matmul_s8", "fg_transpose_s8", "fg_space_to_batch_s8",
                "fg_batch_to_space_s8", "fg_l2_normalization_s8", "fg_resize_nearest_s8", "fg_resize_bilinear_s8"]
    assert_batch_bit_exact([data, attention, *_cases()], "mps2_an386", tmp_path / "build", seed=2,
                           expect_functions=expected)
