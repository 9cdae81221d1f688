"""The portable fast variants (the register-blocked kernels the Cortex-M3 runs) on mps2_an385, bit-exact with TFLM:
random single-operator cases, >= 25 per variant, merged into a few firmware builds (tests/target/batched.py)."""

from __future__ import annotations

import numpy as np
from batched import assert_batch_bit_exact
from target_fixtures import needs_qemu

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.convolution.expanded_layout import EXPANDED
from firmware_gen.ops.convolution.fused_output import COMPACT_FUSED, FLOOR, GATHERED, ROWS
from firmware_gen.ops.geometry import window_2d

CASES = 25
PAIRED_CASES = 16  # the paired layout's batch: its kernels share the blocked ones' window walk, tested above
# the compact 1x1 convolution with its output stage fused (whole clamp): out_c an odd multiple of 4 (the blocked
# loop) or a multiple of 8 (its weights expanded at run time, ops/convolution/expanded_layout.py: up to 16 channels
# with the
# overlap allowance, above that planned without it)
FUSED_CASES = 8
COMPACT = GenerationOptions(compact_weights=True)  # the blocked layout, whatever the board's flash


def _weighted_model(opcode: str, input_shape: tuple, values: np.ndarray, axis: int, options: dict,
                    rng: np.random.Generator, output_shape: tuple, output_zero_point: int | None = None) -> bytes:
    channels = values.shape[axis]
    input_scale = float(rng.uniform(0.01, 0.1))
    scales = list(rng.uniform(0.002, 0.02, channels if rng.integers(2) else 1))
    taps = values.size // channels
    spread = float(np.sqrt(taps)) * 127 * 74 / 128 * float(np.mean(scales)) * input_scale
    b = ModelBuilder(opcode.lower())
    x = b.input("x", input_shape, "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    w = b.constant("w", values, scale=scales, zero_point=0, axis=axis)
    inputs = [x, w]
    if rng.integers(2):
        bias_scales = [input_scale * s for s in (scales if len(scales) > 1 else scales * channels)]
        inputs.append(b.constant("b", rng.integers(-4000, 4000, channels).astype(np.int32), scale=bias_scales,
                                 zero_point=0))
    y = b.tensor("y", output_shape, "int8", scale=spread * 2.0 ** int(rng.integers(-3, 3)),
                 zero_point=int(rng.integers(-128, 128)) if output_zero_point is None else output_zero_point)
    b.operator(opcode, inputs=inputs, outputs=[y], options=options)
    b.output(y)
    return b.build()


def _weights(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    values = rng.integers(-127, 128, shape)
    if rng.integers(4) == 0:  # full magnitude: the 64-bit two-pixel sums need splitting
        values = np.where(values >= 0, 127, -128)
    return values.astype(np.int8)


def _window_case(rng: np.random.Generator, opcode: str, filter_hw: tuple, stride: int, in_c: int, out_c: int,
                 multiplier: int = 1, widths: tuple[int, int] = (1, 13), activation: str | None = None,
                 output_zero_point: int | None = None) -> bytes:
    padding = str(rng.choice(["SAME", "VALID"]))
    dilation = int(rng.integers(1, 3)) if filter_hw != (1, 1) and rng.integers(3) == 0 and widths[0] == 1 else 1
    # VALID needs the dilated filter inside the input: sides drawn from there up, so every draw is a valid shape
    low_h, low_w = ((side - 1) * dilation + 1 if padding == "VALID" else 1 for side in filter_hw)
    in_h = int(rng.integers(low_h, low_h + 12))
    in_w = int(rng.integers(low_w, low_w + 12) if widths == (1, 13) else rng.integers(max(widths[0], low_w), widths[1]))
    window = window_2d(padding, (in_h, in_w), filter_hw, (stride, stride), (dilation, dilation))
    assert window.out_h >= 1 and window.out_w >= 1
    options = {"padding": padding, "stride_h": stride, "stride_w": stride, "dilation_h": dilation,
               "dilation_w": dilation, "activation": str(rng.choice(["NONE", "RELU", "RELU6"]))}
    options["activation"] = activation or options["activation"]
    input_shape = (int(rng.integers(1, 3)), in_h, in_w, in_c)
    if opcode == "CONV_2D":
        values, axis = _weights(rng, (out_c, *filter_hw, in_c)), 0
    else:
        options["depth_multiplier"] = multiplier
        values, axis, out_c = _weights(rng, (1, *filter_hw, in_c * multiplier)), 3, in_c * multiplier
    output_shape = (input_shape[0], window.out_h, window.out_w, out_c)
    return _weighted_model(opcode, input_shape, values, axis, options, rng, output_shape, output_zero_point)


def _fc_case(rng: np.random.Generator, out_depth: int | None = None) -> bytes:
    depth, batches = int(rng.integers(1, 200)), int(rng.integers(1, 4))
    out_depth = int(rng.integers(1, 24)) if out_depth is None else out_depth
    return _weighted_model("FULLY_CONNECTED", (batches, depth), _weights(rng, (out_depth, depth)), 0,
                           {"activation": "NONE"}, rng, (batches, out_depth))


def _channels(rng: np.random.Generator) -> int:
    return int(rng.choice([1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 130]))


@needs_qemu
def test_convolutions_on_armv7m(tmp_path) -> None:
    rng = np.random.default_rng(14)
    pointwise = [_window_case(rng, "CONV_2D", (1, 1), 1, _channels(rng), _channels(rng)) for _ in range(CASES)]
    folded = [_window_case(rng, "CONV_2D", [(3, 3), (3, 3), (1, 1), (2, 3), (10, 4)][k % 5], int(rng.integers(1, 3)),
                           int(rng.integers(1, 20)), int(rng.integers(1, 20))) for k in range(CASES)]
    fused = [_window_case(rng, "CONV_2D", (1, 1), 1, _channels(rng), [4, 8, 12, 16, 20, 40, 36, 72][k],
                          activation="NONE") for k in range(FUSED_CASES)]
    functions = assert_batch_bit_exact(pointwise + folded + fused, "mps2_an385", tmp_path / "conv", seed=1,
                                       expect_functions=["fg_conv2d_pointwise_s8", "fg_conv2d_folded_s8"],
                                       generation=COMPACT)
    assert functions[-FUSED_CASES:] == [COMPACT_FUSED, EXPANDED] * (FUSED_CASES // 2)


@needs_qemu
def test_paired_layout_on_armv7m(tmp_path) -> None:
    """The board's flash takes every layer's paired weights: the fused 1x1 kernel (whole clamp), its unfused twin
    (RELU, RELU6), the folded convolution, the one-channel depthwise and the fully connected layers (whole clamp) on
    the paired layout."""
    rng = np.random.default_rng(16)
    pointwise = [_window_case(rng, "CONV_2D", (1, 1), 1, _channels(rng), _channels(rng)) for _ in range(PAIRED_CASES)]
    folded = [_window_case(rng, "CONV_2D", [(3, 3), (2, 3), (10, 4)][k % 3], int(rng.integers(1, 3)),
                           int(rng.integers(1, 20)), int(rng.integers(1, 20))) for k in range(PAIRED_CASES // 2)]
    single = [_window_case(rng, "DEPTHWISE_CONV_2D", (3, 3), int(rng.integers(1, 3)), 1, 0, int(rng.integers(1, 10)))
              for _ in range(PAIRED_CASES // 2)]
    # in whole groups of eight outputs as the fused 1x1 convolution of its batches, else on its own kernel
    dense = [_fc_case(rng, 8 * int(rng.integers(1, 4))) for _ in range(PAIRED_CASES // 2)]
    other = [_fc_case(rng, out_depth) for out_depth in (4, 12, 5)]
    expected = ["fg_conv2d_pointwise_fused_s8", "fg_conv2d_pointwise_paired_s8", "fg_conv2d_folded_paired_s8",
                "fg_depthwise_conv2d_one_channel_paired_s8"]
    functions = assert_batch_bit_exact(pointwise + folded + single + dense + other, "mps2_an385", tmp_path / "paired",
                                       seed=3, expect_functions=expected)
    assert functions[-len(dense) - len(other):] == (["fg_conv2d_pointwise_fused_s8"] * len(dense)
                                                    + ["fg_fully_connected_folded_s8"] * len(other))


@needs_qemu
def test_folded_fused_windows_on_armv7m(tmp_path) -> None:
    """The folded kernel with its output stage fused (whole clamp) on windows of few input channels and several groups
    of eight outputs, read as one run of taps where that pays (fg_conv2d_folded_gathered_s8: the rows copied side by
    side, a border pixel's window gathered so), else row by row (fg_conv2d_folded_rows_s8: rows of at most sixteen taps
    read in place, a border pixel's gathered side by side), dilated ones among them."""
    rng = np.random.default_rng(17)
    windows = [(10, 4), (3, 3), (5, 2), (2, 3)]
    cases = [_window_case(rng, "CONV_2D", windows[k % 4], int(rng.integers(1, 3)), int(rng.integers(1, 4)),
                          int(rng.choice([8, 16, 24, 40, 64])), activation="NONE") for k in range(FUSED_CASES)]
    functions = assert_batch_bit_exact(cases, "mps2_an385", tmp_path / "folded", seed=4)
    fused = {"fg_conv2d_folded_fused_s8", GATHERED, ROWS}
    assert {GATHERED, ROWS} <= set(functions) <= fused | {FLOOR[f] for f in fused}


def _floor_case(rng: np.random.Generator, opcode: str, filter_hw: tuple, stride: int, in_c: int, out_c: int) -> bytes:
    """A ReLU-like layer (output zero point -128, the whole clamp) with, beside random channels, a dead one (zero
    weights, bias 2^30 - 64: one output throughout, not -128, at a right shift of 25) and, with more channels, one at
    the largest right shift the stage takes (23, bias 2^28 + 77,777), a dead one of bias -2^30 and one whose right
    shift of 27 rounds every output to -128."""
    batches, in_h, in_w = int(rng.integers(1, 3)), int(rng.integers(1, 12)), int(rng.integers(1, 12))
    window = window_2d("SAME", (in_h, in_w), filter_hw, (stride, stride), (1, 1))
    input_scale, output_scale = float(rng.uniform(0.01, 0.1)), float(rng.uniform(0.02, 0.2))
    depthwise = opcode == "DEPTHWISE_CONV_2D"
    shape = (1, *filter_hw, out_c) if depthwise else (out_c, *filter_hw, in_c)
    values = _weights(rng, shape).astype(np.int32)
    scales = rng.uniform(0.2, 2.0, out_c) * output_scale / input_scale / float(np.sqrt(values[0].size)) / 127
    bias = rng.integers(-4000, 4000, out_c).astype(np.int32)
    tiny = output_scale / input_scale * 2.0 ** -26
    specials = [(0, tiny, (1 << 30) - 64, True), (1, tiny * 4.5, (1 << 28) + 77777, False), (2, tiny, -(1 << 30), True),
                (3, tiny / 4, 0, False)]
    for channel, weight_scale, value, dead in specials:
        if channel < out_c:
            scales[channel], bias[channel] = weight_scale, value
            if dead:
                values[(..., channel) if depthwise else channel] = 0
    b = ModelBuilder(opcode.lower())
    x = b.input("x", (batches, in_h, in_w, in_c), "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    w = b.constant("w", values.astype(np.int8), scale=list(scales), zero_point=0, axis=3 if depthwise else 0)
    c = b.constant("b", bias, scale=[input_scale * s for s in scales], zero_point=0)
    options = {"padding": "SAME", "stride_h": stride, "stride_w": stride, "dilation_h": 1, "dilation_w": 1,
               "activation": str(rng.choice(["NONE", "RELU"]))}
    if depthwise:
        options["depth_multiplier"] = out_c // in_c
    y = b.tensor("y", (batches, window.out_h, window.out_w, out_c), "int8", scale=output_scale, zero_point=-128)
    b.operator(opcode, inputs=[x, w, c], outputs=[y], options=options)
    b.output(y)
    return b.build()


@needs_qemu
def test_floor_stage_on_armv7m(tmp_path) -> None:
    """ReLU-like layers on the fused kernels' floor stage (fg_floor_channel: a 64-bit start per channel, its bias in
    it): the 1x1 convolution, the folded one (windows of short rows read in place, one group or several, border
    pixels gathered; rows longer than sixteen taps; windows read side by side) and the one-channel depthwise (on the
    short rows' kernel), each with dead channels and channels of tiny scales."""
    rng = np.random.default_rng(18)
    pointwise = [_floor_case(rng, "CONV_2D", (1, 1), 1, _channels(rng), int(rng.choice([3, 8, 16, 24, 130])))
                 for _ in range(4)]
    folded = [_floor_case(rng, "CONV_2D", window, int(rng.integers(1, 3)), in_c, out_c)
              for window, in_c, out_c in [((3, 3), 3, 8), ((3, 3), 1, 16), ((10, 4), 1, 64), ((3, 3), 7, 8),
                                          ((2, 3), 2, 24), ((5, 2), 3, 9)]]
    single = [_floor_case(rng, "DEPTHWISE_CONV_2D", (3, 3), int(rng.integers(1, 3)), 1, out_c) for out_c in (8, 5)]
    functions = assert_batch_bit_exact(pointwise + folded + single, "mps2_an385", tmp_path / "floor", seed=5)
    assert set(FLOOR.values()) - {FLOOR["fg_depthwise_conv2d_one_channel_fused_s8"]} <= set(functions)


@needs_qemu
def test_depthwise_and_fully_connected_on_armv7m(tmp_path) -> None:
    rng = np.random.default_rng(15)
    single = [_window_case(rng, "DEPTHWISE_CONV_2D", [(3, 3), (10, 8), (2, 5)][k % 3], int(rng.integers(1, 3)), 1, 0,
                           int(rng.integers(1, 10))) for k in range(CASES)]
    depthwise = [_window_case(rng, "DEPTHWISE_CONV_2D", (3, 3), int(rng.integers(1, 3)), _channels(rng), 0)
                 for _ in range(CASES)]
    wide = [_window_case(rng, "DEPTHWISE_CONV_2D", (3, 3), stride, int(rng.integers(2, 6)), 0, widths=(30, 63))
            for stride in (1, 2, 1, 2)]  # the planar variant's plane rows filled to their pitch, several bands
    # ReLU-like (output zero point -128): the planar kernel's output stage without the rounding correction, on rows
    # and, taller than wide, on columns (a band's runs stored with one set-up)
    relu = [_window_case(rng, "DEPTHWISE_CONV_2D", (3, 3), int(rng.integers(1, 3)), _channels(rng), 0,
                         activation="RELU", output_zero_point=-128) for _ in range(FUSED_CASES)]
    dense = [_fc_case(rng) for _ in range(CASES)]
    functions = assert_batch_bit_exact(single + depthwise + wide + relu + dense, "mps2_an385", tmp_path / "dw", seed=2,
                                       expect_functions=["fg_depthwise_conv2d_one_channel_s8",
                                                         "fg_depthwise_conv2d_3x3_s8",
                                                         "fg_depthwise_conv2d_3x3_planar_s8",
                                                         "fg_fully_connected_folded_s8"], generation=COMPACT)
    assert functions[:CASES] == ["fg_depthwise_conv2d_one_channel_s8"] * CASES
