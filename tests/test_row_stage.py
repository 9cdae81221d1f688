"""Row-buffer schedules (ops/row_stage.py), run call by call on a toy vertical layer in numpy and compared with the
whole-tensor computation: random chains and residual graphs of windows (kernel heights, strides, dilations,
padding), one row a call or a batch of rows. Each row computed once; the buffers hold only the rows their readers
still need."""

from __future__ import annotations

import random

import numpy as np
import pytest

from firmware_gen.ops.patch_stage import Window
from firmware_gen.ops.row_stage import RowStage, make_row_stage


def _window(kernel: int, stride: int, dilation: int, pad: int, size: int) -> Window:
    out = (size + 2 * pad - (kernel - 1) * dilation - 1) // stride + 1
    return Window((kernel, 1), (stride, 1), (dilation, 1), (pad, 0), (size, 1), (out, 1))


def _layer(inputs: list[np.ndarray], window: Window, pad_top: int, out_rows: int) -> np.ndarray:
    """A toy layer: output row y is the sum of its taps' input rows, tap i weighted i + 1, plus the other inputs'
    row y (an ADD); taps outside the input read nothing."""
    first = inputs[0]
    out = np.zeros((out_rows, first.shape[1]), dtype=np.int64)
    for y in range(out_rows):
        for i in range(window.filter[0]):
            row = y * window.stride[0] - pad_top + i * window.dilation[0]
            if 0 <= row < first.shape[0]:
                out[y] += (i + 1) * first[row]
        for other in inputs[1:]:
            out[y] += other[y]
    return out


def _whole(stage: RowStage, image: np.ndarray) -> np.ndarray:
    tensors = {stage.input: image}
    for layer, window in enumerate(stage.windows):
        tensors[stage.tensors[layer]] = _layer([tensors[t] for t in stage.reads(layer)], window, window.pad[0],
                                               window.out_size[0])
    return tensors[stage.tensors[-1]]


def _by_rows(stage: RowStage, image: np.ndarray, overlap: bool = False) -> np.ndarray:
    """The schedule call by call: every intermediate tensor in a buffer of its capacity's rows; with `overlap`, the
    output and the input in one memory, the output ending stage.output_overlap elements into the input."""
    width = image.shape[1]
    buffers = {t: np.full((rows, width), -10**9, dtype=np.int64) for t, rows in zip(stage.tensors, stage.capacity,
                                                                                   strict=True)}
    buffers[stage.input] = image
    if overlap:
        out_size = stage.capacity[-1] * width
        start = out_size - stage.output_overlap(width, width)
        memory = np.full(start + image.size, -10**9, dtype=np.int64)
        memory[start:] = image.ravel()
        buffers[stage.input] = memory[start:].reshape(image.shape)  # views of one memory
        buffers[stage.tensors[-1]] = memory[:out_size].reshape(-1, width)
    computed = [set() for _ in stage.windows]
    for call in stage.calls:
        window, rows = stage.windows[call.layer], call.patch.input.rows.size
        inputs = [buffers[t][start:start + rows] for t, start in zip(stage.reads(call.layer), call.reads,
                                                                        strict=True)]
        assert all(len(x) == rows for x in inputs), "a read past the end of its buffer"
        out = buffers[stage.tensors[call.layer]]
        first, kept = call.keep
        out[:kept] = out[first:first + kept].copy()
        result = _layer(inputs, window, call.patch.pad[0], call.patch.output.rows.size)
        assert call.write + len(result) <= len(out), "a write past the end of its buffer"
        out[call.write:call.write + len(result)] = result
        span = set(range(call.patch.output.rows.start, call.patch.output.rows.stop))
        assert not computed[call.layer] & span, "a row computed twice"
        computed[call.layer] |= span
    return buffers[stage.tensors[-1]]


def _random_stage(rng: random.Random) -> RowStage:
    size = rng.randint(6, 30)
    windows, sources, tensors = [], [], []
    current = 0
    for layer in range(rng.randint(1, 6)):
        if layer and rng.random() < 0.25:  # a residual: a SAME branch of one layer, added to its input
            kernel = rng.choice([1, 3, 5])
            windows.append(_window(kernel, 1, 1, kernel // 2, size))
            sources.append((current,))
            tensors.append(layer * 2 + 1)
            windows.append(_window(1, 1, 1, 0, size))
            sources.append((current, layer * 2 + 1))
        else:
            kernel, stride, dilation = rng.choice([1, 2, 3, 5]), rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2])
            if (kernel - 1) * dilation + 1 > size:
                kernel, dilation = 1, 1
            windows.append(_window(kernel, stride, dilation, rng.randint(0, (kernel - 1) * dilation), size))
            sources.append((current,))
        current = layer * 2 + 2
        tensors.append(current)
        size = windows[-1].out_size[0]
    return make_row_stage(tuple(range(len(windows))), windows, 0, tuple(tensors), tuple(sources),
                          batch=rng.choice([1, 1, 2, 3]))


@pytest.mark.parametrize("seed", range(300))
def test_a_row_schedule_computes_what_the_whole_tensors_compute(seed: int) -> None:
    rng = random.Random(seed)
    stage = _random_stage(rng)
    image = np.array([[rng.randint(-50, 50) for _ in range(2)] for _ in range(stage.windows[0].in_size[0])])
    assert np.array_equal(_by_rows(stage, image), _whole(stage, image))
    assert np.array_equal(_by_rows(stage, image.copy(), overlap=True), _whole(stage, image))


def test_a_buffer_holds_one_window_of_its_reader() -> None:
    size = 48
    chain = [_window(3, 2, 1, 1, 96), _window(3, 1, 1, 1, size), _window(1, 1, 1, 0, size), _window(3, 2, 1, 1, size),
             _window(1, 1, 1, 0, 24)]
    stage = make_row_stage(tuple(range(5)), chain, 0, (1, 2, 3, 4, 5), ((0,), (1,), (2,), (3,), (4,)))
    # a 3x3 reader (stride 1 or 2): three rows; a 1x1 reader: one; the stage's output: whole
    assert stage.capacity == (3, 1, 3, 1, 24)
    assert [len(stage.layer_patches(layer)) for layer in range(5)] == [48, 48, 48, 24, 24]
    assert stage.moved_pixels()[0] == 2 * 45  # two rows moved a row from row 3 on (rows 0..2 are written in place)


def test_a_batch_of_rows_a_call_holds_a_batch_more() -> None:
    chain = [_window(3, 2, 1, 1, 96), _window(3, 1, 1, 1, 48), _window(1, 1, 1, 0, 48), _window(3, 2, 1, 1, 48)]
    stage = make_row_stage(tuple(range(4)), chain, 0, (1, 2, 3, 4), ((0,), (1,), (2,), (3,)), batch=2)
    assert stage.batch == (2, 2, 2, 1)  # the 48-row layers; the stage's output one row a call
    assert stage.capacity == (4, 2, 3, 24)  # a 3x3 reader of two rows: four; a 1x1 one: two
    # half the calls; the first layer's first batch split by the top row its reader's first batch needs
    assert [len(stage.layer_patches(layer)) for layer in range(4)] == [25, 24, 24, 24]


def test_the_output_overlaps_the_input_rows_already_read() -> None:
    chain = [_window(3, 2, 1, 1, 96), _window(3, 1, 1, 1, 48), _window(3, 2, 1, 1, 48)]
    stage = make_row_stage(tuple(range(3)), chain, 0, (1, 2, 3), ((0,), (1,), (2,)))
    # output row y is written when input rows from 4y + 5 on are still to be read (the last, when all are read):
    # with rows of one element each, the whole output may lie inside the input
    assert stage.output_overlap(1, 1) == 24
    # with 2 bytes an input row and 16 an output row, the last output row, written once all 192 input bytes are
    # read, bounds it: 192 - 384 + 384
    assert stage.output_overlap(2, 16) == 192
