"""Overlap granules: a channel-by-channel depthwise kernel (the M3's planar; the M4's ring and stride-2 taps) runs its
fast path only when its output lies a whole number of input pixels before its input (fg_depthwise_channel_major); the
planner puts such pairs on whole pixels where that costs no pool bytes, and keeps its smallest pool where it would."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_gen.driver.compiler import compile_graph, plan_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.planner import BufferInfo, OverlapAllowance, plan_buffers
from firmware_gen.planner.buffers import OUTPUT_BEFORE_INPUT, pool_bytes
from firmware_gen.planner.granules import fast_overlap, slow_pairs
from firmware_gen.target.boards import load_board
from tests.test_planner_algorithms import permitted

CHANNEL_MAJOR = ("fg_depthwise_conv2d_3x3_planar_s8", "fg_depthwise_conv2d_3x3_ring_dsp",
                 "fg_depthwise_conv2d_3x3_taps_s2_dsp")


def two_depthwise_layers() -> bytes:
    """Two independent 3x3 depthwise layers (24 channels, stride 1; 64 channels, stride 2), each on its own model
    input and output: the smallest pool puts the second layer's output 432 B (not whole 64-byte pixels) before its
    input when the planner ignores granules."""
    rng = np.random.default_rng(0)
    builder = ModelBuilder("two_depthwise")
    for k, (channels, stride) in enumerate(((24, 1), (64, 2))):
        x = builder.input(f"x{k}", (1, 16, 16, channels), "int8", scale=0.05, zero_point=-3)
        weights = builder.constant(f"w{k}", rng.integers(-8, 8, (1, 3, 3, channels)).astype(np.int8), scale=0.1)
        bias = builder.constant(f"b{k}", rng.integers(-500, 500, channels).astype(np.int32), scale=0.005)
        y = builder.tensor(f"y{k}", (1, 16 // stride, 16 // stride, channels), "int8", scale=0.06, zero_point=-3)
        builder.operator("DEPTHWISE_CONV_2D", [x, weights, bias], [y],
                         {"padding": "SAME", "stride_h": stride, "stride_w": stride})
        builder.output(y)
    return builder.build()


def off_pixel_steps(compiled) -> list[int]:
    """The operators whose channel-major kernel the plan sends down its pixel-order path."""
    plan, tensors = compiled.plan, compiled.graph.tensors
    return [index for index, call in compiled.calls.items() if call.overlap_granule > 1
            and not fast_overlap(plan.offset_of(call.inputs[0]), tensors[call.inputs[0]].nbytes,
                                 plan.offset_of(call.outputs[0]), tensors[call.outputs[0]].nbytes,
                                 call.overlap_granule)]


def test_channel_major_depthwise_overlaps_whole_pixels_at_the_same_pool() -> None:
    graph = read_model(two_depthwise_layers(), "two_depthwise")
    for board in ("qemu_cortex_m3", "mps2_an386"):  # the planar kernel; the DSP ring and stride-2 taps kernels
        compiled = compile_graph(graph, isa=load_board(board).isa)
        assert {call.function for call in compiled.calls.values()} <= set(CHANNEL_MAJOR)
        assert all(call.overlap_granule == call.params["in_c"] for call in compiled.calls.values())
        assert off_pixel_steps(compiled) == []
        assert compiled.plan.pool_bytes == plan_model(graph).pool_bytes  # the granule-blind plan's pool


# The planner's view of the model above: buffer records and allowances, granules in bytes (one input pixel).
BUFFERS = [BufferInfo(7, 4096, 16, 1, 1), BufferInfo(3, 6144, 16, 0, 1), BufferInfo(0, 6144, 16, 0, 0),
           BufferInfo(4, 16384, 16, 0, 1)]
OVERLAPS = [OverlapAllowance(0, 3, OUTPUT_BEFORE_INPUT, 5712, granule=24),
            OverlapAllowance(4, 7, OUTPUT_BEFORE_INPUT, 4032, granule=64)]


def test_planner_moves_an_off_granule_pair_without_growing_the_pool() -> None:
    blind = [dataclasses.replace(a, granule=1) for a in OVERLAPS]
    blind_offsets = plan_buffers(BUFFERS, blind)[0]
    assert slow_pairs(BUFFERS, OVERLAPS, blind_offsets), "the granule-blind plan is on whole pixels: no case here"
    offsets = plan_buffers(BUFFERS, OVERLAPS)[0]
    assert slow_pairs(BUFFERS, OVERLAPS, offsets) == []
    assert pool_bytes(BUFFERS, offsets) == pool_bytes(BUFFERS, blind_offsets) == 22960


def test_planner_keeps_the_smaller_pool_when_whole_pixels_cost_bytes() -> None:
    """24 channels at stride 2, then 8 at stride 2: whole pixels for the first would take 16 more bytes."""
    buffers = [BufferInfo(7, 512, 16, 1, 1), BufferInfo(3, 1536, 16, 0, 1), BufferInfo(4, 2048, 16, 0, 1),
               BufferInfo(0, 6144, 16, 0, 0)]
    overlaps = [OverlapAllowance(0, 3, OUTPUT_BEFORE_INPUT, 1512, granule=24),
                OverlapAllowance(4, 7, OUTPUT_BEFORE_INPUT, 504, granule=8)]
    offsets = plan_buffers(buffers, overlaps)[0]
    assert pool_bytes(buffers, offsets) == pool_bytes(buffers, plan_buffers(buffers, [
        dataclasses.replace(a, granule=1) for a in overlaps])[0]) == 8224


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 24), st.integers(0, 3), st.integers(0, 2)), min_size=2, max_size=6),
       st.integers(2, 6), st.integers(0, 20))
def test_granules_never_grow_the_pool_nor_break_an_allowance(specs, granule: int, depth: int) -> None:
    """Random chains with one forward allowance per neighbouring pair: the plan with granules keeps the granule-blind
    pool, stays within every allowance (the independent check of test_planner_algorithms) and leaves no more pairs
    off-granule."""
    buffers = [BufferInfo(k, 8 * size, 8, first, first + span) for k, (size, first, span) in enumerate(specs)]
    overlaps = [OverlapAllowance(a.id, b.id, OUTPUT_BEFORE_INPUT, b.size - 8 * depth, granule=8 * granule)
                for a, b in zip(buffers, buffers[1:], strict=False)]
    blind = plan_buffers(buffers, [dataclasses.replace(a, granule=1) for a in overlaps])[0]
    offsets = plan_buffers(buffers, overlaps)[0]
    assert pool_bytes(buffers, offsets) == pool_bytes(buffers, blind)
    assert permitted(buffers, overlaps, offsets)
    assert len(slow_pairs(buffers, overlaps, offsets)) <= len(slow_pairs(buffers, overlaps, blind))
