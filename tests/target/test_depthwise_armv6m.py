"""The Armv6-M 3x3 depthwise kernels (depthwise_conv2d_armv6m.c) on QEMU mps2_an385_armv6m, int8 and 4-bit weights in
one firmware, bit-exact with TFLM: channel counts whose rings do not fit FG_DW_RING_BYTES (the blocked entries: blocks
of channels over the whole image where the output may be written channel by channel, else the portable kernel on
the unpacked filter), odd and whole-word counts, blocks cut to whole output rows, 4-bit blocks of 32 unpacked once,
strides 1 and 2, SAME and VALID, per-tensor and per-channel scales; and layers whose output the planner puts over
their input by whole pixels (the planner's choice where it costs no pool bytes, planner/granules.py) and by part of
one (where whole pixels would cost bytes): the two orders of the blocked kernels."""

from __future__ import annotations

import numpy as np
import pytest
from batched import BATCH_PLANNING, merge_models, run_batch
from target_fixtures import needs_qemu

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.deploy import prepare
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.geometry import window_2d
from firmware_gen.ops.variants.armv6m_depthwise import arrays_bytes, channel_major_block, ring_block
from firmware_gen.planner.granules import fast_overlap

pytestmark = [needs_qemu, pytest.mark.qemu]

BOARD = "mps2_an385_armv6m"


def _depthwise(seed: int, channels: int, height: int, width: int, stride: int = 1, padding: str = "SAME",
               per_channel: bool = True, int4: bool = False, batches: int = 1) -> bytes:
    """One 3x3 DEPTHWISE_CONV_2D on `batches` height x width x channels images, weights in [-8, 7]."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder("depthwise")
    x = b.input("x", (batches, height, width, channels), "int8", scale=0.05, zero_point=int(rng.integers(-128, 128)))
    scales = [float(s) for s in rng.uniform(0.01, 0.1, channels if per_channel else 1)]
    w = b.constant("w", rng.integers(-8, 8, (1, 3, 3, channels)).astype(np.int8), scales, axis=3, int4=int4)
    bias = b.constant("b", rng.integers(-300, 300, channels).astype(np.int32), [0.05 * s for s in scales])
    window = window_2d(padding, (height, width), (3, 3), (stride, stride), (1, 1))
    y = b.tensor("y", (batches, window.out_h, window.out_w, channels), "int8", scale=0.05 * float(np.mean(scales)) * 40,
                 zero_point=int(rng.integers(-20, 20)))
    options = {"padding": padding, "stride_h": stride, "stride_w": stride, "depth_multiplier": 1,
               "activation": "RELU" if seed % 2 else "NONE"}
    b.operator("DEPTHWISE_CONV_2D", [x, w, bias], [y], options)
    b.output(y)
    return b.build()


def _chain(channels: int, height: int, width: int, int4: tuple[bool, ...]) -> bytes:
    """1x1 CONV_2D then, per entry of int4, a 3x3 DEPTHWISE_CONV_2D (4-bit weights where it says so) and a 1x1
    CONV_2D: the planner may put a depthwise output over its input."""
    rng = np.random.default_rng(channels)
    b = ModelBuilder("chain")
    shape = (1, height, width, channels)
    previous = b.input("x", shape, "int8", scale=0.05, zero_point=-3)
    layers = [(False, (channels, 1, 1, channels))]
    for four in int4:
        layers += [(four, (1, 3, 3, channels)), (False, (channels, 1, 1, channels))]
    for k, (four, filter_shape) in enumerate(layers):
        w = b.constant(f"w{k}", rng.integers(-8, 8, filter_shape).astype(np.int8), scale=0.1, int4=four)
        bias = b.constant(f"b{k}", rng.integers(-300, 300, channels).astype(np.int32), scale=0.005 * 4 ** (k % 2))
        y = b.tensor(f"y{k}", shape, "int8", scale=0.02 * 4 ** (k % 2 + 1), zero_point=-3)
        depthwise = filter_shape[0] == 1
        options = {"padding": "SAME", **({"depth_multiplier": 1} if depthwise else {})}
        b.operator("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [previous, w, bias], [y], options)
        previous = y
    b.output(previous)
    return b.build()


CASES = [
    # blocked (ring of every channel past 4096 bytes): odd counts (the fill byte by byte), whole words, stride 2
    _depthwise(1, 45, 3, 31), _depthwise(2, 72, 4, 20, 2, "VALID", per_channel=False),
    _depthwise(3, 45, 4, 30, 2, per_channel=False, int4=True), _depthwise(4, 53, 3, 28, 1, "VALID", int4=True),
    _depthwise(5, 60, 3, 24, int4=True),
    # the ring fits: blocks cut to whole output rows (int8, two images), 4-bit blocks of 32 and an odd rest
    _depthwise(6, 36, 3, 20, batches=2), _depthwise(7, 37, 4, 6, int4=True),
    _depthwise(8, 37, 3, 9, 2, "VALID", int4=True),
    # chains: the depthwise output over its input (45 and 48 channels), each on whole pixels
    _chain(45, 3, 31, (False, True)), _chain(48, 3, 27, (False, True)),
]


def test_block_choice() -> None:
    """The blocks the kernels take (armv6m_depthwise mirrors them for the stack): a ring of every channel where it
    fits, else multiples of four; cut to whole output rows, and to 32 for 4-bit weights, where the output is written
    channel by channel."""
    p = {"in_c": 45, "in_w": 31, "out_w": 31, "pad_left": 1, "stride_w": 1}
    assert ring_block(p) == 4096 // (3 * 33) & ~3 == 40
    assert channel_major_block(p, False) == 16 and channel_major_block(p, True) == 16  # 512 sums: 16 of a 31-wide row
    p = {"in_c": 37, "in_w": 6, "out_w": 6, "pad_left": 1, "stride_w": 1}
    assert ring_block(p) == 37 and channel_major_block(p, False) == 37 and channel_major_block(p, True) == 32
    assert arrays_bytes(p, True) >= 37 * 3 * 8 + 6 * 37 * 4 + 4 * 81  # the row-order case: a batch of 8 unpacked


BLOCKED = ("fg_depthwise_conv2d_blocked_armv6m", "fg_depthwise_conv2d_blocked_s4_armv6m")
# Two layers side by side whose smallest pool puts the blocked layer's output over its input by part of a pixel
# (whole pixels would cost pool bytes, so the planner keeps it there): the blocked kernels' pixel-order path.
PART_PIXEL = {"fg_depthwise_conv2d_blocked_armv6m": [_depthwise(9, 45, 3, 31), _depthwise(10, 24, 16, 16, 2)],
              "fg_depthwise_conv2d_blocked_s4_armv6m": [_depthwise(11, 60, 3, 24, int4=True),
                                                        _depthwise(12, 24, 16, 16, 2)]}


def _blocked_orders(compiled) -> set[tuple[str, bool]]:
    """(function, whether it runs in pixel order) of each blocked step: its output over its input, not whole pixels
    before it (fg_depthwise_channel_major)."""
    plan, tensors = compiled.plan, compiled.graph.tensors
    return {(call.function, not fast_overlap(plan.offset_of(call.inputs[0]), tensors[call.inputs[0]].nbytes,
                                             plan.offset_of(call.outputs[0]), tensors[call.outputs[0]].nbytes,
                                             call.overlap_granule))
            for call in compiled.calls.values() if call.function in BLOCKED}


def _bit_exact(cases: list[bytes], tmp_path) -> set[tuple[str, bool]]:
    """The cases in one firmware, each bit-exact with TFLM, its stack bound exact; the blocked steps' orders."""
    merged, counts = merge_models(cases)
    deployment = prepare(merged, "batch.tflite", BOARD, out_dir=tmp_path, options=BATCH_PLANNING)
    bound = deployment.firmware.stack
    assert bound is not None and bound.exact, bound and bound.problems
    inputs = random_inputs(deployment.graph, 7)
    equal = outputs_equal_oracle(merged, inputs, run_batch(deployment, inputs), len(deployment.graph.tensors))
    first = 0
    for case, count in enumerate(counts):
        assert all(equal[first:first + count]), f"case {case} differs from TFLM on {BOARD}"
        first += count
    return _blocked_orders(deployment.compiled)


def test_depthwise_bit_exact_on_armv6m(tmp_path) -> None:
    # the planner puts every blocked output over its input on whole pixels here (planner/granules.py)
    assert _bit_exact(CASES, tmp_path) == {(f, False) for f in BLOCKED}


@pytest.mark.parametrize("function", BLOCKED)
def test_blocked_depthwise_in_pixel_order_on_armv6m(function: str, tmp_path) -> None:
    assert (function, True) in _bit_exact(PART_PIXEL[function], tmp_path)
