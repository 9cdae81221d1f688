"""AVERAGE_POOL_2D and MAX_POOL_2D on int8 or int16 (zero point 0) NHWC tensors, as TFLite Micro's reference
kernels compute them.

Windows are clipped to the input (padding never counts), the average divides by the in-bounds count with
rounding, and input and output must share their quantization (TFLM refuses the operator otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.geometry import Window2D, window_2d
from firmware_gen.ops.overlap import OutputOverlap, window_overlap
from firmware_gen.ops.support.tensor_checks import (
    activation_per_tensor,
    fused_activation_range,
    same_activation_dtype,
    unsupported,
)

# TFLM accepts an input/output scale difference up to this (absolute, in double precision).
SCALE_TOLERANCE = 1.0e-6


def pool_window(graph: Graph, op: Operator) -> Window2D:
    """The window geometry of a pooling operator, after checking its options and shapes."""
    options = op.options
    padding = options.get("padding")
    if padding not in ("SAME", "VALID"):
        raise unsupported(graph, op, f"padding {padding} is not supported (SAME, VALID)")
    sizes = {name: options.get(name, 0) for name in ("filter_h", "filter_w", "stride_h", "stride_w")}
    bad = [f"{name}={value}" for name, value in sizes.items() if value < 1]
    if bad:
        raise unsupported(graph, op, f"invalid window {', '.join(bad)}")
    source = graph.tensors[op.inputs[0]]
    if len(source.shape) != 4:
        raise unsupported(graph, op, f"input {source.describe()} is not 4-D NHWC")
    window = window_2d(padding, source.shape[1:3], (sizes["filter_h"], sizes["filter_w"]),
                       (sizes["stride_h"], sizes["stride_w"]))
    if window.out_h < 1 or window.out_w < 1:
        raise unsupported(graph, op, f"a {window.filter_h}x{window.filter_w} VALID window does not fit in "
                                     f"input {source.describe()}")
    return window


def _first_empty_window(in_size: int, out_size: int, filter_size: int, stride: int, pad: int) -> int | None:
    for position in range(out_size):
        origin = position * stride - pad
        if max(origin, 0) >= min(origin + filter_size, in_size):
            return position
    return None


@dataclass(frozen=True)
class Pool2DKernel:
    opcode: str
    function: str
    is_alias: bool = False

    def check(self, graph: Graph, op: Operator) -> None:
        if len(op.inputs) != 1 or len(op.outputs) != 1:
            raise unsupported(graph, op, "expected one input and one output")
        source = activation_per_tensor(graph, op, op.inputs[0], "input")
        result = activation_per_tensor(graph, op, op.outputs[0], "output")
        same_activation_dtype(graph, op, source, result)
        window = pool_window(graph, op)
        expected = (source.shape[0], window.out_h, window.out_w, source.shape[3])
        if tuple(result.shape) != expected:
            raise unsupported(graph, op, f"output {result.describe()} should be {list(expected)} for this window")
        for axis, args in (("row", (window.in_h, window.out_h, window.filter_h, window.stride_h, window.pad_top)),
                           ("column", (window.in_w, window.out_w, window.filter_w, window.stride_w, window.pad_left))):
            empty = _first_empty_window(*args)
            if empty is not None:
                raise unsupported(graph, op, f"the window of output {axis} {empty} lies entirely in the padding")
        qi, qo = source.quantization, result.quantization
        if abs(qi.scale - qo.scale) > SCALE_TOLERANCE or qi.zero_point != qo.zero_point:
            raise unsupported(graph, op, f"input {source.describe()} (scale {qi.scale}, zero point {qi.zero_point}) "
                                         f"and output {result.describe()} (scale {qo.scale}, zero point "
                                         f"{qo.zero_point}) must share their quantization")
        fused_activation_range(graph, op, result)

    def macs(self, graph: Graph, op: Operator) -> int:
        window = pool_window(graph, op)
        return graph.tensors[op.outputs[0]].num_elements * window.filter_h * window.filter_w

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        window = pool_window(graph, op)
        activation_min, activation_max = fused_activation_range(graph, op, result)
        params = {
            "batches": source.shape[0],
            "in_h": window.in_h,
            "in_w": window.in_w,
            "channels": source.shape[3],
            "out_h": window.out_h,
            "out_w": window.out_w,
            "filter_h": window.filter_h,
            "filter_w": window.filter_w,
            "stride_h": window.stride_h,
            "stride_w": window.stride_w,
            "pad_top": window.pad_top,
            "pad_left": window.pad_left,
            "activation_min": activation_min,
            "activation_max": activation_max,
        }
        function = self.function.replace("_s8", "_s16") if source.dtype is DType.INT16 else self.function
        return KernelCall(function, "fg_pool2d_params", params, inputs=[op.inputs[0]], outputs=[op.outputs[0]])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        return window_overlap(op, source, result, pool_window(graph, op))


KERNELS = [
    Pool2DKernel("AVERAGE_POOL_2D", "fg_avg_pool2d_s8"),
    Pool2DKernel("MAX_POOL_2D", "fg_max_pool2d_s8"),
]
