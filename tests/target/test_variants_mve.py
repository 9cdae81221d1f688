"""The Helium (MVE) kernel variants on the Cortex-M55 (mps3_an547 under QEMU): for each variant a batch of single-op
cases around its block sizes (4 output channels, 16 taps per step, 4 depthwise channels per vector), strides,
dilations, padding, zero points, per-channel and per-tensor scales, all in one firmware and bit-exact with TFLM;
each batch asserts that its variant ran, and a layer outside a variant's preconditions keeps the portable kernel."""

from __future__ import annotations

import numpy as np
import pytest
from batched import assert_batch_bit_exact
from bounded_activations import bounded_scales
from target_fixtures import needs_qemu

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import lower
from firmware_gen.ops.geometry import window_2d
from firmware_gen.ops.variants import mve
from firmware_gen.target.boards import load_board

BOARD = "mps3_an547"
CHANNELS = [*range(1, 18), 31, 33, 64]
ACTIVATIONS = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]


def _weights(rng: np.random.Generator, builder: ModelBuilder, shape: tuple[int, ...], axis: int, input_scale: float,
             taps: int, activation: str) -> tuple[int, int, float]:
    """(weights, bias or -1, an output scale that spreads the accumulators over the int8 range, or now and then one
    so small that the multipliers exceed one; under a bounded activation all rescaled: bounded_activations.py)."""
    channels = shape[axis]
    values = rng.integers(-127, 127, shape, endpoint=True).astype(np.int8)
    scales = [float(s) for s in rng.uniform(1e-3, 0.5, channels if rng.random() < 0.6 else 1)]
    biases = rng.integers(-(1 << 14), 1 << 14, channels).astype(np.int32) if rng.random() < 0.7 else None
    if rng.random() < 0.2:  # multipliers above one: the requantization's left shift (and saturation)
        output_scale = input_scale * float(np.mean(scales)) * 2.0 ** -int(rng.integers(0, 4))
    else:
        spread = float(np.sqrt(taps)) * 127 * 74 / 128
        output_scale = input_scale * float(np.mean(scales)) * spread * 2.0 ** int(rng.integers(-3, 3))
    scales, output_scale = bounded_scales(activation, scales, output_scale)
    index = builder.constant("w", values, scale=scales, zero_point=0, axis=axis)
    bias = -1 if biases is None else builder.constant("b", biases, scale=[input_scale * s for s in scales])
    return index, bias, output_scale


COMPACT = GenerationOptions(compact_weights=True)  # no flash for the Armv7-M paired layout: the portable kernels


def conv_case(seed: int, opcode: str, input_shape: tuple[int, int, int, int], filter_hw: tuple[int, int],
              channels: int, stride: int = 1, dilation: int = 1, padding: str = "SAME") -> bytes:
    """CONV_2D (channels = output channels) or DEPTHWISE_CONV_2D (channels = depth multiplier)."""
    rng = np.random.default_rng(seed)
    options = {"padding": padding, "stride_h": stride, "stride_w": stride, "dilation_h": dilation,
               "dilation_w": dilation, "activation": ACTIVATIONS[seed % 4]}
    in_c = input_shape[3]
    window = window_2d(padding, input_shape[1:3], filter_hw, (stride, stride), (dilation, dilation))
    builder = ModelBuilder(opcode.lower())
    input_scale = float(rng.uniform(0.005, 0.1))
    x = builder.input("x", input_shape, "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    if opcode == "CONV_2D":
        out_c, shape, axis, taps = channels, (channels, *filter_hw, in_c), 0, filter_hw[0] * filter_hw[1] * in_c
    else:
        options["depth_multiplier"] = channels
        out_c, shape, axis, taps = in_c * channels, (1, *filter_hw, in_c * channels), 3, filter_hw[0] * filter_hw[1]
    w, b, output_scale = _weights(rng, builder, shape, axis, input_scale, taps, options["activation"])
    y = builder.tensor("y", (input_shape[0], window.out_h, window.out_w, out_c), "int8", scale=output_scale,
                       zero_point=int(rng.integers(-128, 128)))
    builder.operator(opcode, [x, w] + ([b] if b >= 0 else []), [y], options)
    builder.output(y)
    return builder.build()


def fully_connected_case(seed: int, batches: int, depth: int, out_c: int) -> bytes:
    rng = np.random.default_rng(seed)
    builder = ModelBuilder("fully_connected")
    input_scale = float(rng.uniform(0.005, 0.1))
    x = builder.input("x", (batches, depth), "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    w, b, output_scale = _weights(rng, builder, (out_c, depth), 0, input_scale, depth, ACTIVATIONS[seed % 4])
    y = builder.tensor("y", (batches, out_c), "int8", scale=output_scale, zero_point=int(rng.integers(-128, 128)))
    builder.operator("FULLY_CONNECTED", [x, w] + ([b] if b >= 0 else []), [y], {"activation": ACTIVATIONS[seed % 4]})
    builder.output(y)
    return builder.build()


def add_case(seed: int, shape: tuple[int, ...], other: tuple[int, ...] | None = None,
             output_multiplier: float | None = None) -> bytes:
    """ADD of two int8 tensors (the second of shape `other` when it broadcasts); output_multiplier: the output's
    rescaling (2 x the larger input scale / (2^20 x the output scale)) instead of a random output scale."""
    rng = np.random.default_rng(seed)
    builder = ModelBuilder("add")
    scales = rng.uniform(0.005, 0.2, 3)
    if output_multiplier is not None:
        scales[2] = 2 * max(scales[0], scales[1]) / (2.0 ** 20 * output_multiplier)
    a = builder.input("a", shape, "int8", scale=float(scales[0]), zero_point=int(rng.integers(-128, 128)))
    b = builder.input("b", other or shape, "int8", scale=float(scales[1]), zero_point=int(rng.integers(-128, 128)))
    y = builder.tensor("y", shape, "int8", scale=float(scales[2]), zero_point=int(rng.integers(-128, 128)))
    builder.operator("ADD", [a, b], [y], {"activation": ACTIVATIONS[seed % 3]})
    builder.output(y)
    return builder.build()


def _add_cases() -> list[bytes]:
    rng = np.random.default_rng(5)
    cases = [add_case(600 + k, (1, int(rng.integers(1, 6)), int(rng.integers(1, 6)), size))
             for k, size in enumerate([*CHANNELS, 3, 7, 16, 32, 64, 5])]
    # long enough for the tables of the inputs' scaled values (512 elements and more), a tail of 1 to 3 (after the
    # pipelined loop's whole steps of four)
    cases += [add_case(650 + k, shape) for k, shape in enumerate([(1, 8, 8, 32), (1, 7, 9, 17), (1, 4, 4, 32),
                                                                   (1, 3, 5, 35), (1, 2, 9, 29)])]
    # an output multiplier in [0.5, 1): no right shift, the looked-up loop with the masked sign step (the outputs
    # mostly saturate: only that the loop runs bit-exact is checked; every other long case shifts right), with a
    # tail of 2 and with none (the loop's last whole step)
    return cases + [add_case(660 + k, shape, output_multiplier=m)
                    for k, (shape, m) in enumerate([((1, 6, 7, 13), 0.75), ((1, 6, 7, 13), 0.51), ((1, 8, 8, 8), 0.6)])]


def pool_case(seed: int, shape: tuple[int, int, int, int], filter_hw: tuple[int, int], stride: int,
              padding: str) -> bytes:
    rng = np.random.default_rng(seed)
    options = {"padding": padding, "filter_h": filter_hw[0], "filter_w": filter_hw[1], "stride_h": stride,
               "stride_w": stride, "activation": ACTIVATIONS[seed % 4]}
    window = window_2d(padding, shape[1:3], filter_hw, (stride, stride))
    builder = ModelBuilder("average_pool")
    scale, zero_point = float(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 128))
    x = builder.input("x", shape, "int8", scale=scale, zero_point=zero_point)
    y = builder.tensor("y", (shape[0], window.out_h, window.out_w, shape[3]), "int8", scale=scale,
                       zero_point=zero_point)
    builder.operator("AVERAGE_POOL_2D", [x], [y], options)
    builder.output(y)
    return builder.build()


def _pool_cases() -> list[bytes]:
    rng = np.random.default_rng(7)
    cases = []
    for k, channels in enumerate([*CHANNELS, 128, 256, 5, 9, 24]):
        filter_hw = (int(rng.integers(1, 4)), int(rng.integers(1, 4))) if k % 4 else (5, 5)
        shape = (1 + k % 2, int(rng.integers(5, 9)), int(rng.integers(5, 9)), channels)
        cases.append(pool_case(700 + k, shape, filter_hw, 1 + k % 3, "SAME" if k % 2 else "VALID"))
    return cases


def _pointwise_cases() -> list[bytes]:
    rng = np.random.default_rng(1)
    cases = []
    for k, in_c in enumerate(CHANNELS):
        out_c = CHANNELS[(k * 7 + 3) % len(CHANNELS)]
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5)), in_c)
        cases.append(conv_case(100 + k, "CONV_2D", shape, (1, 1), out_c))
    cases += [conv_case(150, "CONV_2D", (1, 3, 5, 48), (1, 1), 64),
              conv_case(151, "CONV_2D", (1, 5, 3, 64), (1, 1), 13),
              conv_case(152, "CONV_2D", (2, 3, 3, 130), (1, 1), 6),
              conv_case(153, "CONV_2D", (1, 1, 1, 256), (1, 1), 3),
              conv_case(154, "CONV_2D", (1, 7, 1, 16), (1, 1), 32),
              conv_case(155, "CONV_2D", (2, 2, 3, 96), (1, 1), 24),
              conv_case(156, "CONV_2D", (1, 3, 3, 1152), (1, 1), 5)]
    # one pixel whose rows would fit in registers (in_c <= 64, out_c a multiple of four): no pair for the resident
    # loops, which ran 2^32 of them when called with none (a squeeze-and-excite block's 1x1 convolutions)
    cases += [conv_case(157 + k, "CONV_2D", (1, 1, 1, in_c), (1, 1), out_c)
              for k, (in_c, out_c) in enumerate([(8, 4), (17, 16), (40, 8), (64, 12)])]
    # rows of up to 64 taps held in registers (out_c a multiple of four): one vector or two, odd and even pixels; from
    # 33 taps on the first row only
    cases += [conv_case(160 + k, "CONV_2D", shape, (1, 1), out_c)
              for k, (shape, out_c) in enumerate([((1, 5, 5, 8), 16), ((1, 4, 7, 24), 12), ((2, 3, 3, 32), 8),
                                                   ((1, 1, 3, 20), 4), ((1, 6, 5, 16), 32), ((1, 3, 3, 3), 8),
                                                   ((1, 2, 4, 12), 8), ((1, 3, 3, 40), 12), ((2, 2, 3, 48), 8),
                                                   ((1, 3, 5, 64), 16), ((1, 5, 1, 57), 4), ((1, 2, 2, 33), 20),
                                                   ((1, 2, 3, 50), 8), ((1, 5, 5, 64), 8), ((2, 3, 4, 64), 12)])]
    return cases


def _folded_cases() -> list[bytes]:
    rng = np.random.default_rng(2)
    cases = []
    geometries = [((3, 3), 1, 1), ((3, 3), 2, 1), ((3, 3), 1, 2), ((1, 1), 2, 1), ((1, 3), 1, 1), ((3, 1), 2, 1),
                  ((2, 2), 2, 1), ((5, 5), 1, 1)]
    for k in range(28):
        filter_hw, stride, dilation = geometries[k % len(geometries)]
        in_c = [1, 2, 3, 4, 5, 8, 16, 17, 31][k % 9]
        low = (max(filter_hw) - 1) * dilation + 1
        shape = (1 + k % 2, int(rng.integers(low, 10)), int(rng.integers(low, 10)), in_c)
        cases.append(conv_case(200 + k, "CONV_2D", shape, filter_hw, CHANNELS[(k * 5) % len(CHANNELS)], stride,
                               dilation, "SAME" if k % 3 else "VALID"))
    # a padded layer whose band of tap rows does not fit the stack (windows at the border built one by one)
    cases.append(conv_case(230, "CONV_2D", (1, 4, 30, 31), (3, 3), 8))
    # a depthwise convolution of one input channel runs as a convolution
    cases += [conv_case(240 + k, "DEPTHWISE_CONV_2D", (1, 9, 8, 1), (3, 3), multiplier, 1 + k % 2)
              for k, multiplier in enumerate([8, 3, 16])]
    # whole blocks only: the windows in batches as many as the stack buffer holds, their pairs through the pipelined
    # loops (one, two and three steps of 16 taps, and eleven: kws_ref_model's first layer, vww_96_int8's), the last
    # batch short, a lone last window; two batches of images; windows from the band, from the image (unpadded), and
    # both with windows at the border between them (a band too wide for the stack), batches ending inside a row
    batched = [((1, 49, 10, 1), (10, 4), 16, "SAME"), ((1, 31, 29, 3), (3, 3), 8, "SAME"),
               ((1, 40, 39, 1), (3, 3), 4, "SAME"), ((2, 15, 15, 7), (5, 5), 12, "SAME"),
               ((1, 20, 23, 2), (3, 3), 8, "VALID"), ((1, 5, 140, 5), (3, 3), 4, "SAME")]
    cases += [conv_case(250 + k, "CONV_2D", shape, filter_hw, out_c, 2, 1, padding)
              for k, (shape, filter_hw, out_c, padding) in enumerate(batched)]
    return cases


def _columns_cases() -> list[bytes]:
    """Convolutions of 8 input channels or more and no dilation across: the column band kernel (odd rows: a lone
    pixel paired with itself, or alone past 256 output channels)."""
    rng = np.random.default_rng(4)
    geometries = [((3, 3), 1), ((3, 3), 2), ((1, 1), 2), ((1, 3), 1), ((3, 1), 2), ((2, 2), 2), ((2, 3), 1),
                  ((3, 2), 1)]
    cases = []
    for k in range(25):
        filter_hw, stride = geometries[k % len(geometries)]
        in_c = [8, 9, 16, 17, 24, 31, 32, 33, 64][k % 9]
        shape = (1 + k % 2, int(rng.integers(max(filter_hw), 9)), int(rng.integers(max(filter_hw), 9)), in_c)
        cases.append(conv_case(500 + k, "CONV_2D", shape, filter_hw, CHANNELS[(k * 7) % len(CHANNELS)], stride,
                               1, "SAME" if k % 3 else "VALID"))
    # pairs of pixels over two steps of 16 taps or more (the pipelined loops: 9, 18, 3 and 2 steps)
    cases += [conv_case(531 + k, "CONV_2D", shape, filter_hw, out_c)
              for k, (shape, filter_hw, out_c) in enumerate([((1, 6, 8, 16), (3, 3), 16), ((1, 5, 9, 32), (3, 3), 12),
                                                             ((1, 6, 6, 16), (3, 1), 8), ((1, 7, 8, 12), (1, 2), 12),
                                                             ((1, 5, 6, 9), (3, 1), 16), ((1, 4, 7, 8), (2, 2), 8)])]
    # nine steps with every channel shifting right (the nine-step pipelined loop, a pair's last outputs stored by the
    # next pair's first block): a lone last pixel, stride 2 and two images, 135 taps, one block a pair
    cases += [conv_case(544, "CONV_2D", (1, 5, 7, 16), (3, 3), 16),
              conv_case(545, "CONV_2D", (2, 9, 8, 16), (3, 3), 32, 2),
              conv_case(549, "CONV_2D", (1, 4, 9, 15), (3, 3), 8), conv_case(552, "CONV_2D", (1, 5, 9, 16), (3, 3), 4)]
    # ten steps or more (nine of a later block with the output stage, the rest through the unrolled loop, or inline
    # for eighteen): 36, 18 (stride 2, two images) and 11 steps
    cases += [conv_case(546, "CONV_2D", (1, 4, 7, 64), (3, 3), 8),
              conv_case(547, "CONV_2D", (2, 5, 8, 32), (3, 3), 16, 2),
              conv_case(554, "CONV_2D", (1, 5, 6, 19), (3, 3), 12)]
    # fewer than 8 input channels at stride 1 (the band's rows scattered a vector of pixels at a time)
    cases += [conv_case(560 + k, "CONV_2D", shape, filter_hw, out_c, 1, 1, padding)
              for k, (shape, filter_hw, out_c, padding) in enumerate([((1, 9, 11, 3), (3, 3), 16, "SAME"),
                                                                      ((2, 6, 7, 1), (3, 3), 8, "SAME"),
                                                                      ((1, 7, 9, 5), (2, 3), 12, "VALID"),
                                                                      ((1, 5, 6, 7), (3, 2), 4, "SAME"),
                                                                      ((1, 8, 20, 2), (3, 3), 8, "SAME")])]
    # and one step (1x1, stride 2)
    cases += [conv_case(538 + k, "CONV_2D", shape, (1, 1), out_c, 2)
              for k, (shape, out_c) in enumerate([((1, 8, 8, 16), 12), ((1, 6, 9, 12), 8), ((2, 5, 8, 10), 4)])]
    return cases + [conv_case(530, "CONV_2D", (1, 3, 5, 8), (3, 3), 260)]


def _depthwise_cases() -> list[bytes]:
    rng = np.random.default_rng(3)
    cases = []
    for k, channels in enumerate([*CHANNELS, 48, 100, 7, 4, 12, 20, 9]):
        stride, dilation = (1, 1) if k % 3 == 0 else (2, 1) if k % 3 == 1 else (1 + k % 2, 2)
        shape = (1 + k % 2, int(rng.integers(2, 9)), int(rng.integers(2, 9)), channels)
        if dilation == 2 and k % 4 == 0:
            shape = (1, 7, 6, channels)
        cases.append(conv_case(300 + k, "DEPTHWISE_CONV_2D", shape, (3, 3), 1, stride, dilation,
                               "VALID" if k % 5 == 4 and min(shape[1:3]) > 4 else "SAME"))
    # long rows: pixels in pairs (odd and even rows, strides 1 and 2, dilation 2, padded or not),
    # and a padded layer whose band of three tap rows does not fit the stack (through the image)
    geometries = [((1, 6, 12, 32), 1, 1), ((1, 9, 11, 16), 2, 1), ((1, 7, 10, 8), 1, 2), ((2, 5, 9, 12), 1, 1),
                  ((1, 3, 50, 32), 1, 1)]
    # the band's ring of lines: pairs of output rows (odd and even heights, two batches, kws_ref_model's 5 x 64),
    # three new rows an output row (stride 3) and a dilation_h of 3 (tap row r in line r)
    geometries += [((1, 9, 5, 64), 1, 1), ((2, 6, 7, 16), 1, 1), ((1, 10, 7, 16), 3, 1), ((1, 9, 9, 8), 1, 3)]
    return cases + [conv_case(340 + k, "DEPTHWISE_CONV_2D", shape, (3, 3), 1, stride, dilation)
                    for k, (shape, stride, dilation) in enumerate(geometries)]


def _fully_connected_cases() -> list[bytes]:
    depths = [*CHANNELS, 100, 250, 1, 16, 48]
    cases = [fully_connected_case(400 + k, 1 + k % 3, depth, CHANNELS[(k * 3 + 1) % len(CHANNELS)])
             for k, depth in enumerate(depths)]
    # one row against pairs of blocks (the one-row loop): more than eight steps, long rows, a row padded to 16 taps
    return cases + [fully_connected_case(430 + k, 1, depth, out_c)
                    for k, (depth, out_c) in enumerate([(160, 24), (144, 40), (640, 16), (8, 128), (32, 9), (80, 17)])]


# The convolution kernels' entry points, one per loop over pairs of pixels (ops/variants/mve.py's pairs_loop): the
# folded cases run these, the column cases every one.
PAIRS_LOOPS = ("by_one", "unpipelined", "one", "two", "three", "unrolled", "nine", "spread", "eighteen", "thirty_six")
FOLDED_LOOPS = ("by_one", "unpipelined", "one", "two", "three", "spread", "eighteen")

BATCHES = {
    "pointwise": (_pointwise_cases, ["fg_conv2d_pointwise_s8_mve"]),
    "folded": (_folded_cases, [f"fg_conv2d_folded_{loop}_s8_mve" for loop in FOLDED_LOOPS]),
    "columns": (_columns_cases, [f"fg_conv2d_columns_{loop}_s8_mve" for loop in PAIRS_LOOPS]),
    "depthwise_3x3": (_depthwise_cases, ["fg_depthwise_conv2d_3x3_s8_mve"]),
    "fully_connected": (_fully_connected_cases, ["fg_fully_connected_folded_s8_mve"]),
    "add": (_add_cases, ["fg_add_s8_mve"]),
    "average_pool": (_pool_cases, ["fg_avg_pool2d_s8_mve"]),
}


@needs_qemu
@pytest.mark.parametrize("batch", sorted(BATCHES))
def test_variant_bit_exact(batch: str, tmp_path) -> None:
    cases, expected = BATCHES[batch]
    models = cases()
    assert len(models) >= 25
    functions = assert_batch_bit_exact(models, BOARD, tmp_path / "build", seed=len(models), expect_functions=expected)
    assert all(f.endswith("_mve") for f in functions), sorted(set(functions))


@needs_qemu
def test_a_pairs_loop_that_does_not_fit_runs_pair_by_pair(tmp_path, monkeypatch) -> None:
    """Every layer through the entry points of the nine-step loop: the others' pairs one by one (fg_mve_pairs_by_one),
    still bit-exact."""
    monkeypatch.setattr(mve, "pairs_loop", lambda quant, depth, runs_pairs: "nine")
    models = _columns_cases()[:12] + _folded_cases()[:12]
    nine = ["fg_conv2d_columns_nine_s8_mve", "fg_conv2d_folded_nine_s8_mve"]
    functions = assert_batch_bit_exact(models, BOARD, tmp_path / "build", seed=len(models), expect_functions=nine)
    assert not [f for f in functions if f.startswith("fg_conv2d_") and "_nine_" not in f], sorted(set(functions))


@needs_qemu
def test_outside_the_preconditions_the_portable_kernel_runs(tmp_path) -> None:
    """A 1x1 convolution of more input channels than the variant's stack row, a depthwise one of more channels than
    its zero-point row, an ADD that broadcasts, an average pool of a 256-element window: the portable kernels (the
    depthwise one the Armv7-M variant, which the core executes too), still bit-exact, beside a case the variant
    takes."""
    models = [conv_case(500, "CONV_2D", (1, 2, 2, 1200), (1, 1), 5),
              conv_case(501, "DEPTHWISE_CONV_2D", (1, 3, 3, 1030), (3, 3), 1),
              add_case(503, (1, 3, 4, 5), (1, 1, 4, 5)),
              pool_case(504, (1, 16, 17, 3), (16, 16), 1, "VALID"),
              conv_case(502, "CONV_2D", (1, 2, 3, 8), (1, 1), 4)]
    functions = assert_batch_bit_exact(models, BOARD, tmp_path / "build", generation=COMPACT,
                                       expect_functions=["fg_conv2d_pointwise_s8", "fg_conv2d_pointwise_s8_mve"])
    assert functions[:4] == ["fg_conv2d_pointwise_s8", "fg_depthwise_conv2d_3x3_planar_s8", "fg_add_s8",
                             "fg_avg_pool2d_s8"]


def test_with_the_boards_flash_the_paired_layout_serves_what_mve_does_not() -> None:
    """Outside MVE's preconditions, the next variant the core executes is chosen before the portable kernel: the
    Armv7-M paired layout (its output stage fused), which the board's flash budget allows (the test above takes that
    budget away)."""
    graph = read_model(conv_case(500, "CONV_2D", (1, 2, 2, 1200), (1, 1), 5))
    calls = lower(graph, load_board(BOARD).isa)
    assert [call.function for call in calls.values()] == ["fg_conv2d_pointwise_fused_s8"]
