"""Operator-level overlap: the allowances the window and elementwise kernels declare, and the planner using them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_gen.driver.compiler import overlap_allowances
from firmware_gen.frontend.ir import DType, Graph, Operator, Quantization, Tensor
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.ops.geometry import window_2d
from firmware_gen.ops.overlap import elementwise_overlap, forward_window_bytes
from firmware_gen.planner import MemoryPlan, PlannedBuffer, PlanningOptions, check_plan, plan_graph
from tests.conftest import shared_model


def int8(index: int, shape: tuple[int, ...]) -> Tensor:
    return Tensor(index, f"t{index}", shape, DType.INT8, Quantization((0.1,), (0,)))


def clobbers(in_shape: tuple[int, ...], out_c: int, window, shift: int) -> bool:
    """Simulate a raster-order window kernel with output.start = input.start + shift: does some output pixel store
    land on an input byte that this or a later output pixel still reads?"""
    batches, in_h, in_w, in_c = in_shape
    written_up_to = -10**9  # highest input-relative address written so far (outputs are written in order)
    pixel = 0
    for b in range(batches):
        for oy in range(window.out_h):
            for ox in range(window.out_w):
                rows = [y for y in range(oy * window.stride_h - window.pad_top,
                                         oy * window.stride_h - window.pad_top + window.filter_h) if 0 <= y < in_h]
                cols = [x for x in range(ox * window.stride_w - window.pad_left,
                                         ox * window.stride_w - window.pad_left + window.filter_w) if 0 <= x < in_w]
                lowest_read = min((b * in_h + y) * in_w + x for y in rows for x in cols) * in_c
                if written_up_to >= lowest_read:  # an earlier pixel already overwrote what this one reads
                    return True
                end = shift + (pixel + 1) * out_c
                if end > lowest_read:  # this pixel's store hits its own window (read before the store completes)
                    return True
                written_up_to = max(written_up_to, end - 1)
                pixel += 1
    return False


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2), st.integers(1, 9), st.integers(1, 9), st.integers(1, 4), st.integers(1, 5),
       st.sampled_from([1, 2, 3]), st.sampled_from([1, 2]), st.sampled_from(["SAME", "VALID"]))
def test_window_allowance_is_exact(batches: int, h: int, w: int, in_c: int, out_c: int, kernel: int, stride: int,
                                   padding: str) -> None:
    window = window_2d(padding, (h, w), (kernel, kernel), (stride, stride))
    if window.out_h < 1 or window.out_w < 1:
        return
    source = int8(0, (batches, h, w, in_c))
    result = int8(1, (batches, window.out_h, window.out_w, out_c))
    allowed = forward_window_bytes(source, result, window)
    shift = allowed - result.nbytes  # the lowest output start relative to the input start the allowance permits
    assert not clobbers(source.shape, out_c, window, shift)
    assert clobbers(source.shape, out_c, window, shift + 1)


def test_depthwise_3x3_stride_1_overlaps_all_but_a_row_and_two_pixels() -> None:
    window = window_2d("SAME", (48, 48), (3, 3), (1, 1))
    source, result = int8(0, (1, 48, 48, 8)), int8(1, (1, 48, 48, 8))
    assert forward_window_bytes(source, result, window) == result.nbytes - (48 + 2) * 8


def test_elementwise_in_place_only_for_same_shape_inputs() -> None:
    tensors = [int8(0, (1, 4, 4, 8)), int8(1, (1, 1, 1, 8)), int8(2, (1, 4, 4, 8))]
    graph = Graph(tensors, [Operator(0, "ADD", (0, 1), (2,))], (0, 1), (2,))
    allowances = elementwise_overlap(graph, graph.operators[0])
    assert [(a.input, a.output, a.bytes) for a in allowances] == [(0, 2, 128)]


def residual_graph() -> Graph:
    """t0 -> DW 3x3 -> t1 -> DW 3x3 -> t2; ADD(t2, t1) -> t3: t1 must not be overwritten by t2."""
    tensors = [int8(0, (1, 8, 8, 4)), int8(1, (1, 8, 8, 4)), int8(2, (1, 8, 8, 4)), int8(3, (1, 8, 8, 4)),
               int8(4, (1, 3, 3, 4)), int8(5, (1, 3, 3, 4))]
    for index in (4, 5):
        tensors[index].data = np.ones((1, 3, 3, 4), np.int8)
        tensors[index].quantization = Quantization((0.1,) * 4, (0,) * 4, axis=3)
    options = {"padding": "SAME", "stride_h": 1, "stride_w": 1, "depth_multiplier": 1}
    ops = [Operator(0, "DEPTHWISE_CONV_2D", (0, 4, -1), (1,), dict(options)),
           Operator(1, "DEPTHWISE_CONV_2D", (1, 5, -1), (2,), dict(options)),
           Operator(2, "ADD", (2, 1), (3,), {})]
    return Graph(tensors, ops, (0,), (3,))


def test_overlap_only_where_the_input_dies() -> None:
    graph = residual_graph()
    allowances = overlap_allowances(graph)
    plain = plan_graph(graph, options=PlanningOptions(overlap=False), allowances=allowances)
    overlapped = plan_graph(graph, allowances=allowances)
    check_plan(overlapped, graph, allowances)
    assert overlapped.overlap and overlapped.pool_bytes < plain.pool_bytes
    t1, t2 = overlapped.buffer_of(1), overlapped.buffer_of(2)
    assert t1.end <= t2.offset or t2.end <= t1.offset  # t1 is read again by the ADD


def test_checker_verifies_the_allowance_condition() -> None:
    graph = residual_graph()  # 256-byte activations; allowed: t1 at least (8 + 2) * 4 = 40 bytes below t0

    def plan_with(t1_offset: int, overlap: bool = True) -> MemoryPlan:
        offsets = {0: 512, 1: t1_offset, 2: 1024, 3: 1536}
        lives = {0: (0, 0), 1: (0, 2), 2: (1, 2), 3: (2, 2)}
        buffers = [PlannedBuffer((t,), offsets[t], 256, *lives[t]) for t in offsets]
        return MemoryPlan(1792, 0, "by hand", buffers, overlap=overlap)

    allowances = overlap_allowances(graph)
    check_plan(plan_with(512 - 48), graph, allowances)
    with pytest.raises(AssertionError, match="step 0: tensor 0 't0'.* tensor 1 't1'"):
        check_plan(plan_with(512 - 32), graph, allowances)  # 16-aligned, closer than 40 bytes: the top row is lost
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(plan_with(512 - 48, overlap=False), graph, allowances)
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(plan_with(512 - 48), graph)  # the same placement, with no allowance declared


@pytest.mark.parametrize("name", ["vww_96_int8", "person_detect"])
def test_mobilenets_fit_in_40k_with_overlap(name: str) -> None:
    graph = read_model(shared_model(name).read_bytes(), name)
    aliases = {op.outputs[0]: op.inputs[0] for op in graph.operators if op.opcode in ("RESHAPE", "SQUEEZE")}
    allowances = overlap_allowances(graph)
    plan = plan_graph(graph, aliases=aliases, allowances=allowances)
    check_plan(plan, graph, allowances)
    assert plan.lower_bound_bytes == 55296
    assert plan.pool_bytes <= 40960
