"""The fast kernel variants (input zero point folded into the bias, the register-blocked 2-pixel x 4-channel dot
products of ops/convolution/blocking.py, 3x3 depthwise interior path): cases that force each variant's preconditions,
the
lowering's choice asserted, and the generated C bit-exact against TFLM (sanitized host build; the memory plan lets
outputs overlap inputs where the kernels allow it)."""

from __future__ import annotations

import numpy as np
import test_convolution as convolution_cases
import test_fully_connected as fully_connected_cases
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, scales
from weighted import ACTIVATIONS, Weights, weights

from firmware_gen.driver.compiler import compile_graph, plan_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import ARMV7M, Isa
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import lower
from firmware_gen.ops.convolution.blocking import EXACT_WEIGHT_SUM, blocked_filter
from firmware_gen.ops.convolution.expanded_layout import BUFFERED_OUT, EXPANDED
from firmware_gen.ops.convolution.fused_output import COMPACT, COMPACT_FUSED, FLOOR, FUSED, GATHERED, ROWS
from firmware_gen.ops.convolution.wide_layout import PAIRED
from firmware_gen.ops.geometry import window_2d
from firmware_gen.planner import PlanningOptions

CHANNEL_AXIS = convolution_cases.CHANNEL_AXIS


def chosen_functions(model: bytes) -> list[str]:
    return [call.function for _, call in sorted(lower(read_model(model)).items())]


def _options(draw, stride, dilation, padding=None):
    return {"padding": padding or draw(st.sampled_from(["SAME", "VALID"])),
            "stride_h": draw(stride), "stride_w": draw(stride),
            "dilation_h": draw(dilation), "dilation_w": draw(dilation), "activation": draw(ACTIVATIONS)}


@st.composite
def variant_cases(draw, opcode, filter_hw, stride, dilation, channels, out_channels=None, output_zps=int8_zero_points):
    options = _options(draw, stride, dilation)
    in_h, in_w, in_c = draw(st.integers(1, 9)), draw(st.integers(1, 9)), draw(channels)
    window = window_2d(options["padding"], (in_h, in_w), filter_hw, (options["stride_h"], options["stride_w"]),
                       (options["dilation_h"], options["dilation_w"]))
    assume(window.out_h >= 1 and window.out_w >= 1)
    input_scale = draw(scales)
    if opcode == "CONV_2D":
        shape, taps = (draw(out_channels), *filter_hw, in_c), filter_hw[0] * filter_hw[1] * in_c
    else:
        options["depth_multiplier"] = 1
        shape, taps = (1, *filter_hw, in_c), filter_hw[0] * filter_hw[1]
    w = draw(weights(shape, CHANNEL_AXIS[opcode], input_scale, taps))
    model = convolution_cases.conv_model(opcode, (draw(st.integers(1, 2)), in_h, in_w, in_c), w, input_scale,
                                         draw(int8_zero_points), draw(output_zps), options)
    return model


# Channel counts around the 4-channel groups and the 16-channel requantization chunks.
CHANNELS = st.one_of(st.integers(1, 9), st.sampled_from([15, 16, 17, 31, 33, 40]))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(model=variant_cases("CONV_2D", (1, 1), st.just(1), st.integers(1, 2), CHANNELS, CHANNELS),
       seed=st.integers(0, 99))
def test_pointwise_convolution(model, seed):
    assert chosen_functions(model) == ["fg_conv2d_pointwise_s8"]
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(model=variant_cases("CONV_2D", (3, 3), st.integers(1, 2), st.integers(1, 2), st.integers(1, 6),
                           st.integers(1, 9)),
       seed=st.integers(0, 99))
def test_folded_convolution(model, seed):
    assert chosen_functions(model) == ["fg_conv2d_folded_s8"]
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(filter_hw=st.sampled_from([(1, 3), (2, 2), (3, 1), (1, 1)]), stride=st.integers(1, 3), seed=st.integers(0, 99),
       data=st.data())
def test_folded_convolution_other_windows(filter_hw, stride, seed, data):
    model = data.draw(variant_cases("CONV_2D", filter_hw, st.just(stride), st.integers(1, 2), st.integers(1, 5),
                                    st.integers(1, 6)))
    assume(filter_hw != (1, 1) or stride > 1)
    assert chosen_functions(model) == ["fg_conv2d_folded_s8"]
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(model=variant_cases("DEPTHWISE_CONV_2D", (3, 3), st.integers(1, 2), st.integers(1, 2), CHANNELS),
       seed=st.integers(0, 99))
def test_depthwise_3x3(model, seed):
    channels = read_model(model).tensors[0].shape[3]
    assert chosen_functions(model) == ["fg_depthwise_conv2d_one_channel_s8" if channels == 1
                                       else "fg_depthwise_conv2d_3x3_s8"]
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(accum_depth=st.integers(1, 80), out_depth=CHANNELS, batches=st.integers(1, 3), input_scale=scales,
       input_zp=int8_zero_points, output_zp=int8_zero_points, activation=ACTIVATIONS, seed=st.integers(0, 99),
       data=st.data())
def test_fully_connected_folded(accum_depth, out_depth, batches, input_scale, input_zp, output_zp, activation, seed,
                                data):
    w = data.draw(weights((out_depth, accum_depth), 0, input_scale, accum_depth))
    model = fully_connected_cases.fc_model((batches, accum_depth), w, input_scale, input_zp, output_zp, activation)
    assert chosen_functions(model) == ["fg_fully_connected_folded_s8"]
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(filter_hw=st.sampled_from([(3, 3), (10, 8), (2, 5), (1, 1), (4, 1)]), multiplier=st.integers(1, 9),
       stride=st.integers(1, 3), seed=st.integers(0, 99), data=st.data())
def test_depthwise_of_one_channel_runs_as_a_convolution(filter_hw, multiplier, stride, seed, data):
    """One input channel, any depth multiplier (person_detect's first layer, micro_speech's 10x8)."""
    options = _options(data.draw, st.just(stride), st.integers(1, 2))
    options["depth_multiplier"] = multiplier
    in_h, in_w = data.draw(st.integers(1, 14)), data.draw(st.integers(1, 12))
    window = window_2d(options["padding"], (in_h, in_w), filter_hw, (stride, stride),
                       (options["dilation_h"], options["dilation_w"]))
    assume(window.out_h >= 1 and window.out_w >= 1)
    input_scale = data.draw(scales)
    w = data.draw(weights((1, *filter_hw, multiplier), 3, input_scale, filter_hw[0] * filter_hw[1]))
    model = convolution_cases.conv_model("DEPTHWISE_CONV_2D", (data.draw(st.integers(1, 2)), in_h, in_w, 1), w,
                                         input_scale, data.draw(int8_zero_points), data.draw(int8_zero_points),
                                         options)
    assert chosen_functions(model) == ["fg_depthwise_conv2d_one_channel_s8"]
    assert_bit_exact(model, seed=seed)


def _saturated(w):
    """The same weights at full magnitude (+-127, some -128): the 64-bit two-pixel sums need splitting."""
    values = np.where(w.values >= 0, 127, np.where(w.values % 3 == 0, -128, -127)).astype(np.int8)
    return convolution_cases.Weights(values, w.scales, w.bias, w.output_scale * 2)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(accum_depth=st.integers(100, 400), out_depth=st.integers(1, 9), batches=st.integers(1, 3),
       input_scale=scales, input_zp=int8_zero_points, output_zp=int8_zero_points, seed=st.integers(0, 99),
       data=st.data())
def test_blocked_calls_split_where_the_weights_need_it(accum_depth, out_depth, batches, input_scale, input_zp,
                                                       output_zp, seed, data):
    """Inputs at -128 or 127 against full-magnitude weights: every split of ops/convolution/blocking.py taken."""
    w = data.draw(weights((out_depth, accum_depth), 0, input_scale, accum_depth))
    if data.draw(st.booleans()):
        w = _saturated(w)
    model = fully_connected_cases.fc_model((batches, accum_depth), w, input_scale, input_zp, output_zp, "NONE")
    assert chosen_functions(model) == ["fg_fully_connected_folded_s8"]
    extremes = np.random.default_rng(seed).choice(np.array([-128, 127], np.int8), (batches, accum_depth))
    assert_bit_exact(model, inputs=[extremes] if seed % 2 else None, seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(taps=st.integers(1, 700), rows=st.integers(1, 6), channels=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_blocked_filter_calls_stay_exact(taps, rows, channels, seed):
    """Every call fg_blocked_pair_s8 makes sums at most EXACT_WEIGHT_SUM weight magnitudes per channel."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-128, 127, (channels, rows, taps), endpoint=True) * rng.integers(0, 2, (channels, 1, 1))
    table, (_, n_rows, run, call_rows, call_taps, paired, window) = blocked_filter(values)
    magnitude = np.abs(values.astype(np.int64))
    assert (n_rows, run, paired, window) == (rows, taps, 0, "fg_blocked_window_s8")
    assert table.values.size == -(-channels // 4) * 4 * rows * taps
    for r in range(0, rows, call_rows):  # the evenly spaced path
        assert call_rows == 1 or magnitude[:, r:r + call_rows].sum(axis=(1, 2)).max() <= EXACT_WEIGHT_SUM
    for t in range(0, taps, call_taps):  # row by row
        assert magnitude[:, :, t:t + call_taps].sum(axis=2).max() <= EXACT_WEIGHT_SUM
    groups = table.values.reshape(-1, rows * taps, 4)
    assert np.array_equal(groups.transpose(0, 2, 1).reshape(-1, rows * taps)[:channels],
                          values.reshape(channels, -1))


def test_other_depthwise_filters_use_the_reference():
    rng = np.random.default_rng(0)
    for filter_hw, multiplier in (((3, 3), 2), ((5, 5), 1), ((2, 3), 1)):
        values = rng.integers(-127, 127, (1, *filter_hw, 4 * multiplier), endpoint=True).astype(np.int8)
        w = convolution_cases.Weights(values, [0.02], None, 0.5)
        options = {"padding": "SAME", "stride_h": 1, "stride_w": 1, "dilation_h": 1, "dilation_w": 1,
                   "depth_multiplier": multiplier, "activation": "NONE"}
        model = convolution_cases.conv_model("DEPTHWISE_CONV_2D", (1, 6, 7, 4), w, 0.1, 3, -2, options)
        assert chosen_functions(model) == ["fg_depthwise_conv2d_s8"]
        assert_bit_exact(model)


def _chain_model(seed: int) -> bytes:
    """depthwise 3x3 -> pointwise -> depthwise 3x3 stride 2 -> pointwise: intermediate tensors the planner may lay
    over their inputs, so the variants' raster-order promise is exercised."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder("chain")
    x = b.input("x", (1, 9, 11, 8), "int8", scale=0.05, zero_point=-3)
    shape, channels, scale = (1, 9, 11), 8, 0.05
    for layer, (kind, stride, out_c) in enumerate([("dw", 1, 8), ("pw", 1, 12), ("dw", 2, 12), ("pw", 1, 6)]):
        if kind == "dw":
            values = rng.integers(-127, 127, (1, 3, 3, channels), endpoint=True).astype(np.int8)
            opcode, axis = "DEPTHWISE_CONV_2D", 3
            out_hw = ((shape[1] + stride - 1) // stride, (shape[2] + stride - 1) // stride)
        else:
            values = rng.integers(-127, 127, (out_c, 1, 1, channels), endpoint=True).astype(np.int8)
            opcode, axis, out_hw = "CONV_2D", 0, shape[1:]
        weight_scales = list(rng.uniform(0.005, 0.02, out_c))
        wi = b.constant(f"w{layer}", values, scale=weight_scales, zero_point=0, axis=axis)
        bi = b.constant(f"b{layer}", rng.integers(-2000, 2000, out_c).astype(np.int32),
                        scale=[scale * s for s in weight_scales], zero_point=0)
        out_scale = scale * 3.0
        y = b.tensor(f"y{layer}", (1, *out_hw, out_c), "int8", scale=out_scale, zero_point=int(rng.integers(-20, 20)))
        options = {"padding": "SAME", "stride_h": stride, "stride_w": stride, "dilation_h": 1, "dilation_w": 1,
                   "activation": "RELU6"}
        if kind == "dw":
            options["depth_multiplier"] = 1
        b.operator(opcode, inputs=[x, wi, bi], outputs=[y], options=options)
        x, shape, channels, scale = y, (1, *out_hw), out_c, out_scale
    b.output(x)
    return b.build()


def test_chain_with_overlapping_buffers():
    for seed in range(3):
        model = _chain_model(seed)
        assert chosen_functions(model) == ["fg_depthwise_conv2d_3x3_s8", "fg_conv2d_pointwise_s8",
                                           "fg_depthwise_conv2d_3x3_s8", "fg_conv2d_pointwise_s8"]
        assert_bit_exact(model, seed=seed)


def _saturable_convolution(data, options: dict, filter_hw: tuple[int, int], in_hw: tuple[int, int], in_c: int,
                           out_c: int) -> tuple[bytes, tuple[int, ...]]:
    """A CONV_2D model, its weights at full magnitude half the time (the blocked sums' exactness bound), and its
    input shape."""
    input_scale = data.draw(scales)
    w = data.draw(weights((out_c, *filter_hw, in_c), CHANNEL_AXIS["CONV_2D"], input_scale,
                          filter_hw[0] * filter_hw[1] * in_c))
    if data.draw(st.booleans()):
        w = _saturated(w)
    shape = (data.draw(st.integers(1, 2)), *in_hw, in_c)
    model = convolution_cases.conv_model("CONV_2D", shape, w, input_scale, data.draw(int8_zero_points),
                                         data.draw(int8_zero_points), options)
    return model, shape


def _assert_bit_exact_at_extremes(model: bytes, shape: tuple[int, ...], seed: int, isa: Isa,
                                  options: PlanningOptions = PlanningOptions()) -> None:
    """Bit-exact on random inputs, or for an odd seed on inputs at -128 and 127 only."""
    extremes = np.random.default_rng(seed).choice(np.array([-128, 127], np.int8), shape)
    assert_bit_exact(model, inputs=[extremes] if seed % 2 else None, seed=seed, isa=isa, options=options)


WIDE = Isa(flash_bytes=1 << 22)  # flash enough for every layer's paired weights (ops/convolution/wide_layout.py)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(filter_hw=st.sampled_from([(1, 1), (3, 3), (2, 3)]), stride=st.integers(1, 2), seed=st.integers(0, 99),
       data=st.data())
def test_paired_weights(filter_hw, stride, seed, data):
    """The wide layout of the blocked convolutions; full-magnitude weights and extreme inputs take its exactness
    splits."""
    assume(filter_hw != (1, 1) or stride == 1)
    options = _options(data.draw, st.just(stride), st.integers(1, 2))
    in_h, in_w = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    in_c, out_c = data.draw(st.one_of(st.integers(1, 9), st.just(140))), data.draw(CHANNELS)
    assume(filter_hw == (1, 1) or in_c < 64)  # a larger window is not blocked (FG_CONV_GATHER_TAPS)
    window = window_2d(options["padding"], (in_h, in_w), filter_hw, (stride, stride),
                       (options["dilation_h"], options["dilation_w"]))
    assume(window.out_h >= 1 and window.out_w >= 1)
    model, shape = _saturable_convolution(data, options, filter_hw, (in_h, in_w), in_c, out_c)
    functions = [call.function for _, call in sorted(lower(read_model(model), WIDE).items())]
    paired = PAIRED["fg_conv2d_pointwise_s8" if filter_hw == (1, 1) else "fg_conv2d_folded_s8"]
    # fused under the whole clamp (ops/convolution/fused_output.py), a window read side by side where that pays or
    # rows of at most sixteen taps in place, on the floor stage where the output zero point is -128
    fused = [FUSED[paired], GATHERED, ROWS]
    assert functions in ([paired], *([f] for f in fused), *([FLOOR[f]] for f in fused))
    _assert_bit_exact_at_extremes(model, shape, seed, WIDE)


@settings(max_examples=MAX_EXAMPLES // 3, deadline=None)  # the assembly on QEMU: tests/target/test_variants_armv7m.py
@given(filter_hw=st.sampled_from([(1, 1), (3, 3), (10, 4)]), seed=st.integers(0, 99), data=st.data())
def test_paired_floor_stage(filter_hw, seed, data):
    """ReLU-like layers (output zero point -128, the whole clamp) on the fused paired kernels' floor stage: a 64-bit
    start per channel with the bias in it, windows of short rows walked in place (the portable C of both)."""
    options = _options(data.draw, st.just(1), st.just(1), padding="SAME") | {"activation": "RELU"}
    in_c, out_c = data.draw(st.integers(1, 3)), data.draw(st.sampled_from([3, 8, 16, 24]))
    input_scale = data.draw(scales)
    w = data.draw(weights((out_c, *filter_hw, in_c), CHANNEL_AXIS["CONV_2D"], input_scale,
                          filter_hw[0] * filter_hw[1] * in_c))
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 12)), data.draw(st.integers(1, 12)), in_c)
    model = convolution_cases.conv_model("CONV_2D", shape, w, input_scale, data.draw(int8_zero_points), -128, options)
    functions = [call.function for _, call in sorted(lower(read_model(model), WIDE).items())]
    assume(functions[0] in FLOOR.values())  # not a shift the floor stage does not take
    _assert_bit_exact_at_extremes(model, shape, seed, WIDE)


ARMV7M_COMPACT = Isa(features=frozenset({ARMV7M}))  # no flash to spare: the compact layouts only


@settings(max_examples=MAX_EXAMPLES // 3, deadline=None)  # the unfused twin is tested above, the asm on QEMU
@given(in_c=st.one_of(CHANNELS, st.just(100)), out_c=st.sampled_from([4, 8, 12, 16, 20, 32, 36, 64]),
       seed=st.integers(0, 99), data=st.data())
def test_compact_pointwise_fused(in_c, out_c, seed, data):
    """The compact 1x1 convolution with its output stage fused (Armv7-M, the whole clamp); full-magnitude weights
    and extreme inputs push the two-pixel sums to their bound."""
    options = _options(data.draw, st.just(1), st.just(1), padding="SAME") | {"activation": "NONE"}
    in_h, in_w = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    model, shape = _saturable_convolution(data, options, (1, 1), (in_h, in_w), in_c, out_c)
    functions = [call.function for _, call in sorted(lower(read_model(model), ARMV7M_COMPACT).items())]
    assert functions in ([COMPACT_FUSED], [COMPACT])  # unfused where a shift is out of the fast stage's range
    _assert_bit_exact_at_extremes(model, shape, seed, ARMV7M_COMPACT)


@settings(max_examples=MAX_EXAMPLES // 5, deadline=None)  # the asm on QEMU (tests/target/test_variants_armv7m.py)
@given(in_c=st.one_of(CHANNELS, st.sampled_from([32, 64, 100])), out_c=st.sampled_from([8, 16, 24, 40, 64]),
       overlap=st.booleans(), seed=st.integers(0, 99), data=st.data())
def test_expanded_pointwise_fused(in_c, out_c, overlap, seed, data):
    """The compact 1x1 convolution on the paired loop, its weights expanded at run time
    (ops/convolution/expanded_layout.py):
    passes of up to 36 pixels and of 64 taps; up to 16 channels the outputs wait on the stack (the overlap allowance
    kept), above that the layer is taken only where it is planned without overlap."""
    options = _options(data.draw, st.just(1), st.just(1), padding="SAME") | {"activation": "NONE"}
    in_h, in_w = data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9))
    model, shape = _saturable_convolution(data, options, (1, 1), (in_h, in_w), in_c, out_c)
    planning = PlanningOptions(overlap=overlap)
    compiled = compile_graph(read_model(model), options=planning, isa=ARMV7M_COMPACT)
    functions = [call.function for _, call in sorted(compiled.calls.items())]
    if out_c <= BUFFERED_OUT or not overlap:
        assert functions in ([EXPANDED], [COMPACT])
    else:  # taken where planning the layer without its overlap allowance costs no pool bytes
        assert functions in ([EXPANDED], [COMPACT_FUSED], [COMPACT])
        if functions == [EXPANDED]:
            assert compiled.plan.pool_bytes <= plan_model(read_model(model), planning).pool_bytes
    _assert_bit_exact_at_extremes(model, shape, seed, ARMV7M_COMPACT, planning)


def test_fully_connected_runs_as_the_fused_1x1_convolution_only_in_whole_groups_of_eight():
    """ops/fully_connected: with flash to spare an Armv7-M one-batch layer runs as the paired fused 1x1 convolution,
    unless its output channels would be padded to a group of eight (micro_speech's 4 outputs of 4,000 taps: 32 KB
    more flash, and slower): then it keeps its own kernel."""
    rng = np.random.default_rng(8)
    roomy = Isa(frozenset({ARMV7M}), flash_bytes=1 << 24)
    for out_depth, expected in ((8, FUSED[PAIRED["fg_conv2d_pointwise_s8"]]), (4, "fg_fully_connected_folded_s8")):
        w = Weights(rng.integers(-127, 128, (out_depth, 64)).astype(np.int8), [0.01], None, 0.5)
        model = fully_connected_cases.fc_model((1, 64), w, 0.05, 3, -2)
        assert [call.function for call in lower(read_model(model), roomy).values()] == [expected]
