"""4-bit weights on the QEMU boards of each ISA class (Armv7-M mps2_an385, DSP mps2_an386, MVE mps3_an547, Armv6-M
mps2_an385_armv6m): the synthetic w4a8 autoencoder, ai-edge-quantizer's w4a8 CNN (tests/fixtures/ai_edge_quantizer)
and single-operator CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED cases whose channel runs start and end inside a byte,
that reach the vector loops (16 and 32 taps on MVE, 8 on DSP) and their tails, and a window too large to gather, all
in one firmware per board and bit-exact with TFLM; and the autoencoder, whose int8 twin does not fit, on
qemu_cortex_m3."""

from __future__ import annotations

import numpy as np
import pytest
from batched import assert_batch_bit_exact
from target_fixtures import needs_qemu

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.errors import DoesNotFitError
from firmware_gen.modelgen.autoencoder_w4 import dense_autoencoder_w4
from firmware_gen.modelgen.writer import ModelBuilder

from conftest import REPO

pytestmark = [needs_qemu, pytest.mark.qemu]


def _case(seed: int, opcode: str, in_c: int, channels: int, filter_hw: tuple[int, int] = (3, 3), stride: int = 1,
          dilation: int = 1, padding: str = "SAME", per_channel: bool = True, out_scale: float | None = None,
          rows: int = 1, out_zp: int | None = None, extreme: bool = False) -> bytes:
    """CONV_2D (channels: output channels), DEPTHWISE_CONV_2D (channels: depth multiplier) on a 5x6 image, or
    FULLY_CONNECTED (channels: units) on `rows` rows of in_c inputs, with 4-bit weights; out_scale, out_zp: the
    output's, instead of a scale that spreads the outputs over the int8 range and a random zero point; extreme: the
    weights -8 and 7 only."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder(opcode.lower())
    input_shape = (rows, in_c) if opcode == "FULLY_CONNECTED" else (1, 5, 6, in_c)
    x = b.input("x", input_shape, "int8", scale=0.05, zero_point=int(rng.integers(-128, 128)))
    options: dict = {"activation": "RELU" if seed % 2 else "NONE"}
    if opcode == "FULLY_CONNECTED":
        shape, axis, out_shape = (channels, in_c), 0, (rows, channels)
    else:
        options.update(padding=padding, stride_h=stride, stride_w=stride, dilation_h=dilation, dilation_w=dilation)
        span = [(5 + stride - 1) // stride, (6 + stride - 1) // stride]
        if padding == "VALID":
            span = [(n - dilation * (f - 1) - 1) // stride + 1 for n, f in zip((5, 6), filter_hw, strict=True)]
        if opcode == "CONV_2D":
            shape, axis, out_c = (channels, *filter_hw, in_c), 0, channels
        else:
            options["depth_multiplier"] = channels
            shape, axis, out_c = (1, *filter_hw, in_c * channels), 3, in_c * channels
        out_shape = (1, *span, out_c)
    out_c = shape[axis]
    scales = [float(s) for s in rng.uniform(0.01, 0.1, out_c if per_channel else 1)]
    values = rng.choice([-8, 7], shape) if extreme else rng.integers(-8, 8, shape)
    w = b.constant("w", values.astype(np.int8), scales, axis=axis, int4=True)
    bias = b.constant("b", rng.integers(-300, 300, out_c).astype(np.int32), [0.05 * s for s in scales])
    spread = 0.05 * float(np.mean(scales)) * 40 * np.sqrt(np.prod(shape) / out_c)
    y = b.tensor("y", out_shape, "int8", scale=spread if out_scale is None else out_scale,
                 zero_point=int(rng.integers(-20, 20)) if out_zp is None else out_zp)
    b.operator(opcode, [x, w, bias], [y], options)
    b.output(y)
    return b.build()


def _cases() -> list[bytes]:
    return [
        _case(1, "CONV_2D", 3, 5), _case(2, "CONV_2D", 5, 7, (3, 2), stride=2, per_channel=False),
        _case(3, "CONV_2D", 1, 3, (1, 1)), _case(4, "CONV_2D", 7, 16, (1, 1), padding="VALID"),
        _case(5, "CONV_2D", 3, 4, dilation=2, padding="VALID"), _case(12, "CONV_2D", 9, 6, stride=2),
        _case(13, "CONV_2D", 33, 5, (1, 1)), _case(14, "CONV_2D", 71, 3, per_channel=False),
        _case(6, "DEPTHWISE_CONV_2D", 5, 1), _case(7, "DEPTHWISE_CONV_2D", 3, 3, stride=2, per_channel=False),
        _case(8, "DEPTHWISE_CONV_2D", 17, 1, (5, 5), dilation=2), _case(9, "DEPTHWISE_CONV_2D", 1, 5, (2, 3)),
        _case(15, "DEPTHWISE_CONV_2D", 20, 1, stride=2), _case(16, "DEPTHWISE_CONV_2D", 8, 1, (5, 5)),
        _case(10, "FULLY_CONNECTED", 33, 17, per_channel=False),
        _case(11, "FULLY_CONNECTED", 64, 16, per_channel=False),
        # whole words of channels: the Armv7-M windows by rows with sliding sums, the DSP windows extended in place;
        # odd and over-16 channel counts, several blocks of unpacked channel pairs and of pixels, a pointwise layer
        _case(17, "CONV_2D", 8, 13), _case(18, "CONV_2D", 32, 7, per_channel=False),
        _case(19, "CONV_2D", 8, 18, (1, 1)), _case(20, "CONV_2D", 4, 9, stride=2, padding="VALID"),
        _case(21, "FULLY_CONNECTED", 300, 9, per_channel=False),
        # output stages that are not one SMLAL (a shift of -1, a left shift): TFLite's arithmetic in the variants
        _case(22, "CONV_2D", 4, 6, per_channel=False, out_scale=0.004),
        _case(23, "FULLY_CONNECTED", 16, 8, per_channel=False, out_scale=0.001),
        # 3x3 depthwise, whole groups of four channels, no clamp: the DSP ring kernel on unpacked nibbles
        _case(24, "DEPTHWISE_CONV_2D", 8, 1), _case(26, "DEPTHWISE_CONV_2D", 12, 1, stride=2, per_channel=False),
        # the DSP FULLY_CONNECTED: three rows of 8 inputs (zero pairs to the 16-depth pass), a clamp from the zero
        # point -128 with RELU, 18 units (groups of four and a half) of 40, 600 inputs of weights -8 and 7 (sums split
        # every 496 depths)
        _case(28, "FULLY_CONNECTED", 8, 5, per_channel=False, rows=3),
        _case(29, "FULLY_CONNECTED", 40, 18, per_channel=False, out_zp=-128),
        _case(30, "FULLY_CONNECTED", 600, 6, per_channel=False, extreme=True),
        # no clamp: Armv7-M's channel-pair words expanded to paired words; 1x1, stride 1: outputs kept (fewer out than
        # in) or inputs copied, a last group short of eight channels, a layer deeper than one expansion, two passes
        _case(30, "CONV_2D", 33, 13, (1, 1), per_channel=False), _case(32, "CONV_2D", 5, 21, (1, 1)),
        _case(34, "CONV_2D", 300, 9, (1, 1), per_channel=False),
        _case(36, "CONV_2D", 150, 140, (1, 1), padding="VALID"),
        # other windows the same way from slabs of input rows (cases 2, 12, 18 and 20 too): 1x1 at stride 2, a window
        # of more taps than one expansion in three passes of two output rows
        _case(38, "CONV_2D", 8, 12, (1, 1), stride=2), _case(40, "CONV_2D", 150, 5, (3, 1)),
    ]


# The kernels each board's batch must reach: its ISA class's variants, and the portable ones where no variant takes
# the layer (a window of more taps than the variants gather, depthwise filters other than 3x3).
PLANAR = "fg_depthwise_conv2d_3x3_planar_s4"  # Armv7-M: mps2_an385 and mps2_an386 (MVE has its own)
ARMV7M = ["fg_conv2d_s4", "fg_conv2d_s4_armv7m", "fg_conv2d_pointwise_expanded_fused_s4", "fg_conv2d_expanded_fused_s4",
          "fg_depthwise_conv2d_s4", PLANAR, "fg_fully_connected_s4_armv7m"]
EXPECTED = {"mps2_an385": ARMV7M,
            "mps2_an386": ["fg_conv2d_s4", "fg_conv2d_s4_dsp", "fg_depthwise_conv2d_s4", PLANAR,
                           "fg_depthwise_conv2d_3x3_ring_s4_dsp", "fg_fully_connected_s4_dsp"],
            "mps3_an547": ["fg_conv2d_s4_mve", "fg_conv2d_pointwise_s4_mve", "fg_depthwise_conv2d_s4",
                           "fg_depthwise_conv2d_3x3_s4_mve", "fg_fully_connected_s4_mve"],
            "mps2_an385_armv6m": ["fg_conv2d_s4", "fg_conv2d_s4_armv6m", "fg_depthwise_conv2d_s4",
                                  "fg_depthwise_conv2d_s4_armv6m", "fg_fully_connected_s4_armv6m"]}


@pytest.mark.parametrize("board", EXPECTED)
def test_4bit_weights_are_bit_exact_on_each_isa_class(board, tmp_path):
    ai_edge = (REPO / "tests" / "fixtures" / "ai_edge_quantizer" / "w4a8_cnn.tflite").read_bytes()
    assert_batch_bit_exact([dense_autoencoder_w4(), ai_edge, *_cases()], board, tmp_path, seed=3,
                           expect_functions=EXPECTED[board])


def _chain(channels: int, side: int) -> bytes:
    """1x1 CONV_2D, 3x3 DEPTHWISE_CONV_2D, 1x1 CONV_2D on side x side x channels, 4-bit weights: the depthwise
    layer's output may overlap its input."""
    rng = np.random.default_rng(channels)
    b = ModelBuilder("chain")
    shape = (1, side, side, channels)
    previous = b.input("x", shape, "int8", scale=0.05, zero_point=-3)
    for k, filter_shape in enumerate([(channels, 1, 1, channels), (1, 3, 3, channels), (channels, 1, 1, channels)]):
        w = b.constant(f"w{k}", rng.integers(-8, 8, filter_shape).astype(np.int8), scale=0.1, int4=True)
        bias = b.constant(f"b{k}", rng.integers(-300, 300, channels).astype(np.int32), scale=0.005 * 4 ** k)
        y = b.tensor(f"y{k}", shape, "int8", scale=0.02 * 4 ** (k + 1), zero_point=-3)
        options = {"padding": "SAME", **({"depth_multiplier": 1} if k == 1 else {})}
        b.operator("DEPTHWISE_CONV_2D" if k == 1 else "CONV_2D", [previous, w, bias], [y], options)
        previous = y
    b.output(previous)
    return b.build()


def test_the_dsp_ring_kernel_on_4bit_weights_with_its_output_over_its_input(tmp_path):
    """The planner puts the depthwise output W + 2 pixels and a little before its input (16-byte offsets): by a whole
    number of pixels with 20 channels (the ring runs), not with 12 (the planar kernel's pixel order runs)."""
    for channels, side, whole_pixels in ((12, 8, False), (20, 6, True)):
        deployment = prepare(_chain(channels, side), f"chain{channels}.tflite", "mps2_an386",
                             out_dir=tmp_path / str(channels))
        graph, plan = deployment.compiled.graph, deployment.compiled.plan
        depthwise = graph.operators[1]
        assert deployment.compiled.calls[depthwise.index].function == "fg_depthwise_conv2d_3x3_ring_s4_dsp"
        apart = plan.offset_of(depthwise.inputs[0]) - plan.offset_of(depthwise.outputs[0])
        assert 0 < apart < plan.buffer_of(depthwise.outputs[0]).size and (apart % channels == 0) == whole_pixels
        bound = deployment.firmware.stack
        assert bound is not None and bound.exact, bound and bound.problems
        inputs = random_inputs(deployment.graph, 5)
        result = run(deployment, inputs)
        assert all(outputs_equal_oracle(_chain(channels, side), inputs, result.outputs, len(graph.tensors)))


def test_the_w4a8_autoencoder_fits_qemu_cortex_m3_where_its_int8_twin_does_not(tmp_path):
    assert_batch_bit_exact([dense_autoencoder_w4()], "qemu_cortex_m3", tmp_path / "w4", seed=4,
                           expect_functions=["fg_fully_connected_s4_armv7m"])
    with pytest.raises(DoesNotFitError, match="does not fit"):
        prepare(dense_autoencoder_w4(int4=False), "ad_w8a8.tflite", "qemu_cortex_m3", out_dir=tmp_path / "int8")
