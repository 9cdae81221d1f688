"""The Armv6-M fully-connected variant with two outputs per MULS (fg_fully_connected_paired_armv6m): the block length
bound (the longest blocks whose int16 partial sums cannot overflow), the records' arithmetic against exact dot
products, the fallback to the compact variant where the flash is short, and on QEMU (mps2_an385, an M3 executing the
Armv6-M code) every output bit-exact with TFLM: weights that force every block length (one layer mixing them), odd
output counts (the zero output padding the last pair), depths around the blocks, a chunk of 32 outputs crossed, and
a layer with two adjacent -128 weights, which no block length serves, on the compact variant."""

from __future__ import annotations

import numpy as np
from batched import assert_batch_bit_exact
from target_fixtures import needs_qemu
from test_variants_dsp import ACTIVATIONS

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import ARMV6M, Isa
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import lower
from firmware_gen.ops.convolution.wide_layout import CODE_RESERVE
from firmware_gen.ops.variants.armv6m_paired import (
    BLOCK_START,
    block_length,
    entry,
    entry_length,
    paired_records,
    safe,
)

BOARD = "mps2_an385_armv6m"
PAIRED, COMPACT = "fg_fully_connected_paired_armv6m", "fg_fully_connected_armv6m"
CONV_PAIRED, CONV_COMPACT = "fg_conv2d_paired_armv6m", "fg_conv2d_pointwise_armv6m"


def test_block_length_drops_where_a_block_could_leave_int16() -> None:
    """128 x the sum of |w| over a block decides: 127s allow two inputs, 60s four, 30s eight, 15s sixteen; two
    -128s (16384 each at x = -128: 32768) allow none; one large block in a row of small weights drops the pair."""
    def pair(value: int, depth: int = 32) -> np.ndarray:
        return np.full((2, depth), value, np.int64)

    assert [block_length(pair(v)) for v in (127, -127, 60, 30, 15, 1)] == [2, 2, 4, 8, 16, 16]
    assert safe(pair(64), 4) and not safe(pair(-64), 4)  # 4 x -128 x 64 = -32768 fits, 4 x 128 x 64 does not
    assert block_length(pair(-128)) is None and block_length(np.array([[-128, -127], [0, 0]])) == 2
    lumpy = pair(1, 64)
    lumpy[1, 40:44] = 100  # one block of four large weights in the second output
    assert block_length(lumpy) == 2
    lumpy[1, 40:48] = [100, 100, 0, 0, 100, 100, 0, 0]
    assert block_length(lumpy) == 4
    assert block_length(pair(1, 8)) == 8  # sixteen would read eight zeros more


def test_a_pair_enters_its_loop_at_the_blocks_it_has() -> None:
    """Each length's loop runs passes of 16 inputs; a pair of n blocks enters its first pass -n mod (16 / length)
    blocks in."""
    assert [entry(16, 3), entry(8, 3), entry(4, 5), entry(2, 1), entry(2, 8), entry(2, 9)] == [0, 2, 6, 14, 7, 14]
    assert [entry_length(e) for e in range(15)] == [16, 8, 8, 4, 4, 4, 4] + [2] * 8


def _kernel_sums(records: np.ndarray, x: np.ndarray, outputs: int) -> np.ndarray:
    """The sums fg_armv6m_pairs_s8 leaves, by its arithmetic on int32 registers (wrapping), from the records."""
    def wrap(v):
        return (np.int64(v) + (1 << 31)) % (1 << 32) - (1 << 31)

    widened = np.zeros(-(-len(x) // 16) * 16, np.int64)
    widened[:len(x)] = x
    sums, at = [], 0
    for _ in range(-(-outputs // 2)):
        start, inputs, first, second = (int(v) for v in records[at:at + 4])
        words = records[at + 4:at + 4 + inputs // 4].astype(np.int64)
        length = entry_length(start)
        for k in range(0, inputs // 4, length):
            register = wrap(BLOCK_START + int(np.dot(widened[k:k + length], words[k:k + length])))
            second, first = wrap(second + (int(register) >> 16)), wrap(first + register)
        sums += [wrap(first - (second << 16)), second]
        at += 4 + inputs // 4
    assert at == len(records)
    return np.array(sums[:outputs])


def test_records_give_the_exact_sums_at_every_block_length() -> None:
    rng = np.random.default_rng(7)
    for outputs, depth in [(1, 1), (2, 2), (3, 17), (5, 40), (6, 100), (9, 31)]:
        magnitude = rng.choice([127, 60, 30, 15], (outputs, 1))
        taps = rng.integers(-magnitude, magnitude + 1, (outputs, depth))
        bias = rng.integers(-(1 << 30), 1 << 30, outputs)
        records = paired_records(taps, bias)
        for x in (rng.integers(-128, 128, depth), np.full(depth, -128), np.full(depth, 127)):
            exact = (taps @ x + bias + (1 << 31)) % (1 << 32) - (1 << 31)
            assert np.array_equal(_kernel_sums(records, x, outputs), exact)


def fc_case(rng, depth: int, outputs: int, magnitudes, relu: bool = False, lowest_pair: bool = False) -> bytes:
    """One FULLY_CONNECTED whose output c's weights lie within +-magnitudes[c % len]; lowest_pair: two adjacent
    -128 weights in output 0 (no block length is safe)."""
    magnitude = np.resize(np.asarray(magnitudes), outputs)[:, None]
    values = rng.integers(-magnitude, magnitude + 1, (outputs, depth)).astype(np.int8)
    if lowest_pair:
        values[0, :2] = -128
    batches, input_scale = int(rng.integers(1, 3)), float(rng.uniform(0.005, 0.1))
    scale = float(rng.uniform(1e-3, 0.05))
    b = ModelBuilder("fully_connected")
    x = b.input("x", (batches, depth), "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    bias = rng.integers(-(1 << 14), 1 << 14, outputs).astype(np.int32)
    inputs = [x, b.constant("w", values, scale=[scale], zero_point=0),
              b.constant("b", bias, scale=[input_scale * scale], zero_point=0)]
    spread = float(np.sqrt(depth) * np.mean(magnitude)) * 40 * 2.0 ** int(rng.integers(-3, 3))
    y = b.tensor("y", (batches, outputs), "int8", scale=input_scale * scale * spread,
                 zero_point=-128 if relu else int(rng.integers(-128, 128)))
    activation = "RELU" if relu else str(rng.choice(ACTIVATIONS))
    b.operator("FULLY_CONNECTED", inputs=inputs, outputs=[y], options={"activation": activation})
    b.output(y)
    return b.build()


def pointwise_case(rng, in_c: int, out_c: int, lowest_pair: bool = False) -> bytes:
    """A 1x1 CONV_2D of full-range weights; lowest_pair: two adjacent -128 weights in channel 0."""
    values = rng.integers(-127, 128, (out_c, 1, 1, in_c)).astype(np.int8)
    if lowest_pair:
        values[0, 0, 0, :2] = -128
    input_scale, scale = float(rng.uniform(0.005, 0.1)), float(rng.uniform(1e-3, 0.05))
    b = ModelBuilder("conv_2d")
    x = b.input("x", (1, 3, 2, in_c), "int8", scale=input_scale, zero_point=int(rng.integers(-128, 128)))
    inputs = [x, b.constant("w", values, scale=[scale], zero_point=0, axis=0)]
    y = b.tensor("y", (1, 3, 2, out_c), "int8", scale=input_scale * scale * float(np.sqrt(in_c)) * 2000,
                 zero_point=int(rng.integers(-128, 128)))
    b.operator("CONV_2D", inputs=inputs, outputs=[y], options={"padding": "VALID", "stride_h": 1, "stride_w": 1,
                                                               "dilation_h": 1, "dilation_w": 1,
                                                               "activation": "NONE"})
    b.output(y)
    return b.build()


def test_the_compact_variant_where_the_pair_words_do_not_fit() -> None:
    """Twice the int8 filter's bytes: on a flash that holds the compact layout but not the pair words, the compact
    variant (not the portable kernel)."""
    model = fc_case(np.random.default_rng(3), 512, 64, [10])
    graph = read_model(model, "fc")
    roomy, short = (Isa(frozenset({ARMV6M}), flash_bytes=CODE_RESERVE + size, stack_bytes=16384)
                    for size in (1 << 20, 48 * 1024))
    assert [call.function for call in lower(graph, roomy).values()] == [PAIRED]
    assert [call.function for call in lower(graph, short).values()] == [COMPACT]


@needs_qemu
def test_paired_bit_exact_on_armv6m(tmp_path) -> None:
    rng = np.random.default_rng(17)
    shapes = [(1, 1), (2, 3), (7, 5), (8, 8), (15, 9), (16, 2), (17, 33), (33, 40), (64, 7), (100, 4)]
    mixes = [[127], [60], [30], [12], [127, 127, 12, 12, 30, 30, 60, 60]]
    models = [fc_case(rng, depth, outputs, mixes[k % len(mixes)], relu=k % 3 == 1)
              for k, (depth, outputs) in enumerate(shapes * 2)]
    models += [fc_case(rng, 20, 6, [127], lowest_pair=True), pointwise_case(rng, 9, 5),
               pointwise_case(rng, 6, 4, lowest_pair=True)]
    functions = assert_batch_bit_exact(models, BOARD, tmp_path / "build", seed=8,
                                       expect_functions=[PAIRED, COMPACT, CONV_PAIRED, CONV_COMPACT])
    assert functions.count(COMPACT) == 1 and functions.count(CONV_COMPACT) == 1
    assert "fg_fully_connected_folded_s8" not in functions
