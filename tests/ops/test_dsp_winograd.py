"""Winograd's F(2x2, 3x3) in integers (ops/variants/dsp_winograd.py): the identity the kernel rests on, its int16
bounds, the table's layout and where the variant is chosen."""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import ARMV7M, DSP, Isa
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import fold, lower
from firmware_gen.ops.convolution.wide_layout import CODE_RESERVE, constant_bytes
from firmware_gen.ops.variants.dsp_staged import STAGING_RESERVE
from firmware_gen.ops.variants.dsp_winograd import (
    MAX_IN_C,
    POSITIONS,
    SCALE,
    band_cycles,
    filter_transform,
    input_transform,
    output_transform,
    staged_pairs,
    winograd_cycles,
    winograd_fits,
    winograd_stack,
    winograd_words,
)

STACK = 16384


def _isa(core: str = "cortex-m4", wait_per_byte: float = 0.0) -> Isa:
    return Isa(frozenset({ARMV7M, DSP}), 1 << 22, STACK, wait_per_byte, core)


def _params(size: int, in_c: int, out_c: int, batches: int = 1) -> dict:
    return {"batches": batches, "in_h": size, "in_w": size, "in_c": in_c, "out_h": size, "out_w": size,
            "out_c": out_c, "filter_h": 3, "filter_w": 3, "stride_h": 1, "stride_w": 1, "dilation_h": 1,
            "dilation_w": 1, "pad_top": 1, "pad_left": 1}


def _correlation(window: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The direct 3x3 correlation of [4, 4, in_c] windows' four 3x3 sub-windows: [2, 2, out_c]."""
    return np.array([[np.einsum("abc,oabc->o", window[y:y + 3, x:x + 3].astype(np.int64), weights.astype(np.int64))
                      for x in range(2)] for y in range(2)])


def test_the_integer_transforms_give_four_times_the_direct_correlation():
    rng = np.random.default_rng(0)
    for in_c, out_c in [(1, 1), (4, 2), (16, 6), (64, 8)]:
        weights = rng.integers(-128, 128, (out_c, 3, 3, in_c)).astype(np.int8)
        window = rng.integers(-128, 128, (4, 4, in_c)).astype(np.int8)
        u = filter_transform(weights)  # [out_c, 16, in_c]
        v = input_transform(window).reshape(POSITIONS, in_c)
        products = np.einsum("pc,opc->po", v, u).reshape(4, 4, out_c)
        assert (output_transform(products) == SCALE * _correlation(window, weights)).all()


def test_the_extremes_stay_within_int16_pairs():
    """|B^T d B| <= 512 and |U'| <= 1152 (int16 halves for SMLAD) at the extreme inputs and weights."""
    extremes = np.array([-128, 127])
    windows = extremes[np.random.default_rng(1).integers(0, 2, (4096, 4, 4, 1))]
    assert np.abs(input_transform(windows)).max() <= 512
    weights = extremes[np.random.default_rng(2).integers(0, 2, (4096, 3, 3, 1))]
    assert np.abs(filter_transform(weights)).max() == 9 * 128


def test_the_table_holds_each_channel_pairs_positions_in_sxtb16_order():
    """Word (pair, p, g, channel) holds U' of input channels (4q + g % 2, 4q + 2 + g % 2), q = g // 2, low half
    first."""
    rng = np.random.default_rng(3)
    weights = rng.integers(-128, 128, (4, 3, 3, 8)).astype(np.int8)
    u = filter_transform(weights)
    halves = winograd_words(weights).view("<i2").reshape(2, POSITIONS, 4, 2, 2)  # [pair, p, g, channel, half]
    for pair in range(2):
        for p in range(POSITIONS):
            for g in range(4):
                k0 = 4 * (g // 2) + g % 2
                for channel in range(2):
                    assert list(halves[pair, p, g, channel]) == [u[2 * pair + channel, p, k0],
                                                                 u[2 * pair + channel, p, k0 + 2]]


def test_chosen_on_resnets_layers_and_not_where_it_cannot_run_or_does_not_pay():
    for size, channels in [(32, 16), (16, 32), (8, 64)]:
        p = _params(size, channels, channels)
        assert winograd_fits(p, _isa()) and winograd_stack(p) <= 8192
        for isa in (_isa(), _isa("cortex-m33", 4 / 16), _isa("cortex-m4", 5 / 8)):
            assert winograd_cycles(p, isa) < band_cycles(p)
    small = _params(8, 8, 8)  # few channels on a small image: the transforms do not pay
    assert winograd_fits(small, _isa()) and winograd_cycles(small, _isa()) > band_cycles(small)
    assert winograd_fits(_params(8, 64, 64), _isa("cortex-m7"))  # the M7's order of the products
    odd = _params(15, 32, 32)  # odd edges: a last tile row and column of one output
    assert winograd_fits(odd, _isa()) and winograd_cycles(odd, _isa()) < band_cycles(odd)
    assert winograd_stack(odd) == winograd_stack(_params(16, 32, 32)) + 4 * 32  # held rows of 16, two scratch pairs
    nine = _params(9, 16, 16)  # a quarter of its tiles half used: the transforms do not pay
    assert winograd_fits(nine, _isa()) and winograd_cycles(nine, _isa()) > band_cycles(nine)
    assert winograd_fits({**_params(3, 16, 16), "out_h": 1}, _isa())  # two tiles a row, one output row
    assert not winograd_fits({**_params(8, 16, 16), "stride_h": 2, "stride_w": 2}, _isa())
    assert not winograd_fits(_params(8, 12, 16), _isa())  # in_c not a multiple of 8
    assert not winograd_fits(_params(2, 16, 16), _isa())  # one tile a row
    assert not winograd_fits(_params(8, 256, 16), _isa())  # V over the board's stack
    assert not winograd_fits(_params(8, 264, 16), Isa(frozenset({ARMV7M, DSP}), 1 << 22, 1 << 20, 0.0, "cortex-m4"))
    assert 9 * 512 * 1152 * MAX_IN_C < 1 << 31  # A^T M A's sums within int32


def _conv_graph(size: int, channels: int):
    rng = np.random.default_rng(5)
    b = ModelBuilder("conv")
    x = b.input("x", (1, size, size, channels), "int8", scale=0.05, zero_point=-3)
    w = b.constant("w", rng.integers(-127, 128, (channels, 3, 3, channels)).astype(np.int8), scale=[0.01] * channels,
                   zero_point=0, axis=0)
    y = b.tensor("y", (1, size, size, channels), "int8", scale=0.2, zero_point=-128)
    b.operator("CONV_2D", inputs=[x, w], outputs=[y], options={"padding": "SAME", "activation": "RELU"})
    b.output(y)
    return fold(read_model(b.build()))


def test_the_band_is_put_back_where_the_flash_is_short():
    """Winograd's table (16 int16 per input and output channel) is wider than the band's (9): ops/variant_choice.py
    takes it only while the board's flash holds it."""
    graph = _conv_graph(16, 32)

    def chosen(flash: int):
        return lower(graph, Isa(frozenset({ARMV7M, DSP}), flash, STACK, 0.0, "cortex-m4"))

    roomy = chosen(1 << 24)
    assert [call.function for call in roomy.values()] == ["fg_conv2d_3x3_winograd_dsp"]
    needed = constant_bytes(graph, roomy)
    assert [call.function for call in chosen(CODE_RESERVE + needed).values()] == ["fg_conv2d_3x3_winograd_dsp"]
    assert [call.function for call in chosen(CODE_RESERVE + needed - 1).values()] == ["fg_conv2d_3x3_band_dsp"]


def _extreme_vertices(count: int) -> np.ndarray:
    """Every vector of `count` int8 extremes (-128, 127): [2**count, count]."""
    bits = (np.arange(1 << count)[:, None] >> np.arange(count)) & 1
    return np.where(bits == 1, 127, -128)


# The sums fg_wino_output_tile forms from the 16 products m (position p = 4 i + j), as coefficients over m in the C
# code's order of evaluation: upper1, upper2, lower1, lower2, then each output's partial sums left to right.
def _output_tile_sums() -> list[np.ndarray]:
    def of(*terms: tuple[int, int]) -> np.ndarray:
        row = np.zeros(POSITIONS, np.int64)
        for sign, p in terms:
            row[p] += sign
        return row

    upper1, upper2 = of((1, 1), (1, 5), (1, 9)), of((1, 2), (1, 6), (1, 10))
    lower1, lower2 = of((1, 5), (-1, 9), (-1, 13)), of((1, 6), (-1, 10), (-1, 14))
    sums = [of((1, 1), (1, 5)), of((1, 2), (1, 6)), of((1, 5), (-1, 9)), of((1, 6), (-1, 10)),
            upper1, upper2, lower1, lower2]
    y0 = [of((1, 0), (1, 4)), of((1, 0), (1, 4), (1, 8))]
    y0 += [y0[-1] + upper1, y0[-1] + upper1 + upper2]
    y1 = [upper1 - upper2, of((1, 3), (1, 7)), of((1, 3), (1, 7), (1, 11))]
    y1 += [upper1 - upper2 - y1[-1]]
    y2 = [of((1, 4), (-1, 8)), of((1, 4), (-1, 8), (-1, 12))]
    y2 += [y2[-1] + lower1, y2[-1] + lower1 + lower2]
    y3 = [lower1 - lower2, of((1, 7), (-1, 11)), of((1, 7), (-1, 11), (-1, 15))]
    y3 += [lower1 - lower2 - y3[-1]]
    return [*sums, *y0, *y1, *y2, *y3, *np.eye(POSITIONS, dtype=np.int64)]


def test_every_sum_the_kernel_forms_stays_within_int32_at_max_in_c():
    """MAX_IN_C's argument checked numerically: each sum of the kernel (a position's product over the input
    channels, A^T M A's partial sums) is, per input channel, bilinear in the 4x4 window and the 3x3 filter, so its
    largest magnitude is at their int8 extremes: over all 2^16 windows, the filter's extremes taken weight by weight
    (linear in the filter), times MAX_IN_C channels (every channel alike reaches it), it is under 2^31."""
    v = input_transform(_extreme_vertices(16).reshape(-1, 4, 4, 1)).reshape(-1, POSITIONS)
    # U' = G' g G'^T as a [16, 9] map of the filter's weights
    u_of_g = filter_transform(np.eye(9, dtype=np.int64).reshape(9, 3, 3, 1)).reshape(9, POSITIONS).T
    largest = []
    for coefficients in _output_tile_sums():
        a = (v * coefficients) @ u_of_g  # per window, the sum's coefficient of each weight
        high, low = np.maximum(127 * a, -128 * a).sum(axis=1), np.minimum(127 * a, -128 * a).sum(axis=1)
        largest.append(int(max(high.max(), -low.min())))
    assert MAX_IN_C * max(largest) < 1 << 31
    # the largest is a single position's 512 * 1152 an input channel (m[5]: every input and weight at -128), A^T M A's
    # partial sums never above it: 9 times under dsp_winograd.MAX_IN_C's bound
    assert max(largest) == largest[len(largest) - POSITIONS + 5] == 512 * 1152


GEOMETRY = ["filter_h", "filter_w", "stride_h", "stride_w", "dilation_h", "dilation_w"]


def test_the_choice_never_takes_a_layer_outside_the_kernels_preconditions():
    """winograd_fits over random layers and boards -> the kernel's preconditions as conv2d_3x3_winograd_dsp.c states
    them, its int32 bound, and its arrays (with the staged table) within the board's stack less the reserve."""
    rng = np.random.default_rng(31)
    accepted = 0
    for _ in range(20000):
        geometry = [3, 3, 1, 1, 1, 1] if rng.random() < 0.7 else [int(rng.choice([1, 2, 3, 5])) for _ in range(6)]
        in_c = int(8 * rng.integers(1, 40)) if rng.random() < 0.7 else int(rng.integers(1, 300))
        p = {**_params(1, in_c, int(rng.integers(1, 80)), int(rng.integers(1, 3))),
             "out_h": int(rng.integers(1, 40)), "out_w": int(rng.integers(1, 40)),
             **dict(zip(GEOMETRY, geometry, strict=True))}
        stack = int(rng.choice([8192, STACK, 1 << 16, 1 << 20]))
        isa = Isa(frozenset({ARMV7M, DSP}), 1 << 22, stack, float(rng.choice([0.0, 4 / 16, 5 / 8])),
                  str(rng.choice(["cortex-m4", "cortex-m33", "cortex-m7"])))
        if not winograd_fits(p, isa):
            continue
        accepted += 1
        assert [p[name] for name in GEOMETRY] == [3, 3, 1, 1, 1, 1]
        assert p["out_w"] >= 3 and p["out_c"] % 2 == 0
        assert p["in_c"] % 8 == 0 and 8 <= p["in_c"] <= MAX_IN_C
        held = 2 * 2 * -(-p["out_w"] // 2) * p["out_c"] + (4 * p["out_c"] if p["out_w"] % 2 else 0)
        zeros, products = p["in_c"], 4 * 2 * 3 * POSITIONS
        v = 4 * POSITIONS * 3 * p["in_c"] // 2
        staged = staged_pairs(p, isa)
        staged_words = 4 * p["out_c"] + staged * POSITIONS * p["in_c"] if staged else 0
        assert 0 <= staged <= p["out_c"] // 2
        assert zeros + held + products + v + 4 * staged_words <= stack - STAGING_RESERVE
    assert accepted > 200
