"""The Helium (MVE) 4-bit-weight variants on the Cortex-M55 (mps3_an547 under QEMU), in one firmware bit-exact with
TFLM: the 1x1, column-band and windowed convolutions on the signed 4-bit GEMM layout and, rows long enough or 1x1
rows held in registers, on the offset one (channel counts around their blocks of four and their steps of 16 taps, odd
pixel counts, strides, dilations, padding), the 16-channel groups of the 3x3 depthwise kernel (whole groups in runs, a
last short group, borders) and its gathered path (padded layers of fewer channels: pairs of pixels, beside or below,
and lone ones), FULLY_CONNECTED (offset layout: one row in pairs of blocks and the rest, pairs of rows); per-channel
and per-tensor scales, multipliers above one (the requantization's left shift), and a bias too large for the signed
layout, which takes the offset one."""

from __future__ import annotations

import numpy as np
from batched import assert_batch_bit_exact
from bounded_activations import bounded_scales
from target_fixtures import needs_qemu

from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.deploy import prepare
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.geometry import window_2d

BOARD = "mps3_an547"
ACTIVATIONS = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]


def _weights(rng: np.random.Generator, b: ModelBuilder, shape: tuple[int, ...], axis: int, input_scale: float,
             taps: int, activation: str, bias_max: int = 1 << 12, shift: bool = False) -> tuple[int, int, float]:
    """(4-bit weights, bias or -1, an output scale that spreads the accumulators over the int8 range, or now and then
    (always with `shift`) one so small that the multipliers exceed one; under a bounded activation all rescaled:
    bounded_activations.py)."""
    channels = shape[axis]
    scales = [float(s) for s in rng.uniform(1e-3, 0.5, channels if rng.random() < 0.6 else 1)]
    values = rng.integers(-8, 8, shape).astype(np.int8)
    biases = rng.integers(-bias_max, bias_max, channels).astype(np.int32) if rng.random() < 0.8 else None
    if rng.random() < 0.25 or shift:  # multipliers above one: the left shift
        output_scale = input_scale * float(np.mean(scales)) * 2.0 ** -int(rng.integers(0, 4))
    else:
        spread = float(np.sqrt(taps)) * 74
        output_scale = input_scale * float(np.mean(scales)) * spread * 2.0 ** int(rng.integers(-2, 2))
    scales, output_scale = bounded_scales(activation, scales, output_scale)
    w = b.constant("w", values, scale=scales, axis=axis, int4=True)
    bias = -1 if biases is None else b.constant("b", biases, scale=[input_scale * s for s in scales])
    return w, bias, output_scale


def conv_case(seed: int, opcode: str, input_shape: tuple[int, int, int, int], filter_hw: tuple[int, int],
              channels: int, stride: int = 1, dilation: int = 1, padding: str = "SAME", bias_max: int = 1 << 12,
              shift: bool = False) -> bytes:
    """CONV_2D (channels: output channels) or DEPTHWISE_CONV_2D (channels: input channels, depth multiplier 1)."""
    rng = np.random.default_rng(seed)
    options = {"padding": padding, "stride_h": stride, "stride_w": stride, "dilation_h": dilation,
               "dilation_w": dilation, "activation": ACTIVATIONS[seed % 4]}
    window = window_2d(padding, input_shape[1:3], filter_hw, (stride, stride), (dilation, dilation))
    b = ModelBuilder(opcode.lower())
    input_scale = float(rng.uniform(0.005, 0.1))
    x = b.input("x", input_shape, "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    in_c = input_shape[3]
    if opcode == "CONV_2D":
        out_c, shape, axis, taps = channels, (channels, *filter_hw, in_c), 0, filter_hw[0] * filter_hw[1] * in_c
    else:
        options["depth_multiplier"] = 1
        out_c, shape, axis, taps = in_c, (1, *filter_hw, in_c), 3, filter_hw[0] * filter_hw[1]
    w, bias, output_scale = _weights(rng, b, shape, axis, input_scale, taps, options["activation"], bias_max, shift)
    y = b.tensor("y", (input_shape[0], window.out_h, window.out_w, out_c), "int8", scale=output_scale,
                 zero_point=int(rng.integers(-128, 128)))
    b.operator(opcode, [x, w] + ([bias] if bias >= 0 else []), [y], options)
    b.output(y)
    return b.build()


def fully_connected_case(seed: int, batches: int, depth: int, out_c: int, shift: bool = False) -> bytes:
    rng = np.random.default_rng(seed)
    b = ModelBuilder("fully_connected")
    input_scale = float(rng.uniform(0.005, 0.1))
    x = b.input("x", (batches, depth), "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    scale, values = float(rng.uniform(1e-3, 0.5)), rng.integers(-8, 8, (out_c, depth)).astype(np.int8)
    biases = rng.integers(-4096, 4096, out_c).astype(np.int32)
    output_scale = input_scale * scale * (0.9 if shift else float(np.sqrt(depth)) * 40)  # shift: multipliers above one
    (scale,), output_scale = bounded_scales(ACTIVATIONS[seed % 4], [scale], output_scale)
    w = b.constant("w", values, scale=scale, int4=True)
    bias = b.constant("b", biases, scale=input_scale * scale)
    y = b.tensor("y", (batches, out_c), "int8", scale=output_scale, zero_point=int(rng.integers(-128, 128)))
    b.operator("FULLY_CONNECTED", [x, w, bias], [y], {"activation": ACTIVATIONS[seed % 4]})
    b.output(y)
    return b.build()


def _cases() -> list[bytes]:
    pointwise = [conv_case(10 + k, "CONV_2D", shape, (1, 1), out_c) for k, (shape, out_c) in enumerate([
        ((1, 5, 5, 16), 16), ((1, 3, 3, 1), 3), ((2, 2, 3, 7), 5), ((1, 4, 5, 17), 8), ((1, 3, 5, 33), 13),
        ((1, 1, 1, 32), 4), ((1, 5, 3, 48), 6), ((1, 2, 3, 20), 1), ((1, 3, 3, 256), 64), ((1, 2, 3, 250), 30),
        # the offset layout's pixels copied and summed in one loop (in_c a multiple of 16), or each copied and summed
        # (72), with a last channel and a lone pixel through gemm_s4_mve.c
        ((1, 3, 3, 64), 36), ((1, 3, 5, 72), 21)])]
    folded = [conv_case(30 + k, "CONV_2D", shape, filter_hw, out_c, stride, dilation, padding)
              for k, (shape, filter_hw, out_c, stride, dilation, padding) in enumerate([
                  ((1, 6, 7, 16), (3, 3), 16, 1, 1, "SAME"), ((1, 5, 6, 3), (3, 3), 5, 2, 1, "SAME"),
                  ((2, 7, 6, 5), (3, 3), 8, 1, 2, "SAME"), ((1, 6, 5, 9), (3, 3), 6, 2, 1, "VALID"),
                  ((1, 5, 5, 17), (3, 2), 4, 1, 1, "SAME"), ((1, 4, 6, 1), (5, 5), 7, 1, 1, "SAME"),
                  ((1, 6, 6, 32), (3, 3), 3, 1, 1, "VALID"), ((1, 5, 7, 7), (1, 3), 12, 2, 1, "SAME"),
                  ((1, 6, 7, 32), (3, 3), 32, 1, 1, "SAME"), ((1, 5, 5, 40), (3, 3), 30, 1, 1, "SAME"),
                  ((2, 7, 6, 33), (3, 3), 28, 2, 1, "VALID")])]
    depthwise = [conv_case(50 + k, "DEPTHWISE_CONV_2D", shape, (3, 3), 0, stride, dilation, padding)
                 for k, (shape, stride, dilation, padding) in enumerate([
                     ((1, 7, 9, 16), 1, 1, "SAME"), ((1, 6, 6, 32), 2, 1, "SAME"), ((2, 7, 6, 48), 1, 2, "SAME"),
                     ((1, 5, 6, 1), 1, 1, "SAME"), ((1, 6, 5, 5), 2, 1, "SAME"), ((1, 5, 7, 15), 1, 1, "VALID"),
                     ((1, 6, 6, 17), 1, 1, "SAME"), ((1, 7, 7, 20), 2, 2, "SAME"), ((1, 4, 5, 33), 1, 1, "SAME"),
                     ((1, 6, 8, 64), 1, 1, "VALID"), ((1, 3, 3, 16), 2, 1, "SAME"),
                     # a last group of 8 or fewer channels runs two pixels per vector (not when they are over 255
                     # bytes apart: 136 channels, stride 2); a padded row's run longer than the zero-point row: 200
                     ((1, 6, 9, 6), 1, 1, "SAME"), ((1, 7, 10, 22), 2, 1, "SAME"), ((1, 6, 9, 38), 1, 2, "SAME"),
                     ((1, 5, 8, 136), 2, 1, "SAME"), ((1, 3, 9, 200), 1, 1, "SAME")])]
    fully_connected = [fully_connected_case(70 + k, batches, depth, out_c) for k, (batches, depth, out_c)
                       in enumerate([(1, 33, 17), (2, 64, 16), (3, 20, 12), (1, 150, 24)])]
    too_large_bias = conv_case(80, "CONV_2D", (1, 4, 4, 8), (3, 3), 4, bias_max=1 << 28)  # LARGE_BIAS_CASE
    shifting = [conv_case(81, "CONV_2D", (1, 3, 3, 256), (1, 1), 64, shift=True),  # each kernel's left-shift loop
                conv_case(82, "CONV_2D", (1, 5, 6, 32), (3, 3), 32, shift=True),
                conv_case(83, "CONV_2D", (1, 5, 5, 16), (3, 3), 8, shift=True),
                conv_case(84, "CONV_2D", (1, 4, 5, 16), (1, 1), 8, shift=True),
                conv_case(86, "CONV_2D", (1, 3, 5, 72), (1, 1), 21, shift=True),
                conv_case(85, "DEPTHWISE_CONV_2D", (1, 5, 6, 24), (3, 3), 0, shift=True),
                conv_case(89, "DEPTHWISE_CONV_2D", (1, 5, 6, 26), (3, 3), 0, shift=True),
                fully_connected_case(88, 1, 16, 40, shift=True)]
    # the gathered 3x3 depthwise kernel (padding, channels a multiple of 4): two rows at a time, the last one's pairs
    # side by side and a lone pixel (7 x 9 above, 5 x 7 here), strides and dilations, blocks of 3 and 12 channels
    gathered = [conv_case(91 + k, "DEPTHWISE_CONV_2D", shape, (3, 3), 0, stride, dilation)
                for k, (shape, stride, dilation) in enumerate([((1, 5, 7, 12), 1, 1), ((1, 6, 5, 8), 2, 1)])]
    # 1x1 pairs of rows held in registers (offset layout, in_c <= 64, out_c a multiple of 4; pointwise above: 16, 17,
    # 64 taps), here 28 and 40 (row 1 read as it goes), with a lone last pixel
    resident = [conv_case(93 + k, "CONV_2D", shape, (1, 1), out_c)
                for k, (shape, out_c) in enumerate([((1, 3, 3, 28), 12), ((1, 3, 5, 40), 8)])]
    # the column-band kernel (out_c a multiple of 4, no dilation across; folded above: 16 and 32 channels into 16 and
    # 32, 17 into 4 by a 3x2 window, 33 into 28 at stride 2): the offset layout (64 channels) on columns of 15 bytes,
    # the windows summed one by one
    columns = [conv_case(96, "CONV_2D", (1, 4, 5, 5), (3, 3), 64)]
    cases = [*pointwise, *folded, *depthwise, *fully_connected, too_large_bias, *shifting, *gathered, *resident,
             *columns]
    assert cases[LARGE_BIAS_CASE] is too_large_bias
    return cases


LARGE_BIAS_CASE = 43


@needs_qemu
def test_mve_4bit_variants_are_bit_exact(tmp_path) -> None:
    functions = assert_batch_bit_exact(
        _cases(), BOARD, tmp_path / "build", seed=25,
        expect_functions=["fg_conv2d_pointwise_s4_mve", "fg_conv2d_pointwise_s4_offset_mve", "fg_conv2d_s4_mve",
                          "fg_conv2d_s4_offset_mve", "fg_depthwise_conv2d_3x3_s4_mve", "fg_fully_connected_s4_mve",
                          "fg_depthwise_conv2d_3x3_s4_gathered_mve", "fg_conv2d_columns_s4_mve",
                          "fg_conv2d_columns_s4_offset_mve"])
    # a 3x3 window of 8 channels into 4 takes the signed layout unless its bias is too large for it
    assert functions[LARGE_BIAS_CASE] == "fg_conv2d_columns_s4_offset_mve", functions[LARGE_BIAS_CASE]
    assert functions[-1] == "fg_conv2d_columns_s4_offset_mve", functions[-1]


@needs_qemu
def test_the_stack_bound_of_the_4bit_variants_is_exact_and_holds(tmp_path) -> None:
    model = conv_case(90, "DEPTHWISE_CONV_2D", (1, 6, 6, 32), (3, 3), 0)
    deployment = prepare(model, "dw4.tflite", BOARD, out_dir=tmp_path)
    # the gathered kernel: its band of tap rows (4096 bytes) and a pixel row on the stack
    assert [c.function for c in deployment.compiled.calls.values()] == ["fg_depthwise_conv2d_3x3_s4_gathered_mve"]
    bound = deployment.firmware.stack
    assert bound is not None and bound.exact, bound and bound.problems
    measured = run_model(deployment.firmware, random_inputs(deployment.compiled.graph, seed=0)).stack_bytes_used
    assert measured is not None and 0 < measured <= bound.thread.bytes
