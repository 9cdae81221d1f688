"""The geometry of patch stages (ops/patch_stage.py): regions traced back through windows, checked against a brute
force walk of the taps; grids; refusals of impossible stages."""

from __future__ import annotations

import random

import pytest

from firmware_gen.errors import UserError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import PORTABLE
from firmware_gen.modelgen.zoo import residual_block, tiny_cnn
from firmware_gen.ops import fold, lower
from firmware_gen.ops.patch_graph import build_stage, stage_prefix
from firmware_gen.ops.patch_stage import Rect, Span, Window, input_span, make_stage, split, trace


def _taps(out: Span, kernel: int, stride: int, dilation: int, pad: int, size: int) -> set[int]:
    """The input rows inside the image that outputs `out` read, tap by tap."""
    rows = {y * stride - pad + i * dilation for y in range(out.start, out.stop) for i in range(kernel)}
    return rows & set(range(size))


def _window(kernel: int, stride: int, dilation: int, pad: int, size: int, out_size: int) -> Window:
    return Window((kernel, kernel), (stride, stride), (dilation, dilation), (pad, pad), (size, size),
                  (out_size, out_size))


@pytest.mark.parametrize("seed", range(200))
def test_input_span_is_exactly_the_rows_the_taps_read(seed: int) -> None:
    rng = random.Random(seed)
    kernel, stride, dilation = rng.choice([1, 2, 3, 5]), rng.choice([1, 2, 3]), rng.choice([1, 1, 2])
    size = rng.randint(kernel * dilation, 30)
    pad = rng.randint(0, (kernel - 1) * dilation)
    out_size = (size + 2 * pad - (kernel - 1) * dilation - 1) // stride + 1
    start = rng.randrange(out_size)
    out = Span(start, rng.randint(start + 1, out_size))
    span, patch_pad = input_span(out, 0, _window(kernel, stride, dilation, pad, size, out_size))
    taps = _taps(out, kernel, stride, dilation, pad, size)
    assert set(range(span.start, span.stop)) >= taps and 0 <= span.start < span.stop <= size
    # Tight but for the clipping: a row at either end is read, or the image's first or last row.
    assert (span.start in taps or span.start == 0) and (span.stop - 1 in taps or span.stop == size)
    # The kernel on the region reads region row y * stride - patch_pad + i * dilation: the same image rows.
    for y in range(out.size):
        for i in range(kernel):
            row = y * stride - patch_pad + i * dilation
            image_row = (out.start + y) * stride - pad + i * dilation
            assert (0 <= row < span.size) == (0 <= image_row < size)
            if 0 <= row < span.size:
                assert span.start + row == image_row
    assert patch_pad == (pad - out.start * stride if out.start * stride < pad else 0)


def test_trace_chains_the_layers_back_to_the_input() -> None:
    conv = _window(3, 2, 1, 1, 16, 8)  # 16 -> 8, SAME
    depthwise = _window(3, 1, 1, 1, 8, 8)
    layers = trace([conv, depthwise], Rect(Span(4, 8), Span(0, 4)))
    assert layers[1].input == Rect(Span(3, 8), Span(0, 5)) and layers[1].pad == (0, 1)
    assert layers[0].output == layers[1].input
    assert layers[0].input == Rect(Span(5, 16), Span(0, 10)) and layers[0].pad == (0, 1)


def test_split_covers_the_axis_in_near_equal_spans() -> None:
    assert split(12, 5) == [Span(0, 2), Span(2, 5), Span(5, 7), Span(7, 10), Span(10, 12)]
    assert split(3, 3) == [Span(0, 1), Span(1, 2), Span(2, 3)]


def test_a_grid_larger_than_the_output_is_refused_naming_the_dimension() -> None:
    with pytest.raises(UserError, match="5 columns of patches for 4 columns"):
        make_stage((0,), [_window(3, 1, 1, 1, 4, 4)], (2, 5), 0, (1,))


def _graph_and_calls(model: bytes):
    graph = fold(read_model(model, "model"))
    return graph, lower(graph, PORTABLE)


def test_the_stage_ends_at_an_operator_that_cannot_run_on_patches() -> None:
    graph, calls = _graph_and_calls(tiny_cnn())
    assert [graph.operators[p].opcode for p in stage_prefix(graph, calls).positions] == \
        ["CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D"]
    reshape = next(op.index for op in graph.operators if op.opcode == "RESHAPE")
    with pytest.raises(UserError, match=f"operator {reshape} \\(RESHAPE\\) cannot run on patches"):
        build_stage(graph, calls, reshape, (1, 1))


def test_a_residual_block_is_a_stage_and_a_tensor_read_after_the_end_refuses_it() -> None:
    graph, calls = _graph_and_calls(residual_block())
    prefix = stage_prefix(graph, calls)
    assert [graph.operators[p].opcode for p in prefix.positions][-1] == "ADD"
    assert prefix.ends == {0, prefix.positions[-1]}  # the stem feeds the branch and the shortcut, joined by ADD
    with pytest.raises(UserError, match="operator 0 \\(CONV_2D\\) has an output read after it"):
        build_stage(graph, calls, 1, (2, 2))
    stage = build_stage(graph, calls, prefix.positions[-1], (2, 2))
    add = len(stage.positions) - 1
    assert len(stage.reads(add)) == 2 and {stage.read_mode(add, 0), stage.read_mode(add, 1)} == {"direct"}
    # The stem's patch buffer holds what the 3x3 branch needs: the 1x1 shortcut reads a rectangle inside it.
    shortcut = next(i for i, p in enumerate(stage.positions) if graph.operators[p].opcode == "CONV_2D"
                    and stage.windows[i].filter == (1, 1))
    assert stage.read_mode(shortcut, 0) == "gather"
    rows = build_stage(graph, calls, prefix.positions[-1], (3, 1))  # whole rows: the rectangle is rows of the buffer
    assert rows.read_mode(shortcut, 0) == "rows"
