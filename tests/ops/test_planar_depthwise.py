"""The Armv7-M planar 3x3 depthwise variant (fg_depthwise_conv2d_3x3_planar_s8) forced on the host: its C outside the
Thumb-2 loops (bands of a stack plane, the output stage, the raster-order fallback) bit-exact with TFLM, and the
layers it refuses left to the portable kernel. The Thumb-2 loops run in tests/target/test_variants_armv7m.py."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_fast_variants import CHANNELS, _chain_model, variant_cases
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import ARMV7M, DSP, Isa
from firmware_gen.ops import lower
from firmware_gen.ops.variants.dsp_taps import TAPS_SMALL_ROWS, taps_fits
from firmware_gen.ops.variants.dsp_taps_s2 import taps_s2_fits

ARMV7 = Isa(frozenset({ARMV7M}))
PLANAR = "fg_depthwise_conv2d_3x3_planar_s8"
EXAMPLES = min(MAX_EXAMPLES, 4)  # each a sanitized host build; the QEMU batch covers the Thumb-2 loops


def chosen(model: bytes, isa: Isa = ARMV7) -> list[str]:
    return [call.function for _, call in sorted(lower(read_model(model), isa).items())]


RELU_RANGE = st.one_of(st.just(-128), int8_zero_points)  # -128 (with NONE or RELU): the one-SMLAL output stage


@settings(max_examples=EXAMPLES, deadline=None)
@given(model=variant_cases("DEPTHWISE_CONV_2D", (3, 3), st.integers(1, 2), st.just(1), CHANNELS,
                           output_zps=RELU_RANGE), seed=st.integers(0, 99))
def test_planar_depthwise_is_exact(model, seed):
    channels = read_model(model).tensors[0].shape[3]
    assert chosen(model) == ["fg_depthwise_conv2d_one_channel_s8" if channels == 1 else PLANAR]
    assert_bit_exact(model, seed=seed, isa=ARMV7)


def test_planar_depthwise_with_overlapping_buffers():
    """The planner lays outputs over inputs: channel by channel where that is a whole number of pixels, else raster
    order."""
    model = _chain_model(0)
    assert chosen(model)[::2] == [PLANAR, PLANAR]
    assert_bit_exact(model, isa=ARMV7)


@settings(max_examples=2, deadline=None)
@given(dilated=variant_cases("DEPTHWISE_CONV_2D", (3, 3), st.just(1), st.just(2), st.just(4)))
def test_planar_depthwise_preconditions(dilated):
    assert chosen(dilated) == ["fg_depthwise_conv2d_3x3_s8"]
    model = _chain_model(1)
    assert chosen(model, Isa(frozenset({ARMV7M, DSP})))[::2] != [PLANAR, PLANAR]  # the DSP variants come first


def test_taps_small_images_only_where_measured():
    """The taps kernel takes rows of three, five, six or twelve outputs (its small images, whole) on the M4 and the M33,
    of five, six or twelve on the M7 (its rows of three: slower than the ring kernel's), at stride 1, SAME and at most
    TAPS_SMALL_ROWS padded rows; other cores, taller images, VALID, other widths and stride_h 2 keep the ring
    kernel's."""
    six = {"dilation_h": 1, "dilation_w": 1, "stride_w": 1, "stride_h": 1, "in_c": 128, "in_w": 6, "in_h": 6,
           "out_w": 6, "out_h": 6, "pad_left": 1, "requant": (0, 0, -128, 127)}
    twelve = {**six, "in_w": 12, "in_h": 12, "out_w": 12, "out_h": 12}
    kws = {**six, "in_c": 64, "in_w": 5, "in_h": 25, "out_w": 5, "out_h": 25}
    for layer in (six, twelve, kws):
        assert taps_fits(layer, "cortex-m4") and taps_fits(layer, "cortex-m33") and taps_fits(layer, "cortex-m7")
        assert not taps_fits(layer, "") and not taps_fits(layer, "cortex-m55")
        assert not taps_fits({**layer, "stride_h": 2}, "cortex-m33")
        assert not taps_fits({**layer, "requant": (0, 0, -128, 0)}, "cortex-m4")
        assert not taps_fits({**layer, "out_h": TAPS_SMALL_ROWS - 1}, "cortex-m4")
    assert not taps_fits({**six, "in_w": 8, "pad_left": 0}, "cortex-m4")  # VALID
    assert not taps_fits({**six, "in_w": 7, "out_w": 7}, "cortex-m4")
    assert taps_fits({**six, "in_w": 3, "out_w": 3}, "cortex-m4")
    assert not taps_fits({**six, "in_w": 3, "out_w": 3}, "cortex-m7")
    assert not taps_fits({**six, "in_w": 4, "out_w": 4}, "cortex-m4")


def test_taps_s2_only_where_measured():
    """The stride-2 taps kernel takes rows of 8, 16 and 24 outputs at stride 2 both ways on the M4 and the M33, channels
    a multiple of 4 and the clamp all of int8 (vww_96_int8's 48 x 48 layer); other widths (its 12-, 6- and 3-wide
    layers), strides, cores (the M7) and channel counts keep the ring kernel's or the word kernel's."""
    layer = {"dilation_h": 1, "dilation_w": 1, "stride_w": 2, "stride_h": 2, "in_c": 16, "in_w": 48, "in_h": 48,
             "out_w": 24, "out_h": 24, "pad_left": 0, "requant": (0, 0, -128, 127)}
    for width in (8, 16, 24):
        assert taps_s2_fits({**layer, "out_w": width}, "cortex-m4") and taps_s2_fits(layer, "cortex-m33")
    for width in (3, 6, 12, 20, 32):
        assert not taps_s2_fits({**layer, "out_w": width}, "cortex-m4")
    for core in ("cortex-m7", "cortex-m55", ""):
        assert not taps_s2_fits(layer, core)
    assert not taps_s2_fits({**layer, "in_c": 6}, "cortex-m4") and not taps_s2_fits({**layer, "in_c": 18}, "cortex-m4")
    assert not taps_s2_fits({**layer, "stride_h": 1}, "cortex-m4")
    assert not taps_s2_fits({**layer, "stride_w": 1}, "cortex-m4")
    assert not taps_s2_fits({**layer, "dilation_w": 2}, "cortex-m4")
    assert not taps_s2_fits({**layer, "requant": (0, 0, -128, 0)}, "cortex-m33")
