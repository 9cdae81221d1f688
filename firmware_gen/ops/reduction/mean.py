"""MEAN of int8 or int16 (16x8, zero point 0) tensors over constant axes, as TFLM's QuantizedMeanOrSum computes it
(reduce_common.cc: the same arithmetic for both types, saturated to the element type).

TFLM sums in int32, then folds 1/count into the input->output rescaling multiplier (losing some precision
exactly as done here), subtracts count * input zero point and rescales once.
"""

from __future__ import annotations

import math

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap
from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from firmware_gen.ops.support.layout import MAX_RANK, coalesce, row_major_strides, walk_params
from firmware_gen.ops.support.operands import (
    constant_ints,
    operand,
    per_tensor_quantization,
    require_arity,
    require_dtype,
    resolve_axis,
    unsupported,
)
from firmware_gen.ops.support.tensor_checks import activation_per_tensor, same_activation_dtype

FUNCTIONS = {DType.INT8: "fg_mean_s8", DType.INT16: "fg_mean_s16"}


def wrap_int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def mean_multiplier(real_multiplier: float, count: int) -> tuple[int, int]:
    """TFLM's output multiplier and shift with the division by `count` folded in."""
    multiplier, shift = quantize_multiplier(real_multiplier)
    fold = min(count.bit_length() - 1, 32, 31 + shift)
    return (multiplier << fold) // count, shift - fold


class MeanKernel:
    opcode = "MEAN"
    is_alias = False
    dtypes: tuple[DType, ...] = (DType.INT8, DType.INT16)

    def _axes(self, graph: Graph, op: Operator) -> list[int]:
        rank = len(operand(graph, op, 0).shape)
        axes: list[int] = []
        for axis in constant_ints(graph, op, 1, "axes").ravel():
            resolved = resolve_axis(graph, op, int(axis), rank)
            if resolved not in axes:
                axes.append(resolved)
        return axes

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {2})
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        require_dtype(graph, op, source, self.dtypes)
        require_dtype(graph, op, output, self.dtypes)
        same_activation_dtype(graph, op, source, output)
        if len(source.shape) > MAX_RANK:
            raise unsupported(graph, op, f"{source.describe()} has more than {MAX_RANK} dimensions")
        activation_per_tensor(graph, op, op.inputs[0], "input")
        activation_per_tensor(graph, op, op.outputs[0], "output")
        axes = self._axes(graph, op)
        kept = [n for d, n in enumerate(source.shape) if d not in axes]
        if op.options.get("keep_dims", False):
            expected = tuple(1 if d in axes else n for d, n in enumerate(source.shape))
            if tuple(output.shape) != expected:
                raise unsupported(graph, op, f"{output.describe()} should have shape {list(expected)}")
        elif output.num_elements != math.prod(kept):
            raise unsupported(graph, op, f"{output.describe()} should hold {math.prod(kept)} elements")
        if source.num_elements == 0:
            raise unsupported(graph, op, f"{source.describe()} is empty")

    def macs(self, graph: Graph, op: Operator) -> int:
        return operand(graph, op, 0).num_elements

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        """In place from the input's start (MEAN, SUM, REDUCE_MAX/MIN: int8 to int8). Output o is stored after
        every read of outputs 0..o; outputs after o read input offsets >= their first offset, which grows with
        the output index at least as fast as the output index (a kept dimension's input stride is at least its
        output stride), so no later read sees byte o of the input overwritten."""
        if operand(graph, op, 0).is_constant:
            return []
        return [OutputOverlap(op.inputs[0], op.outputs[0], graph.tensors[op.outputs[0]].nbytes)]

    def walks(self, graph: Graph, op: Operator) -> tuple[dict[str, int | tuple[int, ...]], int]:
        """The outer (kept dimensions) and inner (reduced dimensions) walks as params fields, and the count of
        elements reduced into each output."""
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        axes = self._axes(graph, op)
        strides = row_major_strides(source.shape)
        outer = coalesce([(n, strides[d]) for d, n in enumerate(source.shape) if d not in axes])
        inner = coalesce([(n, strides[d]) for d, n in enumerate(source.shape) if d in axes])
        count = math.prod(source.shape[d] for d in axes)
        walks = {"num_outputs": output.num_elements, **walk_params(outer, "outer_"), **walk_params(inner, "inner_")}
        return walks, count

    def output_multiplier(self, real_multiplier: float, count: int) -> tuple[int, int]:
        return mean_multiplier(real_multiplier, count)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        in_q = per_tensor_quantization(graph, op, source)
        out_q = per_tensor_quantization(graph, op, output)
        walks, count = self.walks(graph, op)
        multiplier, shift = self.output_multiplier(in_q.scale / out_q.scale, count)
        return KernelCall(
            function=FUNCTIONS[source.dtype], params_type="fg_mean_params",
            params={**walks, "count": count, "zero_point_sum": wrap_int32(in_q.zero_point * count),
                    "multiplier": multiplier, "shift": shift, "output_zero_point": out_q.zero_point},
            inputs=[op.inputs[0]], outputs=[op.outputs[0]])


KERNELS = [MeanKernel()]
