"""The Armv7E-M (DSP) kernel variants on QEMU: many single-operator cases batched into one firmware per variant,
every output bit-exact with TFLM, the variant forced (expect_functions) and a shape whose preconditions fail shown
to keep the portable kernel. Shapes go around the variants' blocks: 3-pixel tiles, channel pairs, depths padded to
8, 4-channel depthwise groups; scales reach the output stage's wide channels (huge biases, multipliers >= 1/2)."""

from __future__ import annotations

import math

import batched
import numpy as np
import pytest
from batched import assert_batch_bit_exact
from bounded_activations import bounded_scales
from target_fixtures import needs_qemu, with_flash_wait_states
from test_variants_mve import COMPACT, pool_case

from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.geometry import window_2d
from firmware_gen.ops.variants import dsp_winograd
from firmware_gen.ops.variants.dsp_taps import TAPS_MIN_WIDTH, TAPS_SMALL_ROWS, TAPS_SMALL_WIDTHS
from firmware_gen.ops.variants.dsp_window import PLANAR_MIN_WIDTH
from firmware_gen.ops.variants.dsp_winograd import winograd_fits
from firmware_gen.target.boards import Board, load_board

CHANNELS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33]
ACTIVATIONS = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]


def _weights(rng, shape, axis, taps, input_scale, wide):
    channels = shape[axis]
    values = rng.integers(-127, 127, shape, endpoint=True).astype(np.int8)
    scales = [float(s) for s in rng.uniform(1e-3, 0.5, channels if rng.random() < 0.6 else 1)]
    bias = rng.integers(-(1 << 14), 1 << 14, channels).astype(np.int32) if rng.random() < 0.7 else None
    if wide and bias is not None:  # a dead channel's bias, as in vww: 2 * acc leaves int32
        bias[rng.integers(0, channels)] = (1 << 30) * rng.choice([-1, 1])
    spread = float(np.sqrt(taps)) * 127 * 74 / 128 * 2.0 ** int(rng.integers(-4, 4))
    if wide and rng.random() < 0.5:
        spread = 0.7  # multipliers above 1/2: shift >= 0
    return values, scales, bias, input_scale * float(np.mean(scales)) * spread


def conv_case(rng, opcode, filter_hw, in_c, out_c, stride=1, dilation=1, padding=None, wide=False,
              multiplier=1, widths=(1, 6), stride_w=None, output_zero_point=None, activation=None,
              heights=(1, 6), input_zero_point=None, batches=None) -> bytes:
    """One CONV_2D or DEPTHWISE_CONV_2D (out_c unused: in_c * multiplier channels) model with random
    quantization; the input's width and height drawn from `widths` and `heights` (half-open), stride_w `stride`
    unless given, the activation, the input zero point and the batches (1 or 2) random unless given."""
    padding = padding or str(rng.choice(["SAME", "VALID"]))
    stride_w = stride if stride_w is None else stride_w
    options = {"padding": padding, "stride_h": stride, "stride_w": stride_w, "dilation_h": dilation,
               "dilation_w": dilation, "activation": activation or str(rng.choice(ACTIVATIONS))}
    while True:
        images = int(rng.integers(1, 3)) if batches is None else batches
        shape = (images, int(rng.integers(*heights)), int(rng.integers(*widths)), in_c)
        window = window_2d(padding, shape[1:3], filter_hw, (stride, stride_w), (dilation, dilation))
        if window.out_h >= 1 and window.out_w >= 1:
            break
    input_scale = float(rng.uniform(0.005, 0.1))
    if opcode == "CONV_2D":
        w_shape, axis, taps, out_c = (out_c, *filter_hw, in_c), 0, filter_hw[0] * filter_hw[1] * in_c, out_c
    else:
        options["depth_multiplier"] = multiplier
        out_c = in_c * multiplier
        w_shape, axis, taps = (1, *filter_hw, out_c), 3, filter_hw[0] * filter_hw[1]
    values, scales, bias, output_scale = _weights(rng, w_shape, axis, taps, input_scale, wide)
    scales, output_scale = bounded_scales(options["activation"], scales, output_scale)
    b = ModelBuilder(opcode.lower())
    drawn_zero_point = int(rng.integers(-128, 128))
    x = b.input("x", shape, "int8", scale=input_scale,
                zero_point=drawn_zero_point if input_zero_point is None else input_zero_point)
    inputs = [x, b.constant("w", values, scale=scales, zero_point=0, axis=axis)]
    if bias is not None:
        inputs.append(b.constant("b", bias, scale=[input_scale * s for s in scales], zero_point=0))
    if output_zero_point is None:
        output_zero_point = int(rng.integers(-128, 128))
    y = b.tensor("y", (shape[0], window.out_h, window.out_w, out_c), "int8", scale=output_scale,
                 zero_point=output_zero_point)
    b.operator(opcode, inputs=inputs, outputs=[y], options=options)
    b.output(y)
    return b.build()


def pointwise_cases(rng, count):
    # every third case with the output zero point -128: the tile without the rounding correction when the clamp
    # is all of int8
    return [conv_case(rng, "CONV_2D", (1, 1), CHANNELS[k % len(CHANNELS)], int(rng.choice(CHANNELS)),
                      wide=k % 5 == 4, output_zero_point=-128 if k % 3 == 0 else None) for k in range(count)]


def folded_cases(rng, count):
    cases = []
    for k in range(count):
        filter_hw = [(3, 3), (3, 3), (1, 3), (2, 2), (3, 1), (1, 1)][k % 6]
        stride = 2 if filter_hw == (1, 1) else int(rng.integers(1, 3))
        cases.append(conv_case(rng, "CONV_2D", filter_hw, int(rng.integers(1, 7)), int(rng.choice(CHANNELS[:12])),
                               stride, int(rng.integers(1, 3)), wide=k % 7 == 6,
                               output_zero_point=-128 if k % 3 == 0 else None))
    return cases


def band_cases(rng, count):
    """3x3 stride 1 on in_c 16, 32, 48, 64 (the band kernel's in_c % 16): SAME and VALID, rows whose out_w % 3 is 0, 1
    or 2 (held pixels, paired across rows), odd and even out_c (an odd one gathered from the band), wide channels
    (gathered too), the relu tile store (output zero point -128, RELU) and the clamping one, two images; and a third
    as many at stride 2 (the band's even and odd half-lines), images of odd and even widths and heights; and rows
    whose last two pixels run as the pair tile (out_w % 3 == 2, every channel narrow, out_c even) at strides 1 and
    2, relu and clamping."""
    cases = []
    for k in range(count):
        relu = k % 3 == 0
        cases.append(conv_case(rng, "CONV_2D", (3, 3), [16, 32, 48, 64][k % 4], [2, 16, 5, 32, 8, 17][k % 6], 1,
                               wide=k % 7 == 6, widths=(3, 12), heights=(1, 7),
                               output_zero_point=-128 if relu else None, activation="RELU" if relu else None))
    for k in range(count // 3):
        relu = k % 3 == 1
        cases.append(conv_case(rng, "CONV_2D", (3, 3), [16, 32, 64][k % 3], [2, 32, 7, 16][k % 4], 2,
                               wide=k % 5 == 4, widths=(7, 20), heights=(1, 12),
                               output_zero_point=-128 if relu else None, activation="RELU" if relu else None))
    for in_c, out_c, stride, width, relu in ((32, 16, 1, 8, True), (64, 6, 1, 11, False), (16, 2, 1, 5, False),
                                             (32, 8, 2, 16, True), (16, 4, 2, 9, False)):
        cases.append(conv_case(rng, "CONV_2D", (3, 3), in_c, out_c, stride, padding="SAME", widths=(width, width + 1),
                               heights=(1, 5), output_zero_point=-128 if relu else None,
                               activation="RELU" if relu else None))
    return cases


def depthwise_cases(rng, count):
    # 64 channels and more: a border pixel's window gathered for the assembly loop
    return [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), [4, 8, 12, 16, 32, 36, 64, 68][k % 8], 0,
                      int(rng.integers(1, 3)), int(rng.integers(1, 3)), wide=k % 6 == 5) for k in range(count)]


def planar_depthwise_cases(rng, count):
    """Rows at least PLANAR_MIN_WIDTH outputs wide, stride_w 1, stride_h 1 or 2, any channel count; every second case
    with the output zero point -128 (ReLU-like clamps: the assembly loop without the rounding correction)."""
    return [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), [1, 2, 3, 4, 5, 8, 9][k % 7], 0, 1 + k % 3 // 2,
                      widths=(PLANAR_MIN_WIDTH + 2, PLANAR_MIN_WIDTH + 9), stride_w=1, wide=k % 6 == 5,
                      output_zero_point=-128 if k % 2 else None)
            for k in range(min(count, 14))]  # at most 14: wide inputs cross the UART slowly


def ring_depthwise_cases(rng, count):
    """Channels a multiple of 4, dilation 1, stride_w 1 or 2, every channel narrow and the clamp all of int8 (NONE, or
    RELU with the output zero point -128: the assembly without the rounding correction); small images (run whole)
    and wide or tall ones (through the ring of rows), SAME and VALID."""
    cases = []
    for k in range(min(count, 16)):  # at most 16: wide inputs cross the UART slowly
        relu = k % 2 == 1
        wide = k % 4 >= 2  # past FG_DSP_DW_SMALL_COLUMNS, or past FG_DSP_DW_SMALL_ROWS: the ring
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), [4, 8, 12, 16, 32][k % 5], 0, 1 + k % 3 // 2,
                               stride_w=1 + k % 5 // 3, widths=(26, 40) if wide and k % 8 < 4 else (1, 12),
                               heights=(29, 34) if wide and k % 8 >= 4 else (1, 6),
                               output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE"))
    # small images of stride 1 whose rows are odd: their last pixels paired down the column, kws_ref_model's 25 x 5
    # (27 rows padded, within FG_DSP_DW_SMALL_ROWS) among them
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 1, padding="SAME", widths=(5, 6), heights=(6, 8),
                           output_zero_point=-128, activation="RELU"))
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 1, padding="SAME", widths=(5, 6), heights=(25, 27),
                           output_zero_point=-128, activation="RELU"))
    # small images whose rows end in the triple kernel's passes: 3, 6 (two), 7 and 10 (two) pixels at stride 1
    # (vww_96_int8's 6- and 3-wide layers), and 3 at stride 2 (a pair and a pixel alone), with and without the
    # rounding correction
    for k, (width, stride) in enumerate([(3, 1), (6, 1), (7, 1), (10, 1), (6, 2), (5, 2)]):
        relu = k % 2 == 0
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), [4, 8, 12][k % 3], 0, stride, padding="SAME",
                               widths=(width, width + 1), heights=(1, 8), output_zero_point=-128 if relu else None,
                               activation="RELU" if relu else "NONE"))
    # small images up to FG_DSP_DW_SMALL_COLUMNS x FG_DSP_DW_SMALL_ROWS padded (25 x 28): vww_96_int8's 24 x 24 input
    # of stride 2 (23 to 24 pixels square), and 21 to 23 pixels square at stride 1
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 2, padding="SAME", widths=(23, 25),
                           heights=(23, 25), output_zero_point=-128, activation="RELU"))
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 4, 0, 1, padding="SAME", widths=(21, 24),
                           heights=(21, 24)))
    # wide and tall images through the band's blocks of output rows (5 at stride 2, 9 at stride 1) and a shorter
    # last block: vww_96_int8's 48 x 48 input of stride 2, SAME, and VALID at stride 1
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 4, 0, 2, padding="SAME", widths=(40, 49),
                           heights=(17, 24), output_zero_point=-128, activation="RELU"))
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 1, padding="VALID", widths=(26, 33),
                           heights=(19, 27)))
    # the rows' extension (fg_dsp_dw_extend_rows: eight pixels a pass, then four, a pair and a pixel as the width's
    # low bits say): a band whose blocks extend their image rows in one call between padding rows (SAME at stride 2,
    # 44 or 45 wide: five eights and a four), and small images 7 and 15 wide (four, a pair and a pixel; an eight too)
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 2, padding="SAME", widths=(44, 46),
                           heights=(13, 20), output_zero_point=-128, activation="RELU"))
    for width in (7, 15):
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 4, 0, 1, padding="SAME", widths=(width, width + 1),
                               heights=(3, 9)))
    # small images whose rows of stride 2 end in the triple kernel's passes on the M4 and M33 (FG_DSP_DW_TTAPS2): 6
    # (two triples), 7 (a quad and a triple) and 10 (a quad and two) outputs wide, SAME and VALID, with and without the
    # rounding correction
    for k, (width, padding) in enumerate([(11, "SAME"), (13, "SAME"), (14, "VALID"), (19, "SAME"), (22, "VALID")]):
        relu = k % 2 == 1
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), [8, 12, 4][k % 3], 0, 2, padding=padding,
                               widths=(width, width + 1), heights=(2, 9), output_zero_point=-128 if relu else None,
                               activation="RELU" if relu else "NONE"))
    return cases


def taps_depthwise_cases(rng, count):
    """Channels a multiple of 4, dilation 1, stride_w 1 (stride_h 1 or 2), rows of at least TAPS_MIN_WIDTH outputs
    (odd and even: the pairs after the passes of six and four, an odd row's last output alone), every channel narrow
    and the clamp all of int8 (NONE, or RELU with the output zero point -128: the output stage without the rounding
    correction), SAME and VALID."""
    cases = []
    for k in range(min(count, 10)):  # at most 10: wide inputs cross the UART slowly
        relu = k % 2 == 1
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), [4, 8, 12, 16, 32][k % 5], 0, 1 + k % 3 // 2,
                               stride_w=1, widths=(TAPS_MIN_WIDTH + 2, TAPS_MIN_WIDTH + 26), heights=(1, 6),
                               output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE"))
    # the M4's and M33's passes of six along a ring row: an odd count (31 outputs: five passes, then a lone output),
    # an even one (28: four, two a loop, then a pass of four) and 39 (VALID: six, then a pair and a lone output)
    for width, padding in [(31, "SAME"), (28, "SAME"), (41, "VALID")]:
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 1, stride_w=1, padding=padding,
                               widths=(width, width + 1), heights=(3, 6)))
    return cases + taps_small_cases(rng, count)


def taps_small_cases(rng, count):
    """Small images the taps kernel runs whole (rows of TAPS_SMALL_WIDTHS outputs, SAME, at most TAPS_SMALL_ROWS padded
    rows; the M7's rows of three: the ring kernel): rows of three and five (one pass without the others' outputs, an
    odd width: no right edge word), six (one pass) and twelve (two), the rows' edge pixels as whole words beside the
    padding, 1 to 26 output rows, with and without the rounding correction, 4 to 32 channels."""
    cases = []
    for k in range(min(count, 9)):
        relu, width = k % 2 == 1, TAPS_SMALL_WIDTHS[k % 4]
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), [4, 8, 12, 16, 32][k % 5], 0, 1, stride_w=1,
                               padding="SAME", widths=(width, width + 1), heights=(1, TAPS_SMALL_ROWS - 1),
                               output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE"))
    for height in (6, 7):  # rows of six two a loop (an even count: vww_96_int8's 6 x 6) and one at a time
        cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 1, stride_w=1, padding="SAME", widths=(6, 7),
                               heights=(height, height + 1), output_zero_point=-128, activation="RELU"))
    return cases


def ring_conv_cases(rng, count):
    """3x3 CONV_2D of 1 or 3 input channels (vww's first layer) and one-channel 3x3 depthwise with a multiplier of 4,
    8 or 16 (person_detect's), dilation 1, stride_w 1 or 2, the clamp all of int8, up to 97 padded columns."""
    cases = []
    for k in range(min(count, 12)):  # at most 12: wide inputs cross the UART slowly
        relu = k % 2 == 1
        options = dict(stride_w=1 + k % 5 // 3, widths=(40, 97) if k % 4 == 3 else (1, 12),
                       output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE")
        if k % 3 == 2:
            cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 1, 0, 1 + k % 2, multiplier=[4, 8, 16][k % 3],
                                   **options))
        else:
            cases.append(conv_case(rng, "CONV_2D", (3, 3), [1, 3][k % 2], [4, 8, 12, 16][k % 4], 1 + k % 2,
                                   **options))
    # the M4's and M33's pixel pairs at stride 1 on the widest rows without left padding (VALID, 98 columns: the
    # shifted copy's image column 0 in front of it) and one column narrower (an odd row: its last pixel alone)
    for in_c, width in [(3, 98), (1, 97)]:
        cases.append(conv_case(rng, "CONV_2D", (3, 3), in_c, 8, 1, padding="VALID", widths=(width, width + 1),
                               heights=(3, 5), output_zero_point=-128 if in_c == 1 else None,
                               activation="RELU" if in_c == 1 else "NONE"))
    return cases


def ring_conv_tall_cases(rng):
    """The ring convolution's rows moved up at stride_w 2, where its ring takes the whole buffer (8 rows of three
    input channels, 24 of one) on the M4 and M33: images tall enough to go round it more than once at stride_h 2 and
    1, with and without the ReLU-like clamp; narrow, as their inputs cross the UART."""
    return [conv_case(rng, "CONV_2D", (3, 3), in_c, 8, stride_h, stride_w=2, widths=(5, 12), heights=heights,
                      output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE")
            for in_c, stride_h, heights, relu in [(3, 2, (17, 26), False), (3, 2, (17, 26), True),
                                                  (3, 1, (9, 14), True), (1, 2, (49, 60), True),
                                                  (1, 1, (25, 30), False)]]


def ring_conv_stride2_cases(rng):
    """The M4's and M33's pixel pairs at stride 2, where a pair's two windows share words (B's word k is A's word
    k + in_c), and the rows widened sixteen inputs a step: three input channels (vww's first layer) 6, 11, 16 and 21
    wide (one step; two and three, the loop entered at its second and first step; three and a tail of 15), one
    channel (person_detect's first layer, a one-channel depthwise of multiplier 8, and a convolution) 33 and 48 wide
    (two and three steps), SAME (vww's: the right column padded) and VALID, with and without the ReLU-like clamp."""
    cases = [conv_case(rng, "CONV_2D", (3, 3), 3, 8, 2, padding=padding, widths=(width, width + 1), heights=(3, 6),
                       output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE")
             for width, padding, relu in [(6, "SAME", True), (11, "VALID", False), (16, "SAME", False),
                                          (21, "SAME", True)]]
    cases.append(conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 1, 0, 2, padding="SAME", multiplier=8, widths=(33, 34),
                           heights=(3, 6), output_zero_point=-128, activation="RELU"))
    cases.append(conv_case(rng, "CONV_2D", (3, 3), 1, 4, 2, padding="VALID", widths=(48, 49), heights=(3, 6),
                           activation="NONE"))
    return cases


def one_channel_depthwise_cases(rng, count):
    """One input channel, any filter and multiplier: person_detect's first layer (3x3 s2, multiplier 8)."""
    filters = [(3, 3), (3, 3), (1, 3), (5, 5), (2, 2), (3, 1)]  # 5x5 undilated: a VALID window fits 5 pixels
    return [conv_case(rng, "DEPTHWISE_CONV_2D", filters[k % 6], 1, 0, int(rng.integers(1, 3)),
                      1 if k % 6 == 3 else int(rng.integers(1, 3)), wide=k % 6 == 5,
                      multiplier=[8, 1, 2, 3, 5, 16, 7][k % 7]) for k in range(count)]


def fully_connected_case(rng, depth, outputs, wide=False, relu=False) -> bytes:
    """relu: the output zero point -128 and the activation NONE or RELU (the clamp all of int8: the output stage
    without the rounding correction)."""
    batches, input_scale = int(rng.integers(1, 4)), float(rng.uniform(0.005, 0.1))
    values, scales, bias, output_scale = _weights(rng, (outputs, depth), 0, depth, input_scale, wide)
    b = ModelBuilder("fully_connected")
    x = b.input("x", (batches, depth), "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    zero_point = -128 if relu else int(rng.integers(-128, 128))
    activation = str(rng.choice(ACTIVATIONS[:2] if relu else ACTIVATIONS))
    scales, output_scale = bounded_scales(activation, scales, output_scale)
    inputs = [x, b.constant("w", values, scale=scales[:1], zero_point=0)]
    if bias is not None:
        inputs.append(b.constant("b", bias, scale=[input_scale * scales[0]], zero_point=0))
    y = b.tensor("y", (batches, outputs), "int8", scale=output_scale, zero_point=zero_point)
    b.operator("FULLY_CONNECTED", inputs=inputs, outputs=[y], options={"activation": activation})
    b.output(y)
    return b.build()


def fully_connected_cases(rng, count):
    return [fully_connected_case(rng, CHANNELS[k % len(CHANNELS)] + 8 * int(rng.integers(0, 3)),
                                 int(rng.choice(CHANNELS)), wide=k % 5 == 4, relu=k % 3 == 1) for k in range(count)]


def avg_pool_cases(rng, count):
    """Channels a multiple of 4, windows clipped at the border (SAME), strides 1 to 3, and a global pool (kws's)."""
    filters = [(2, 2), (3, 3), (1, 3), (5, 5), (3, 2)]
    cases = [pool_case(int(rng.integers(1 << 30)), (1 + k % 2, int(rng.integers(5, 9)), int(rng.integers(5, 9)),
                                                    [4, 8, 12, 16, 64][k % 5]),
                       filters[k % 5], 1 + k % 3, "SAME" if k % 2 else "VALID") for k in range(min(count, 15))]
    return [*cases, pool_case(3, (1, 13, 5, 8), (13, 5), 1, "VALID")]


def add_case(rng, shape2=None, relu_128=False) -> bytes:
    """One ADD of random scales and zero points (the output's scale within 2^3 of the sum's natural range); relu_128:
    a RELU whose output zero point is -128 (resnet's: the four-element assembly loop and its tail)."""
    shape = tuple(int(d) for d in rng.integers(1, 6, int(rng.integers(1, 4))))  # small: inputs cross the UART
    scales = [float(np.float32(2.0 ** rng.uniform(-10, 0))) for _ in range(2)]
    zero_points = [int(rng.integers(-128, 128)) for _ in range(2)]
    output_scale = float(np.float32(sum(scales) * 2.0 ** rng.uniform(-3, 3)))
    output_zero_point = -128 if relu_128 else int(rng.integers(-128, 128))
    activation = "RELU" if relu_128 else str(rng.choice(ACTIVATIONS))
    scales, output_scale = bounded_scales(activation, scales, output_scale)
    b = ModelBuilder("add")
    x1 = b.input("x1", shape, "int8", scale=scales[0], zero_point=zero_points[0])
    x2 = b.input("x2", shape2 or shape, "int8", scale=scales[1], zero_point=zero_points[1])
    y = b.tensor("y", shape, "int8", scale=output_scale, zero_point=output_zero_point)
    b.operator("ADD", inputs=[x1, x2], outputs=[y], options={"activation": activation})
    b.output(y)
    return b.build()


def taps_s2_depthwise_cases(rng, count):
    """Stride 2 both ways, channels a multiple of 4, rows of 8, 16 and 24 outputs: SAME from an odd input width (the
    left padding's column in a row's first word) and an even one (the right padding's in its last), VALID from odd and
    even widths; 1 to 11 output rows (the band's blocks of four and a shorter last one, a padding row on top from an
    odd height), with and without the rounding correction, one or two images (conv_case's draw)."""
    shapes = [(15, "SAME", 8), (16, "SAME", 12), (17, "VALID", 4), (31, "SAME", 16), (34, "VALID", 4), (47, "SAME", 8),
              (48, "SAME", 4), (50, "VALID", 4)]
    return [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), channels, 0, 2, padding=padding, widths=(width, width + 1),
                      heights=(2, 22), output_zero_point=-128 if k % 2 == 0 else None,
                      activation="RELU" if k % 2 == 0 else "NONE")
            for k, (width, padding, channels) in enumerate(shapes[:count])]


def add_cases(rng, count):
    return [add_case(rng, relu_128=k % 3 == 1) for k in range(count)]


@needs_qemu
@pytest.mark.parametrize("variant, cases, portable", [
    ("fg_fully_connected_dsp", fully_connected_cases, "fg_fully_connected_folded_s8"),
    # the weights in place: no flash wait states on the QEMU board (staged: test_staged_blocks_bit_exact_on_m4)
    ("fg_conv2d_pointwise_dsp", pointwise_cases, "fg_conv2d_pointwise_s8"),
    ("fg_conv2d_folded_dsp", folded_cases, "fg_conv2d_folded_s8"),
    ("fg_depthwise_conv2d_3x3_dsp", depthwise_cases, "fg_depthwise_conv2d_3x3_s8"),
    ("fg_depthwise_conv2d_planar_dsp", planar_depthwise_cases, "fg_depthwise_conv2d_3x3_s8"),
    ("fg_depthwise_conv2d_3x3_ring_dsp", ring_depthwise_cases, "fg_depthwise_conv2d_3x3_s8"),
    ("fg_depthwise_conv2d_3x3_taps_dsp", taps_depthwise_cases, "fg_depthwise_conv2d_3x3_s8"),
    ("fg_depthwise_conv2d_3x3_taps_s2_dsp", taps_s2_depthwise_cases, "fg_depthwise_conv2d_3x3_s8"),
    ("fg_conv2d_3x3_ring_dsp", ring_conv_cases, "fg_conv2d_folded_s8"),
    ("fg_conv2d_3x3_band_dsp", band_cases, "fg_conv2d_folded_s8"),
    ("fg_conv2d_folded_dsp", one_channel_depthwise_cases, "fg_depthwise_conv2d_one_channel_s8"),
    ("fg_add_dsp", add_cases, "fg_add_s8"),
    ("fg_avg_pool2d_dsp", avg_pool_cases, "fg_avg_pool2d_s8"),
])
def test_variant_bit_exact_on_m4(variant, cases, portable, tmp_path) -> None:
    rng = np.random.default_rng(len(variant.split()[0]))
    functions = assert_batch_bit_exact(cases(rng, 26), "mps2_an386", tmp_path / "build", seed=1,
                                       expect_functions=variant.split())
    assert portable not in functions  # every case met the variant's preconditions


def shallow_pointwise_cases(rng, count):
    """1x1 convolutions of 1 to 32 input channels (4, 8 or 16 input pairs: the short tile stores; in_c 8, 16 and 32
    all of a layer's tiles in one call but on the M7), with and without the rounding correction, odd channel counts
    and short tiles."""
    return [conv_case(rng, "CONV_2D", (1, 1), [8, 16, 1, 5, 9, 13, 32, 24, 17][k % 9], int(rng.choice(CHANNELS[1:])),
                      wide=k % 5 == 4, output_zero_point=-128 if k % 2 else None,
                      activation="RELU" if k % 4 == 1 else None, widths=(1, 8), heights=(1, 5)) for k in range(count)]


@needs_qemu
@pytest.mark.parametrize("board", ["mps2_an386", "mps2_an500", "mps2_an521"])
def test_shallow_pointwise_bit_exact(board, tmp_path) -> None:
    """The pointwise variant on shallow inputs, in place and staged (flash wait states), on the M4, the M7 and the
    M33."""
    rng = np.random.default_rng(16)
    assert_batch_bit_exact(shallow_pointwise_cases(rng, 18), board, tmp_path / "in_place", seed=6,
                           expect_functions=["fg_conv2d_pointwise_dsp"])
    assert_batch_bit_exact(shallow_pointwise_cases(rng, 18), with_flash_wait_states(board), tmp_path / "staged",
                           seed=7, expect_functions=["fg_conv2d_pointwise_staged_dsp"])


def quad_pointwise_cases(rng):
    """1x1 convolutions for the M7's tiles of four pixels (fg_dsp_quad_store_relu_doubled): relu layers (the output
    zero point -128, the clamp all of int8) on depths of 8 to 128 (every tile in one call), of 3 and 5 rounds of 16
    input pairs and of 3 rounds of 32, one image row of 4 to 14 pixels (one or two images: 0 to 3 tiles of three after
    the fours, and too few pixels for a four), and layers that keep the tiles of three (the depth not a multiple of 32,
    an odd out_c, a wide channel, a clamp)."""
    quads = [conv_case(rng, "CONV_2D", (1, 1), in_c, out_c, widths=(width, width + 1), heights=(1, 2),
                       output_zero_point=-128, activation=activation, padding="VALID")
             for in_c, out_c, width, activation in [(32, 2, 4, "NONE"), (64, 16, 13, "RELU"), (160, 34, 7, "NONE"),
                                                     (32, 40, 8, "RELU"), (64, 6, 11, "NONE"), (96, 4, 5, "RELU"),
                                                     (8, 16, 8, "RELU"), (16, 32, 14, "NONE"), (16, 2, 11, "RELU"),
                                                     (128, 4, 7, "RELU"), (192, 6, 4, "RELU")]]
    return quads + [conv_case(rng, "CONV_2D", (1, 1), in_c, out_c, widths=(5, 9), heights=(1, 3), wide=wide,
                              output_zero_point=zero_point, padding="VALID")
                    for in_c, out_c, wide, zero_point in [(48, 8, False, -128), (64, 7, False, -128),
                                                          (32, 8, True, -128), (64, 8, False, None)]]


def quad_folded_cases(rng):
    """Convolutions for the M7's folded tiles of four pixels (fg_dsp_folded_quads): relu layers on windows of 20
    pairs (kws_ref_model's 10x4 stem, 3x3x3 rows padded to words), two rounds of 20 (10x4 on 2 channels), 16 and 32
    (4x4 on 2 and 4 channels), the image copied padded or read in place, or too large to copy (the border's windows
    gathered); pixel counts not a multiple of 4 (tiles of three after the fours) and of one and two images; and a
    window of 24 pairs and a clamp, which keep the tiles of three."""
    return [conv_case(rng, "CONV_2D", filter_hw, in_c, out_c, stride, padding=padding, widths=widths, heights=heights,
                      output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE")
            for filter_hw, in_c, out_c, stride, padding, widths, heights, relu in [
                ((10, 4), 1, 16, 2, "SAME", (9, 10), (14, 15), True),
                ((10, 4), 1, 8, 2, "SAME", (36, 40), (30, 34), True),
                ((10, 4), 1, 4, 2, "SAME", (9, 10), (17, 18), True),
                ((10, 4), 2, 6, 2, "SAME", (6, 9), (12, 16), True),
                ((3, 3), 3, 6, 2, "VALID", (11, 16), (5, 9), True),
                ((4, 4), 2, 4, 1, "SAME", (5, 9), (2, 4), True),
                ((4, 4), 4, 10, 2, "VALID", (9, 14), (6, 9), True),
                ((3, 3), 5, 8, 2, "SAME", (6, 10), (4, 7), True),
                ((10, 4), 1, 16, 2, "SAME", (9, 12), (13, 20), False)]]


@needs_qemu
def test_quad_pointwise_bit_exact_on_m7(tmp_path) -> None:
    """And the folded kernel's tiles of four (quad_folded_cases)."""
    assert_batch_bit_exact(quad_pointwise_cases(np.random.default_rng(47)) + quad_folded_cases(
        np.random.default_rng(48)), "mps2_an500", tmp_path / "build", seed=8,
        expect_functions=["fg_conv2d_pointwise_dsp", "fg_conv2d_folded_dsp"])


@needs_qemu
@pytest.mark.parametrize("board", ["mps2_an386", "mps2_an521"])
def test_ring_conv_ring_of_rows_bit_exact(board, tmp_path) -> None:
    rng = np.random.default_rng(23)
    assert_batch_bit_exact(ring_conv_tall_cases(rng) + ring_conv_stride2_cases(rng), board, tmp_path / "build",
                           seed=4, expect_functions=["fg_conv2d_3x3_ring_dsp"])


@needs_qemu
def test_staged_blocks_bit_exact_on_m4(tmp_path) -> None:
    """The weights staged in RAM (ops/variants/dsp_staged.py) on a board whose flash has wait states (mps2_an386 timed
    as an STM32L4R5's flash): weights that do not fit the stack at once, pixel blocks of 8 to 12 tiles (1x1 128 -> 127
    on 6x6) and of 6 (3x3 24 -> 61 on 8x8 to 10x10), channel blocks staged again for each pixel block, an odd channel
    count, a wide channel, short tiles and two images; and tables staged once for the whole call (the pointwise and
    folded cases of test_variant_bit_exact_on_m4)."""
    rng = np.random.default_rng(23)
    models = [conv_case(rng, "CONV_2D", (1, 1), 128, 127, widths=(6, 7), heights=(6, 7), wide=k == 1,
                        output_zero_point=-128 if k == 0 else None) for k in range(2)]
    models += [conv_case(rng, "CONV_2D", (3, 3), 24, 61, widths=(8, 11), heights=(8, 11), wide=k == 1,
                         output_zero_point=-128 if k == 0 else None) for k in range(2)]
    # a pixel block's tiles in one call of the general stores (fg_dsp_tile_store_doubled_tiles, _relu_doubled_tiles)
    models += [conv_case(rng, "CONV_2D", (1, 1), 96, 127, widths=(6, 7), heights=(6, 7),
                         output_zero_point=-128 if relu else None, activation="RELU" if relu else None)
               for relu in (True, False)]
    models += pointwise_cases(rng, 6) + folded_cases(rng, 6)
    # the band kernel on its table staged whole (16 -> 16 on 12 x 12 to 16 x 16, as pretrainedResnet_quant's 32 x 32)
    # and a block of channel pairs at a time, staged again for each group of output rows: the held pixels' pairs in
    # the block's words (32 -> 32 on 16 x 16 and 17 x 17, as its 16 x 16: groups of six, the last of four or five;
    # 64 -> 64 on 8 x 8, as its 8 x 8: groups of three, six held pixels each, the last group's four flushed at the
    # image's end; at stride 2 on 19 x 19 to 20 x 20, VALID: 9 output rows in groups of three) or in their own array
    # (48 -> 48 on 10 x 10 and 11 x 11: one channel pair a block, groups of four, the last of two or three); images
    # tall enough for the window to pass the band's spare rows, its rows copied back to the top
    band_staged = [(16, 1, "SAME", (12, 17)), (32, 1, "SAME", (16, 17)), (32, 1, "SAME", (17, 18)),
                   (32, 2, "VALID", (19, 21)), (64, 1, "SAME", (8, 9)), (48, 1, "SAME", (10, 12))]
    models += [conv_case(rng, "CONV_2D", (3, 3), in_c, in_c, stride, widths=widths, heights=widths, padding=padding,
                         output_zero_point=-128 if relu else None, activation="RELU" if relu else None)
               for in_c, stride, padding, widths in band_staged for relu in (True, False)]
    assert_batch_bit_exact(models, with_flash_wait_states("mps2_an386"), tmp_path / "build", seed=4,
                           expect_functions=["fg_conv2d_pointwise_staged_dsp", "fg_conv2d_folded_staged_dsp",
                                             "fg_conv2d_3x3_band_dsp"])


@needs_qemu
def test_preconditions_not_met_keep_the_portable_kernels(tmp_path) -> None:
    rng = np.random.default_rng(7)
    models = [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 6, 0),  # channels not a multiple of 4: the Armv7-M variant
              conv_case(rng, "CONV_2D", (1, 1), 700, 3),  # deeper than the tile's buffer (MAX_DEPTH)
              conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0),
              conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 2, 0, multiplier=2),  # two input channels
              add_case(rng, shape2=(1,)),  # broadcasting
              pool_case(5, (1, 4, 4, 6), (2, 2), 2, "VALID")]  # channels not a multiple of 4
    functions = assert_batch_bit_exact(models, "mps2_an386", tmp_path / "build", generation=COMPACT,
                                       expect_functions=["fg_depthwise_conv2d_3x3_planar_s8", "fg_conv2d_pointwise_s8",
                                                         "fg_depthwise_conv2d_3x3_dsp"])
    assert functions.count("fg_depthwise_conv2d_3x3_planar_s8") == 1
    assert "fg_depthwise_conv2d_s8" in functions and "fg_depthwise_conv2d_dsp" not in functions
    assert "fg_add_s8" in functions and "fg_add_dsp" not in functions
    assert "fg_avg_pool2d_s8" in functions and "fg_avg_pool2d_dsp" not in functions


@needs_qemu
def test_variants_bit_exact_on_m7(tmp_path) -> None:
    rng = np.random.default_rng(14)
    models = pointwise_cases(rng, 5) + folded_cases(rng, 5) + depthwise_cases(rng, 5) + one_channel_depthwise_cases(
        rng, 4) + planar_depthwise_cases(rng, 4) + ring_depthwise_cases(rng, 4) + ring_conv_cases(rng, 4)
    models += taps_depthwise_cases(rng, 4)  # the M7's own order of the taps kernel's passes
    models += band_cases(rng, 3)  # the M7 keeps the im2col tile for these (dsp_band.py)
    # a one-channel depthwise the portable lowering leaves to the reference kernel (filter_h > 16)
    models.append(conv_case(rng, "DEPTHWISE_CONV_2D", (17, 1), 1, 0, padding="SAME", multiplier=3))
    # the M7's own order of the tile's passes (FG_CORE_CORTEX_M7): depths padded to 8 k enter the pass of sixteen
    # pairs at each of its four entries (8 k - 1 pairs after the first, mod 16) and go round it up to four times
    models += [conv_case(rng, "CONV_2D", (1, 1), depth, int(rng.choice(CHANNELS[3:])), widths=(3, 5), heights=(1, 3),
                         output_zero_point=-128 if k % 2 else None, activation="RELU" if k % 2 else None)
               for k, depth in enumerate([12, 24, 32, 40, 61, 72, 96, 130])]
    # and of the ring convolution's taps and output stage (stride 2: its pixel pairs): three input channels without
    # the ReLU-like clamp and one with it, which ring_conv_cases does not draw, and one channel without it
    models += [conv_case(rng, "CONV_2D", (3, 3), ic, out_c, stride, stride_w=stride, widths=widths,
                         output_zero_point=-128 if relu else None, activation="RELU" if relu else "NONE")
               for ic, out_c, stride, widths, relu in [(3, 8, 1, (1, 12), False), (3, 12, 2, (40, 97), False),
                                                       (1, 4, 1, (1, 12), True), (1, 16, 2, (40, 97), True),
                                                       (1, 8, 2, (13, 30), False)]]
    # and of the ring depthwise's quad kernel (taps and output stage): stride_w 1 and 2, small images and the ring of
    # rows, with and without the rounding correction, and a small image's column of odd rows (its pixels down it)
    models += [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), in_c, 0, stride, padding=padding, stride_w=stride,
                         widths=widths, heights=heights, output_zero_point=-128 if relu else None,
                         activation="RELU" if relu else "NONE")
               for in_c, stride, padding, widths, heights in [(8, 1, None, (6, 13), (4, 10)),
                                                               (4, 2, None, (9, 13), (6, 10)),
                                                               (4, 1, None, (16, 30), (3, 5)),
                                                               (8, 2, None, (16, 30), (3, 6)),
                                                               (4, 1, "SAME", (5, 6), (6, 10))]
               for relu in (False, True)]
    # and of the triple kernel's pass (FG_DSP_DW_TLINE, FG_DSP_DW_TOUT): small images whose rows end in one or two
    # triples at stride 1 (3 and 6 wide, SAME and VALID), four groups, with and without the rounding correction
    models += [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 16, 0, 1, padding=padding, widths=(width, width + 1),
                         heights=(2, 8), output_zero_point=-128 if relu else None,
                         activation="RELU" if relu else "NONE")
               for width, padding in [(3, "SAME"), (6, "SAME"), (5, "VALID"), (8, "VALID")] for relu in (False, True)]
    # and of the taps kernel's small images' output stage (FG_DSP_DW_TAPS_HEXA_WAVE) with the rounding correction, which
    # taps_small_cases draws for rows of three and six only: rows of five and twelve
    models += [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), 8, 0, 1, stride_w=1, padding="SAME",
                         widths=(width, width + 1), heights=(3, 9), activation="NONE") for width in (5, 12)]
    # and of its M7 rows of five (filled whole, two passes a loop, an odd count entering at the second; LDRD, the
    # channel's end kept in lr): kws_ref_model's 25 rows, 26, 8 and 1, with and without the rounding correction, one
    # and two images, three and five groups
    models += [conv_case(rng, "DEPTHWISE_CONV_2D", (3, 3), in_c, 0, 1, stride_w=1, padding="SAME", widths=(5, 6),
                         heights=(rows, rows + 1), output_zero_point=-128 if relu else None,
                         activation="RELU" if relu else "NONE", batches=batches)
               for in_c, rows, relu, batches in [(12, 25, True, 2), (20, 8, False, 1), (12, 1, False, 2),
                                                 (20, 26, True, 1)]]
    functions = assert_batch_bit_exact(models, "mps2_an500", tmp_path / "build", seed=2,
                                       expect_functions=["fg_conv2d_pointwise_dsp", "fg_conv2d_folded_dsp",
                                                         "fg_depthwise_conv2d_3x3_dsp", "fg_depthwise_conv2d_dsp",
                                                         "fg_depthwise_conv2d_planar_dsp",
                                                         "fg_depthwise_conv2d_3x3_ring_dsp", "fg_conv2d_3x3_ring_dsp",
                                                         "fg_depthwise_conv2d_3x3_taps_dsp"])
    assert "fg_conv2d_3x3_band_dsp" not in functions


@needs_qemu
def test_variants_bit_exact_on_m33(tmp_path) -> None:
    """Armv8-M Mainline with the DSP extension (mps2_an521's CPU 1): every DSP variant in one firmware."""
    rng = np.random.default_rng(33)
    models = (pointwise_cases(rng, 4) + folded_cases(rng, 4) + depthwise_cases(rng, 4) + planar_depthwise_cases(rng, 3)
              + ring_depthwise_cases(rng, 4) + ring_conv_cases(rng, 4) + one_channel_depthwise_cases(rng, 3)
              + taps_depthwise_cases(rng, 3) + band_cases(rng, 4)
              + fully_connected_cases(rng, 4)
              + add_cases(rng, 3) + avg_pool_cases(rng, 3)[:3])
    assert_batch_bit_exact(models, "mps2_an521", tmp_path / "build", seed=3,
                           expect_functions=["fg_conv2d_pointwise_dsp", "fg_conv2d_folded_dsp",
                                             "fg_depthwise_conv2d_3x3_dsp", "fg_depthwise_conv2d_planar_dsp",
                                             "fg_depthwise_conv2d_3x3_ring_dsp", "fg_conv2d_3x3_ring_dsp",
                                             "fg_depthwise_conv2d_3x3_taps_dsp", "fg_conv2d_3x3_band_dsp",
                                             "fg_fully_connected_dsp", "fg_add_dsp",
                                             "fg_avg_pool2d_dsp"])


def s4_conv_case(rng, in_c: int, out_c: int, window: tuple[int, int], relu: bool,
                 out_scale: float | None = None) -> bytes:
    """One CONV_2D with 4-bit per-channel weights on a 2 to 4 x 3 to 7 input, SAME padding: with relu, the output zero
    point -128 and RELU (the relu tile store), else a random zero point and no activation (the clamping one);
    out_scale: the output's instead of one that spreads the outputs over the int8 range."""
    b = ModelBuilder("conv_s4")
    shape = (1, int(rng.integers(2, 5)), int(rng.integers(3, 8)), in_c)
    x = b.input("x", shape, "int8", scale=0.05, zero_point=int(rng.integers(-20, 20)))
    scales = [float(s) for s in rng.uniform(0.01, 0.1, out_c)]
    w = b.constant("w", rng.integers(-8, 8, (out_c, *window, in_c)).astype(np.int8), scales, int4=True)
    bias = b.constant("b", rng.integers(-300, 300, out_c).astype(np.int32), [0.05 * s for s in scales])
    spread = 0.05 * float(np.mean(scales)) * 40 * np.sqrt(in_c * window[0] * window[1])
    y = b.tensor("y", (*shape[:3], out_c), "int8", scale=spread if out_scale is None else out_scale,
                 zero_point=-128 if relu else int(rng.integers(-20, 20)))
    b.operator("CONV_2D", [x, w, bias], [y], {"padding": "SAME", "activation": "RELU" if relu else "NONE"})
    b.output(y)
    return b.build()


@needs_qemu
def test_tile_store_rounds_bit_exact_on_m33(tmp_path) -> None:
    """The M33's tile stores: rounds of 32 input pairs (fg/isa/dsp.h's FG_DSP_ROUND_PAIRS) entered at each of the
    round's eight entries (the pairs after the first, % 32: 3, 7, .., 31) and over two and more rounds, and the
    straight stores of 32 and 64 pairs (FG_DSP_TILE_SHORT_32, _64; depths of 2 * pairs and less; the pointwise and
    folded kernels), the relu's (output zero point -128, the clamp all of int8; two channel pairs a round from 16
    pairs on) and the clamping's."""
    rng = np.random.default_rng(34)
    models = [conv_case(rng, "CONV_2D", (1, 1), in_c, int(rng.choice([2, 6, 16])), widths=(3, 6), heights=(1, 3),
                        output_zero_point=-128 if k % 2 == 0 else None, activation="RELU" if k % 2 == 0 else None)
              for k, in_c in enumerate([72, 80, 24, 96, 40, 48, 56, 192, 136, 200, 64, 60, 127, 128, 124, 63])]
    # the relu's two channel pairs a round at 16, 32 and 64 pairs: an odd and an even count of channel pairs
    models += [conv_case(rng, "CONV_2D", (1, 1), in_c, out_c, widths=(3, 6), heights=(1, 3), output_zero_point=-128,
                         activation="RELU") for in_c in (32, 62, 128) for out_c in (6, 16)]
    # the folded kernel's 3x3 windows of 7 and 14 channels, 10 outputs (rows not padded to words): 32 and 64 pairs
    # (fg_dsp_tile_job chooses for it too)
    models += [conv_case(rng, "CONV_2D", (3, 3), in_c, 10, 1, widths=(3, 6), heights=(3, 5), padding="SAME",
                         output_zero_point=-128 if relu else None, activation="RELU" if relu else None)
               for in_c in (7, 14) for relu in (True, False)]
    assert_batch_bit_exact(models, "mps2_an521", tmp_path / "build", seed=4,
                           expect_functions=["fg_conv2d_pointwise_dsp", "fg_conv2d_folded_dsp"])
    # and on the weights staged in blocks (the U575's flash: 4 wait states per 16 bytes), as vww_96_int8's 6 x 6 layers
    # (a block's whole tiles in one call of the stores of 32 and 64 pairs, FG_DSP_SHORT_NEXT_X: 128 -> 127, 64 -> 250)
    staged = [conv_case(rng, "CONV_2D", (1, 1), in_c, out_c, widths=(6, 7), heights=(6, 7),
                        output_zero_point=-128 if relu else None, activation="RELU" if relu else None)
              for in_c, out_c in [(128, 127), (64, 64), (64, 250)] for relu in (True, False)]
    # the folded kernel's 3x3 windows of 14 channels (64 pairs) staged in blocks, its tiles one call a block too
    staged.append(conv_case(rng, "CONV_2D", (3, 3), 14, 250, widths=(6, 7), heights=(6, 7), padding="SAME",
                            output_zero_point=-128, activation="RELU"))
    assert_batch_bit_exact(staged, with_flash_wait_states("mps2_an521", 4, 16), tmp_path / "staged", seed=5,
                           expect_functions=["fg_conv2d_pointwise_staged_dsp", "fg_conv2d_folded_staged_dsp"])


S4_POINTWISE = [(12, 9, False), (64, 40, True), (252, 24, False), (128, 250, True)]  # in_c, out_c, relu


def s4_pointwise_cases(rng) -> list[bytes]:
    """fg_conv2d_s4_dsp's pointwise paths (S4_POINTWISE): the weights unpacked whole (doubled) and run as the int8
    pointwise kernel (12 -> 9: an odd out_c, the output stages staged one word on, a depth of 8 q + 4; 64 -> 40 relu),
    in pixel and channel blocks (252 -> 24: a depth of 8 q + 4; 128 -> 250: 64 pairs, the M33's stores a block's
    tiles a call), and 8 -> 6 with a left shift (wide channels: the weights unpacked as they are, not doubled)."""
    models = [s4_conv_case(rng, in_c, out_c, (1, 1), relu) for in_c, out_c, relu in S4_POINTWISE]
    return [*models, s4_conv_case(rng, 8, 6, (1, 1), False, out_scale=0.0004)]


@needs_qemu
@pytest.mark.parametrize("board", ["mps2_an386", "mps2_an521"])
def test_4bit_pointwise_paths_bit_exact(board, tmp_path) -> None:
    """s4_pointwise_cases on the M4 (fg_dsp_block_tiles a tile a call) and the M33 (its stores of 32 and 64 pairs)."""
    assert_batch_bit_exact(s4_pointwise_cases(np.random.default_rng(61)), board, tmp_path / "build", seed=6,
                           expect_functions=["fg_conv2d_s4_dsp"])


@needs_qemu
def test_4bit_tile_stores_bit_exact_on_m7(tmp_path) -> None:
    """fg_conv2d_s4_dsp on the M7 (its blocks' tiles each by fg_dsp_gemm_3_strided on doubled weights, a pointwise
    layer whose weights fit by the int8 kernel's four-pixel tiles where they apply): the relu's and the clamping's
    stores, depths padded to 8 k entering the pass of sixteen pairs at each of its four entries, and
    s4_pointwise_cases."""
    rng = np.random.default_rng(47)
    models = [s4_conv_case(rng, in_c, int(rng.choice(CHANNELS[3:])), window, relu)
              for in_c, window in [(8, (1, 1)), (24, (1, 1)), (48, (1, 1)), (64, (1, 1)), (3, (3, 3))]
              for relu in (True, False)]
    models += s4_pointwise_cases(rng)
    assert_batch_bit_exact(models, "mps2_an500", tmp_path / "build", seed=5, expect_functions=["fg_conv2d_s4_dsp"])


def winograd_cases(rng, count):
    """3x3 stride 1 where fg_conv2d_3x3_winograd_dsp is chosen: pretrainedResnet_quant's shapes (32 x 32 16 -> 16,
    16 x 16 32 -> 32, 8 x 8 64 -> 64) and smaller ones (8 x 12 16 -> 16, VALID 12 x 10 16 -> 16, 8 x 8 32 -> 8,
    6 x 8 24 -> 16, 6 x 6 64 -> 10, 4 x 8 32 -> 32; 8 x 8 8 -> 8 is not: its transforms do not pay), SAME and VALID,
    the relu clamp (output zero point -128) and none, input zero points of both signs, per-channel and per-tensor
    scales, wide channels (every fifth case), weights of only -128, -127 and 127 (every fourth), one or two images;
    blocks of three tiles across tile rows and short last blocks (rows of 16, 8, 6, 5, 4, 3 and 2 tiles)."""
    shapes = [(16, 16, (8, 12), "SAME"), (16, 16, (12, 10), "VALID"), (32, 8, (8, 8), "SAME"),
              (24, 16, (6, 8), "SAME"), (64, 10, (6, 6), "SAME"), (32, 32, (4, 8), "SAME"), (64, 64, (8, 8), "SAME"),
              (32, 32, (16, 16), "SAME"), (16, 16, (32, 32), "SAME")]
    cases = []
    for k in range(count):
        in_c, out_c, (height, width), padding = shapes[k % len(shapes)]
        relu = k % 2 == 0
        case = conv_case(rng, "CONV_2D", (3, 3), in_c, out_c, 1, padding=padding, widths=(width, width + 1),
                         heights=(height, height + 1), wide=k % 5 == 4, output_zero_point=-128 if relu else None,
                         activation="RELU" if relu else "NONE")
        cases.append(case if k % 4 != 3 else extreme_weights(case))
    return cases


def with_filter(model: bytes, values) -> bytes:
    """The model with its filter's int8 values replaced by values(count) (TFLite's filter tensor is the only one of
    3 x 3 x in_c x out_c bytes)."""
    from firmware_gen.frontend.tflite_reader import read_model  # noqa: PLC0415

    graph = read_model(model)
    weights = next(t for t in graph.tensors if t.data is not None and len(t.shape) == 4)
    data = np.asarray(weights.data, dtype=np.int8).tobytes()
    start = model.find(data)
    assert start >= 0 and model.find(data, start + 1) < 0
    return model[:start] + np.asarray(values(len(data)), np.int8).tobytes() + model[start + len(data):]


def extreme_weights(model: bytes) -> bytes:
    """The model with its filter's int8 values replaced by -128, -127 and 127."""
    return with_filter(model, lambda n: np.random.default_rng(n).choice(np.array([-128, -127, 127], np.int8), n))


@needs_qemu
@pytest.mark.parametrize("board, waits", [("mps2_an386", None), ("mps2_an521", None), ("mps2_an521", (4, 16)),
                                         ("mps2_an500", None)])
def test_winograd_bit_exact(board, waits, tmp_path) -> None:
    """fg_conv2d_3x3_winograd_dsp on the M4, the M33 and the M7 (its own order of the products; every case chooses
    the kernel), every output equal to TFLM's; U' read in place, and (the U575's flash: 4 wait states per 16 bytes)
    staged on the stack where it fits."""
    rng = np.random.default_rng(22)
    timed = with_flash_wait_states(board, *waits) if waits else board
    functions = assert_batch_bit_exact(winograd_cases(rng, 12), timed, tmp_path / "build", seed=9,
                                       expect_functions=["fg_conv2d_3x3_winograd_dsp"])
    assert set(functions) == {"fg_conv2d_3x3_winograd_dsp"}


@needs_qemu
def test_band_staged_beside_winograd_bit_exact_on_m4(tmp_path, monkeypatch) -> None:
    """test_staged_blocks_bit_exact_on_m4's band cases that fg_conv2d_3x3_winograd_dsp now takes (32 -> 32 on
    16 x 16, 64 -> 64 on 8 x 8, 48 -> 48 on 10 x 10, and their odd heights) kept on the band by setting Winograd's
    estimate aside, the rows as wide as there: its table staged a block of channel pairs at a time, the held pixels'
    pairs in the block's words or in their own array, groups of output rows."""
    rng = np.random.default_rng(24)
    shapes = [(32, (16, 17), (17, 18)), (64, (8, 9), (9, 10)), (48, (10, 11), (11, 12))]
    models = [conv_case(rng, "CONV_2D", (3, 3), in_c, in_c, 1, widths=widths, heights=heights, padding="SAME",
                        output_zero_point=-128 if relu else None, activation="RELU" if relu else None)
              for in_c, widths, heights in shapes for relu in (True, False)]
    monkeypatch.setattr(dsp_winograd, "winograd_cycles", lambda p, isa: math.inf)
    functions = assert_batch_bit_exact(models, with_flash_wait_states("mps2_an386"), tmp_path / "build", seed=8,
                                       expect_functions=["fg_conv2d_3x3_band_dsp"])
    assert set(functions) == {"fg_conv2d_3x3_band_dsp"}


def _winograd_fits_on(board: Board, out_hw: tuple[int, int], in_c: int, out_c: int) -> bool:
    p = {"batches": 2, "in_c": in_c, "out_c": out_c, "out_h": out_hw[0], "out_w": out_hw[1], "filter_h": 3,
         "filter_w": 3, "stride_h": 1, "stride_w": 1, "dilation_h": 1, "dilation_w": 1}
    return winograd_fits(p, board.isa)


SWEEP_MACS = 750_000  # a case's multiply-accumulates at most: the batch's QEMU run a few seconds
# The largest in_c the kernel is offered: it replaces fg_conv2d_folded_s8, which takes windows of at most
# FG_CONV_GATHER_TAPS (576, fg/conv2d.h) taps, 9 x 64 (above: fg_conv2d_s8, no variant).
REACHABLE_IN_C = 64


def winograd_sweep_cases(rng, count: int, board: Board) -> list[bytes]:
    """`count` random layers over fg_conv2d_3x3_winograd_dsp's whole precondition on `board` (winograd_fits: out_h 1..34
    and out_w 3..34 of either parity, odd ones a last tile row or column of one output; in_c a multiple of 8 up to
    REACHABLE_IN_C, out_c even up to 64), SAME and VALID, one or two images, the relu clamp (output zero point -128) or
    a random activation, wide channels (a dead channel's bias, multipliers >= 1/2) in a quarter, conv_case's per-channel
    and per-tensor scales and input zero points; a case at most SWEEP_MACS."""
    cases = []
    while len(cases) < count:
        padding = str(rng.choice(["SAME", "VALID"]))
        out_hw = (int(rng.integers(1, 35)), int(rng.integers(3, 35)))
        in_c, out_c = 8 * int(rng.integers(1, REACHABLE_IN_C // 8 + 1)), 2 * int(rng.integers(1, 33))
        if not _winograd_fits_on(board, out_hw, in_c, out_c) or 9 * out_hw[0] * out_hw[1] * in_c * out_c > SWEEP_MACS:
            continue
        edge = 2 if padding == "VALID" else 0
        relu = rng.random() < 0.4
        cases.append(conv_case(rng, "CONV_2D", (3, 3), in_c, out_c, 1, padding=padding,
                               heights=(out_hw[0] + edge, out_hw[0] + edge + 1),
                               widths=(out_hw[1] + edge, out_hw[1] + edge + 1), wide=rng.random() < 0.25,
                               output_zero_point=-128 if relu else None, activation="RELU" if relu else None))
    return cases


def bound_pattern(shape: tuple[int, ...]) -> np.ndarray:
    """Rows and columns signed +, +, -, - (period 4: every tile's window, 2 apart, the same up to its sign) at 127
    and -128: each tile's B^T d B at |512| on 9 of its 16 positions, every channel alike."""
    signs = np.array([1, 1, -1, -1])
    grid = np.outer(signs[np.arange(shape[1]) % 4], signs[np.arange(shape[2]) % 4])
    return np.broadcast_to(np.where(grid > 0, 127, -128).astype(np.int8)[None, :, :, None], shape).copy()


def winograd_bound_cases(rng, board: Board) -> tuple[list[bytes], list]:
    """Cases at the kernel's int32 bound as far as the kernel is offered (REACHABLE_IN_C; MAX_IN_C's bound is
    test_dsp_winograd.py's, on the host) and `board`'s stack allows: weights all
    -128 or all 127 (|U'| at 1152), inputs all -128 (its input zero point -128: the raw sums near their bound, the
    folded bias cancelling them, outputs within the clamp) or bound_pattern (|B^T d B| at 512); with their inputs
    (one per case: a pattern of the input's shape)."""
    in_c = max(c for c in range(8, REACHABLE_IN_C + 1, 8) if _winograd_fits_on(board, (8, 6), c, 8))
    all_low = lambda shape: np.full(shape, -128, np.int8)  # noqa: E731
    models, inputs = [], []
    for weight, pattern, zero_point, padding in [(-128, all_low, -128, "SAME"), (127, all_low, -128, "VALID"),
                                                 (-128, bound_pattern, 0, "SAME"), (127, bound_pattern, -128, "SAME"),
                                                 (-128, bound_pattern, None, "VALID")]:
        edge = 2 if padding == "VALID" else 0
        model = conv_case(rng, "CONV_2D", (3, 3), in_c, 8, 1, padding=padding, heights=(8 + edge, 9 + edge),
                          widths=(6 + edge, 7 + edge), input_zero_point=zero_point)
        models.append(with_filter(model, lambda n, weight=weight: np.full(n, weight, np.int8)))
        inputs.append(pattern)
    return models, inputs


@needs_qemu
@pytest.mark.parametrize("board, waits", [("mps2_an386", None), ("mps2_an521", None), ("mps2_an521", (4, 16)),
                                         ("mps2_an500", None)])
def test_winograd_random_sweep_bit_exact(board, waits, tmp_path, monkeypatch) -> None:
    """fg_conv2d_3x3_winograd_dsp forced on every layer it fits (its estimate against the band's set aside) over 36
    seeded random layers and winograd_bound_cases, one firmware a board (and the U575's flash timing: U' staged),
    every output equal to TFLM's."""
    timed = with_flash_wait_states(board, *waits) if waits else load_board(board)
    rng = np.random.default_rng(41)
    bound_models, bound_inputs = winograd_bound_cases(rng, timed)
    models = winograd_sweep_cases(rng, 36, timed) + bound_models
    drawn_inputs = batched.random_inputs

    def inputs(graph, seed=0):
        arrays = drawn_inputs(graph, seed)
        assert len(arrays) == len(models)
        first = len(models) - len(bound_inputs)
        return arrays[:first] + [pattern(a.shape) for a, pattern in zip(arrays[first:], bound_inputs, strict=True)]

    monkeypatch.setattr(batched, "random_inputs", inputs)
    monkeypatch.setattr(dsp_winograd, "band_cycles", lambda p: math.inf)
    functions = assert_batch_bit_exact(models, timed, tmp_path / "build", seed=10)
    assert set(functions) == {"fg_conv2d_3x3_winograd_dsp"}
