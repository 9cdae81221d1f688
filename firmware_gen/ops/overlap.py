"""How far an operator's output may overlap its input: the allowances the kernels declare to the planner.

Every allowance here is `output_before_input` ("forward"): the kernel walks its output in increasing address order
and the output sits at the same or lower addresses than the input, so each output byte lands on input bytes that
no later output needs. The allowance is a number N of bytes: the output may end at most N bytes after the input's
start (output.end <= input.start + N).

Window operators (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE/MAX_POOL_2D), NHWC int8, output pixels p = 0, 1, ... in
raster order (batch, row, column), all channels of pixel p stored before any channel of pixel p + 1:
  let low(p) be the lowest input pixel any output q >= p reads (its window's first in-bounds row and column);
  output pixel p covers output bytes [p * C_out, (p + 1) * C_out); it may clobber input bytes below
  low(p) * C_in only. So with d = output.start - input.start,
      d <= min_p (low(p) * C_in - (p + 1) * C_out),   N = output.size + that minimum.
Worked cases (one batch, SAME padding, int8; W = input width, C = channels):
  - 3x3 depthwise, stride 1, C_in = C_out = C: low(p) = (oy-1)*W + (ox-1) clipped at 0; the minimum is at an
    interior pixel: -(W + 2) * C, so N = output.size - (W + 2) * C: the output starts W + 2 pixels (one input row
    and two pixels) before the input and nearly all of it overlaps. vww's 48x48x8 layer: 18,432 + 400 bytes.
  - stride 2 (depthwise or full convolution, 3x3, even input, pad_top = 0): low(p) = 2*oy*W + 2*ox, which runs
    ahead of the output; the minimum sits at p = 0 or at the end of the first output row. vww's 96x96x3 -> 48x48x8
    convolution: d <= -102, and the 48x48x16 -> 24x24x16 depthwise: d <= -16.
  - 1x1 convolution, stride 1: low(p) = p, the minimum of p * C_in - (p + 1) * C_out is -C_out when C_in >= C_out
    (output one pixel ahead) and (P - 1) * C_in - P * C_out when it expands (P pixels): N = input.size - C_in, the
    output ends one input pixel before the input ends. A backward kernel (output.start >= input.start, pixels in
    decreasing order, the current input pixel copied to a C_in-byte scratch before its output pixel is stored)
    would save those C_in bytes; forward keeps one direction for every kernel and needs no scratch, so it is not
    declared.
  - pooling: as depthwise (a 2x2 stride-2 pool reads ahead like a strided convolution).
Elementwise ADD / MUL, an input with the output's shape (no broadcasting for that input): element i is written
after element i of each input is read, so N = input.size: the output may start at or below the input (in place).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.geometry import Window2D


@dataclass(frozen=True)
class OutputOverlap:
    """Tensor `output` may end up to `bytes` after the start of tensor `input` (output.end <= input.start + bytes)
    at the operator's step: a kernel that walks forward and reads every input byte before it overwrites it. The
    compiler hands these to the planner as its output_before_input allowances."""

    input: int
    output: int
    bytes: int


def forward_window_bytes(source: Tensor, result: Tensor, window: Window2D) -> int:
    """N for a raster-order window kernel (see the module docstring); <= 0 means no overlap at all."""
    batches, in_h, in_w, in_c = source.shape
    out_c = result.shape[3] * result.dtype.itemsize
    in_c *= source.dtype.itemsize
    rows = np.maximum(np.arange(window.out_h) * window.stride_h - window.pad_top, 0)
    cols = np.maximum(np.arange(window.out_w) * window.stride_w - window.pad_left, 0)
    image = (rows[:, None] * in_w + cols[None, :]).ravel()
    low = (np.arange(batches)[:, None] * in_h * in_w + image[None, :]).ravel().astype(np.int64)
    return forward_raster_bytes(low, in_c, out_c, result.nbytes)


def forward_raster_bytes(low: np.ndarray, in_pixel_bytes: int, out_pixel_bytes: int, out_nbytes: int) -> int:
    """N for any kernel that stores output pixels in raster order, all of a pixel's bytes before the next pixel's:
    low[p] is the lowest input pixel output pixel p reads (a lower bound will do; an output that reads nothing
    may give the input's pixel count)."""
    low = np.minimum.accumulate(np.asarray(low, dtype=np.int64)[::-1])[::-1]  # read by this output or a later one
    pixels = np.arange(1, low.size + 1, dtype=np.int64)
    return out_nbytes + int(np.min(low * in_pixel_bytes - pixels * out_pixel_bytes))


def window_overlap(op: Operator, source: Tensor, result: Tensor, window: Window2D) -> list[OutputOverlap]:
    allowed = forward_window_bytes(source, result, window)
    return [OutputOverlap(op.inputs[0], op.outputs[0], allowed)] if allowed > 0 else []


def elementwise_overlap(graph: Graph, op: Operator) -> list[OutputOverlap]:
    """In place for each input of the output's shape and element size."""
    result = graph.tensors[op.outputs[0]]
    return [OutputOverlap(index, op.outputs[0], graph.tensors[index].nbytes)
            for index in dict.fromkeys(op.inputs)
            if index >= 0 and not graph.tensors[index].is_constant
            and tuple(graph.tensors[index].shape) == tuple(result.shape)
            and graph.tensors[index].dtype.itemsize == result.dtype.itemsize]
