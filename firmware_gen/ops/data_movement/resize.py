"""RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR on int8 NHWC tensors, as TFLite Micro's reference kernels compute them;
RESIZE_NEAREST_NEIGHBOR also on int16 (16x8 models: fg_resize_nearest_s16, the int8 kernel on bytes), which TFLM's
bilinear kernel does not take.

Which input rows and columns an output row or column reads depends on the shapes and options only, so it is worked
out here, at generation time, with TFLM's own arithmetic (nearest: single-precision floats, as GetNearestNeighbor;
bilinear on int8: ResizeBilinearInteger's 10-bit fixed point), and handed to the kernels as tables:
  nearest:  rows[out_h], cols[out_w]: the input row / column copied
  bilinear: rows[out_h][3], cols[out_w][3]: lower index, upper index, weight of the upper one in 1/1024
The kernels then only gather (and, bilinear, interpolate and round as TFLM does: to nearest, halves away from zero).
Values are copied or interpolated as raw int8, as TFLM does (no requantization: the converter gives input and output
the same quantization).
"""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.overlap import OutputOverlap, forward_raster_bytes
from firmware_gen.ops.support.operands import (
    constant_ints,
    moved_element_bytes,
    moved_function,
    operand,
    require_arity,
    require_dtype,
    unsupported,
)


def _shapes(graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
    require_arity(graph, op, {2})
    source, result = operand(graph, op, 0), graph.tensors[op.outputs[0]]
    moved_element_bytes(graph, op, source, result)
    if op.opcode == "RESIZE_BILINEAR":
        require_dtype(graph, op, source, (DType.INT8,))
    for tensor in (source, result):
        if len(tensor.shape) != 4:
            raise unsupported(graph, op, f"{tensor.describe()} is not 4-D NHWC")
    size = [int(v) for v in constant_ints(graph, op, 1, "output size").ravel()]
    if size != list(result.shape[1:3]) or (source.shape[0], source.shape[3]) != (result.shape[0], result.shape[3]):
        raise unsupported(graph, op, f"output {result.describe()} does not match input {source.describe()} resized "
                                     f"to size {size}")
    return source, result


def _options(graph: Graph, op: Operator) -> tuple[bool, bool]:
    align, half = bool(op.options.get("align_corners", False)), bool(op.options.get("half_pixel_centers", False))
    if align and half and op.opcode == "RESIZE_BILINEAR":
        raise unsupported(graph, op, "option align_corners=True with half_pixel_centers=True (TFLM refuses both)")
    return align, half


def nearest_indices(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """TFLM's GetNearestNeighbor for every output index, in float32 as it computes."""
    if align_corners and out_size > 1:
        scale = np.float32(in_size - 1) / np.float32(out_size - 1)
    else:
        scale = np.float32(in_size) / np.float32(out_size)
    scaled = (np.arange(out_size, dtype=np.float32) + np.float32(0.5 if half_pixel_centers else 0.0)) * scale
    scaled = scaled.astype(np.float64)  # exact; scaled >= 0, so std::round is floor + (fraction >= 1/2)
    picked = np.floor(scaled) + (scaled - np.floor(scaled) >= 0.5) * align_corners
    picked = np.minimum(picked.astype(np.int64), in_size - 1)
    return np.maximum(picked, 0) if half_pixel_centers else picked


def bilinear_taps(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """[out_size][lower, upper, weight of upper in 1/1024] as ResizeBilinearInteger (C division: toward zero)."""
    if align_corners and out_size > 1:
        scale = ((1 << 10) * (in_size - 1) + (out_size - 1) // 2) // (out_size - 1)
    else:
        scale = ((1 << 10) * in_size + out_size // 2) // out_size
    taps = []
    for index in range(out_size):
        scaled = index * scale + (scale // 2 - (1 << 9) if half_pixel_centers else 0)
        lower = max(int(math.trunc(scaled / (1 << 10))), 0)
        upper = min((scaled + (1 << 10) - 1) // (1 << 10), in_size - 1)
        taps.append((lower, upper, scaled - (1 << 10) * lower))
    return np.array(taps, dtype=np.int32).reshape(out_size, 3)


def _weight_span(taps: np.ndarray) -> int:
    """The largest |weight of the lower| + |weight of the upper| index, in 1/1024 (bounds the bilinear sums)."""
    upper = taps[:, 2].astype(np.int64)
    return int(np.max(np.abs((1 << 10) - upper) + np.abs(upper)))


class _ResizeKernel:
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        source, _ = _shapes(graph, op)
        _options(graph, op)
        rows, cols = self._tables(graph, op)
        for table, size in ((rows, source.shape[1]), (cols, source.shape[2])):
            indices = table if table.ndim == 1 else table[:, :2]
            if indices.min() < 0 or indices.max() >= size:
                raise unsupported(graph, op, f"reads input index {int(indices.max())} of {size} (TFLM would read out "
                                             f"of bounds)")
        if rows.ndim == 2 and 128 * _weight_span(rows) * _weight_span(cols) + (1 << 19) >= 1 << 31:
            raise unsupported(graph, op, "interpolation weights too large for the kernel's int32 sums")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def _tables(self, graph: Graph, op: Operator) -> tuple[np.ndarray, np.ndarray]:
        """Per output row and per output column: the table entries (lowest input index first)."""
        source, result = _shapes(graph, op)
        select = nearest_indices if self.opcode == "RESIZE_NEAREST_NEIGHBOR" else bilinear_taps
        return tuple(np.asarray(select(source.shape[axis], result.shape[axis], *_options(graph, op)))
                     for axis in (1, 2))

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, result = _shapes(graph, op)
        rows, cols = self._tables(graph, op)
        batches, in_h, in_w, depth = source.shape
        depth *= source.dtype.itemsize  # fg_resize_nearest_s16 moves pixels of bytes
        params = {"batches": batches, "in_h": in_h, "in_w": in_w, "depth": depth, "out_h": result.shape[1],
                  "out_w": result.shape[2], "rows": TableRef("rows"), "cols": TableRef("cols")}
        tables = [ConstTable("rows", "int32_t", rows.ravel()), ConstTable("cols", "int32_t", cols.ravel())]
        function = moved_function(self.function, source.dtype.itemsize)
        return KernelCall(function, "fg_resize_params", params, inputs=[op.inputs[0]], outputs=[op.outputs[0]],
                          tables=tables)

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        """Output pixels in raster order, each reading input pixels from (lower row, lower column) on."""
        source, result = _shapes(graph, op)
        batches, in_h, in_w, channels = source.shape
        depth = channels * source.dtype.itemsize
        rows, cols = (table if table.ndim == 1 else table[:, 0] for table in self._tables(graph, op))
        image = (rows.astype(np.int64)[:, None] * in_w + cols[None, :]).ravel()
        low = (np.arange(batches)[:, None] * in_h * in_w + image[None, :]).ravel()
        allowed = forward_raster_bytes(low, depth, depth, result.nbytes)
        return [OutputOverlap(op.inputs[0], op.outputs[0], allowed)] if allowed > 0 else []


class ResizeNearestNeighborKernel(_ResizeKernel):
    opcode = "RESIZE_NEAREST_NEIGHBOR"
    function = "fg_resize_nearest_s8"


class ResizeBilinearKernel(_ResizeKernel):
    opcode = "RESIZE_BILINEAR"
    function = "fg_resize_bilinear_s8"


KERNELS = [ResizeNearestNeighborKernel(), ResizeBilinearKernel()]
