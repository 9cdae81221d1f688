"""The Armv6-M (Cortex-M0) kernel variants on QEMU: single-operator cases batched into one firmware per variant, built
with -mcpu=cortex-m0 and run on mps2_an385 (an M3 executes the Armv6-M code) and on the micro:bit (a Cortex-M0 under
QEMU), every output bit-exact with TFLM. Shapes go around the variants' blocks: groups of eight channels, odd and even
depths (the loop's lone first tap), border windows, strides 1 and 2; scales reach multipliers above one (a left
shift: the portable output stage) and huge biases (sums that wrap)."""

from __future__ import annotations

import numpy as np
import pytest
from batched import assert_batch_bit_exact
from target_fixtures import needs_qemu
from test_variants_dsp import (
    add_cases,
    avg_pool_cases,
    conv_case,
    depthwise_cases,
    folded_cases,
    fully_connected_cases,
    one_channel_depthwise_cases,
    pointwise_cases,
)

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import ARMV6M, ARMV7M, Isa
from firmware_gen.ops import lower
from firmware_gen.ops.variants.armv6m import unsigned_interleaved
from firmware_gen.ops.variants.armv6m_output import (
    POSITIVE,
    accumulator_reach,
    call_table,
    layer_constants,
    saturation_thresholds,
)
from firmware_gen.ops.variants.dsp import tflite_outputs

BOARD = "mps2_an385_armv6m"
ARMV6M_ISA = Isa(frozenset({ARMV6M}), flash_bytes=1 << 22)


@needs_qemu
@pytest.mark.parametrize("variant, cases, portable", [
    ("fg_fully_connected_paired_armv6m", fully_connected_cases, "fg_fully_connected_folded_s8"),
    ("fg_conv2d_paired_armv6m", pointwise_cases, "fg_conv2d_pointwise_s8"),
    ("fg_conv2d_paired_armv6m", folded_cases, "fg_conv2d_folded_s8"),
    ("fg_conv2d_folded_armv6m", one_channel_depthwise_cases, "fg_depthwise_conv2d_one_channel_s8"),
])
def test_variant_bit_exact_on_armv6m(variant, cases, portable, tmp_path) -> None:
    rng = np.random.default_rng(len(variant) + len(portable))
    functions = assert_batch_bit_exact(cases(rng, 26), BOARD, tmp_path / "build", seed=3, expect_functions=[variant])
    assert portable not in functions  # every case met the variant's preconditions


@needs_qemu
def test_depthwise_pooling_and_add_bit_exact_on_armv6m(tmp_path) -> None:
    """The depthwise variant, its channels with multipliers above one (a left shift) through TFLite's arithmetic;
    pooling and ADD run the portable kernels, whose arithmetic on Armv6-M is the 32-bit high multiply of
    fg/support/fixedpoint.h."""
    rng = np.random.default_rng(11)
    models = depthwise_cases(rng, 20) + avg_pool_cases(rng, 8) + add_cases(rng, 10)
    assert_batch_bit_exact(models, BOARD, tmp_path / "build", seed=4,
                           expect_functions=["fg_depthwise_conv2d_armv6m", "fg_avg_pool2d_s8", "fg_add_s8"])


@needs_qemu
def test_variants_bit_exact_on_the_microbit(tmp_path) -> None:
    """A Cortex-M0 itself (QEMU microbit, 16 KiB of RAM): a few cases of each variant in one firmware."""
    rng = np.random.default_rng(5)
    models = (pointwise_cases(rng, 4) + folded_cases(rng, 4) + depthwise_cases(rng, 4)[:3] +
              fully_connected_cases(rng, 4))
    assert_batch_bit_exact(models, "microbit", tmp_path / "build", seed=6,
                           expect_functions=["fg_conv2d_paired_armv6m", "fg_depthwise_conv2d_armv6m",
                                             "fg_fully_connected_paired_armv6m"])


def test_armv6m_variants_only_for_the_armv6m_class() -> None:
    rng = np.random.default_rng(2)
    graph = read_model(conv_case(rng, "CONV_2D", (1, 1), 8, 16), "pointwise")
    (on_m0,) = lower(graph, ARMV6M_ISA).values()
    (on_m3,) = lower(graph, Isa(frozenset({ARMV7M}), flash_bytes=1 << 22)).values()
    assert (on_m0.function, on_m0.isa) == ("fg_conv2d_paired_armv6m", "Armv6-M")
    assert not on_m3.function.endswith("_armv6m")


def test_weights_are_unsigned_and_interleaved_by_eight() -> None:
    taps = np.array([[-128, 127, 0], [1, -1, 5]], np.int8)  # 2 channels x 3 taps: one group, 6 channels of padding
    layout = unsigned_interleaved(taps).reshape(3, 8)  # [tap][channel]
    assert layout[:, 0].tolist() == [0, 255, 128] and layout[:, 1].tolist() == [129, 127, 133]
    assert (layout[:, 2:] == 128).all()  # zero weights


def test_saturation_thresholds_bound_the_clamped_accumulators() -> None:
    """The output stage's early exits: below `below` every accumulator gives the clamp's low end and `below` itself
    does not; above `above` every one gives the high end and `above` itself does not (TFLite's arithmetic)."""
    rng = np.random.default_rng(9)
    graph = read_model(conv_case(rng, "CONV_2D", (1, 1), 16, 24, output_zero_point=-128), "relu_like")
    call = next(iter(lower(graph).values()))
    stage = {t.suffix: t.values.astype(np.int64) for t in call.tables}
    multipliers, shifts = (np.broadcast_to(stage[name], (24,)) for name in ("multipliers", "shifts"))
    below, above = saturation_thresholds(call, multipliers, shifts).T
    low, high = call.params["requant"][2:4]
    smallest, largest = -(1 << 31), (1 << 31) - 1

    def outputs(acc):
        return tflite_outputs(np.clip(acc, smallest, largest), multipliers, shifts, call)

    assert np.all((outputs(below - 1) == low) | (below == smallest))
    assert np.all((outputs(below) > low) | (below == largest))
    assert np.all((outputs(above + 1) == high) | (above == largest))
    assert np.all((outputs(above) < high) | (above == smallest))
    assert np.any(below > smallest)  # a ReLU-like clamp: negative sums exit early


def _thumb1_output_stage(acc: np.ndarray, rows: np.ndarray, low: int, high: int) -> np.ndarray:
    """fg_armv6m_requantize_s8's arithmetic (fg/isa/armv6m.h), int32 wrapping as the registers wrap, per channel row
    (below, above, ml, mh, k, c, shift) of `rows` against accumulators acc[:, channel]."""
    def wrap(v):
        return (np.asarray(v, np.int64) + (1 << 31)) % (1 << 32) - (1 << 31)
    below, above, ml, mh, k, c, shift = (rows[:, i].astype(np.int64) for i in range(7))
    ah, al = acc >> 16, acc & 0xFFFF
    high_product = wrap(ah * mh)
    u = wrap(((al * ml) % (1 << 32) >> 16) + ah * ml + al * mh + k + np.where(high_product < 0, -(1 << 15), 0))
    arithmetic = wrap(high_product + (u >> 16) + c) >> shift
    return np.where(acc < below, low, np.where(acc > above, high, arithmetic))


def test_thumb1_output_stage_equals_tflite_on_every_reachable_accumulator() -> None:
    """The layer constants of the Thumb-1 output stage, run through its arithmetic, give TFLite's outputs: on random
    accumulators the weights can reach, on those next to every channel's rounding ties and early exits; shifts from 1
    (k's extra 2^15) to the largest, multipliers down to 2^30, channels of zero weights (one output, no arithmetic)."""
    rng = np.random.default_rng(21)
    for case in range(12):
        graph = read_model(conv_case(rng, "CONV_2D", (1, 1), 24, 16, output_zero_point=int(rng.integers(-128, 100)),
                                     wide=case % 3 == 0), "stage")
        call = next(iter(lower(graph).values()))
        taps = np.asarray(graph.tensors[graph.operators[0].inputs[1]].data, np.int64).reshape(16, -1)
        taps[case % 16] = 0  # a dead channel: its bias alone
        bias = call_table(call, "folded_bias")[:16].astype(np.int64)
        reach = accumulator_reach(taps, bias)
        constants = layer_constants(call, 16, reach)
        rows = constants[4:].reshape(16, 7).astype(np.int64)
        served = rows[:, 6] >= 0
        multipliers = np.broadcast_to(call_table(call, "multipliers").astype(np.int64), (16,))
        shifts = np.broadcast_to(call_table(call, "shifts").astype(np.int64), (16,))
        acc = rng.integers(reach[:, 0], reach[:, 1] + 1, (4000, 16))
        steps = (1 << 31) / multipliers * 2.0 ** -shifts  # accumulators per output step
        ties = np.round(rng.integers(-300, 300, (2000, 16)) * steps / 2).astype(np.int64)
        ties += rng.integers(-1, 2, ties.shape)
        edges = np.concatenate([rows[:, :2] + d for d in (-1, 0, 1)], axis=1).T
        acc = np.clip(np.concatenate([acc, ties, edges]), reach[:, 0], reach[:, 1])
        expected = tflite_outputs(acc, multipliers, shifts, call)
        low, high = call.params["requant"][2:4]
        ours = _thumb1_output_stage(acc, rows, low, high)
        assert np.array_equal(ours[:, served], expected[:, served]), case
        assert served[case % 16] or case % 3 == 0  # the dead channel is served (its one output) but for a left shift
    assert served.sum() > 8


def test_a_relu_layer_takes_the_output_stage_without_the_sign_term() -> None:
    """Under ReLU every unsaturated sum is positive (a negative one gives the clamp's low end): the layer is flagged
    POSITIVE, the kernels' output stage without its sign's term; with no activation it is not."""
    rng = np.random.default_rng(4)
    flags = {}
    for activation in ("RELU", "NONE"):
        graph = read_model(conv_case(rng, "CONV_2D", (1, 1), 16, 8, activation=activation), activation)
        call = next(iter(lower(graph).values()))
        taps = np.asarray(graph.tensors[graph.operators[0].inputs[1]].data, np.int64).reshape(8, -1)
        reach = accumulator_reach(taps, call_table(call, "folded_bias")[:8])
        flags[activation] = layer_constants(call, 8, reach)[0]
    assert flags == {"RELU": POSITIVE, "NONE": 1}
