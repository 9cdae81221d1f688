"""SPLIT, SPLIT_V and UNPACK of int8 tensors along one constant axis: one call (fg_split_s8; fg_split_s16 for the
int16 tensors of 16x8 models) writes every output, each its own buffer in the plan (the call takes them as one
array of pointers). float32 (fg_split_f32) is accepted too, as TFLM accepts it: the TFLite converter leaves a float
SPLIT between DEQUANTIZE and QUANTIZE in a Keras GRU."""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.operands import constant_ints, operand, require_dtype, resolve_axis, unsupported

_FUNCTIONS = {DType.INT8: "fg_split_s8", DType.INT16: "fg_split_s16", DType.FLOAT32: "fg_split_f32"}


class _SplitBase:
    is_alias = False
    source_position = 0
    num_inputs = 1
    dtypes = tuple(_FUNCTIONS)

    def _axis(self, graph: Graph, op: Operator) -> int:
        raise NotImplementedError

    def _sizes(self, graph: Graph, op: Operator, axis: int) -> list[int]:
        """The extent of each output along the axis."""
        raise NotImplementedError

    def _expected_shape(self, source: Tensor, axis: int, size: int) -> tuple[int, ...]:
        return (*source.shape[:axis], size, *source.shape[axis + 1:])

    def check(self, graph: Graph, op: Operator) -> None:
        if not op.outputs or len(op.inputs) != self.num_inputs:
            raise unsupported(graph, op, f"expects {self.num_inputs} inputs and at least one output, has "
                                         f"{len(op.inputs)} and {len(op.outputs)}")
        source = operand(graph, op, self.source_position)
        require_dtype(graph, op, source, self.dtypes)
        axis = self._axis(graph, op)
        sizes = self._sizes(graph, op, axis)
        if len(sizes) != len(op.outputs) or sum(sizes) != source.shape[axis] or min(sizes) <= 0:
            raise unsupported(graph, op, f"splits {sizes} of axis {axis} do not cover {source.describe()} "
                                         f"with {len(op.outputs)} non-empty outputs")
        for index, size in zip(op.outputs, sizes, strict=True):
            output = graph.tensors[index]
            require_dtype(graph, op, output, (source.dtype,))
            if tuple(output.shape) != self._expected_shape(source, axis, size):
                raise unsupported(graph, op, f"{output.describe()} should have shape "
                                             f"{list(self._expected_shape(source, axis, size))}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source = operand(graph, op, self.source_position)
        axis = self._axis(graph, op)
        inner = math.prod(source.shape[axis + 1:])
        chunks = np.array([size * inner for size in self._sizes(graph, op, axis)], dtype=np.int32)
        return KernelCall(function=_FUNCTIONS[source.dtype], params_type="fg_split_params",
                          params={"num_outputs": len(op.outputs), "outer": math.prod(source.shape[:axis]),
                                  "input_row": source.shape[axis] * inner, "chunk_sizes": TableRef("chunk_sizes")},
                          inputs=[op.inputs[self.source_position]], outputs=list(op.outputs),
                          tables=[ConstTable("chunk_sizes", "int32_t", chunks)], variadic_outputs=True)


def _constant_axis(graph: Graph, op: Operator, position: int) -> int:
    axis = constant_ints(graph, op, position, "axis").ravel()
    if axis.size != 1:
        raise unsupported(graph, op, f"the axis has {axis.size} entries, expected 1")
    return int(axis[0])


class SplitKernel(_SplitBase):
    opcode = "SPLIT"
    source_position = 1  # SPLIT takes (axis, input)
    num_inputs = 2

    def _axis(self, graph: Graph, op: Operator) -> int:
        rank = len(operand(graph, op, 1).shape)
        return resolve_axis(graph, op, _constant_axis(graph, op, 0), rank)

    def _sizes(self, graph: Graph, op: Operator, axis: int) -> list[int]:
        size, count = operand(graph, op, 1).shape[axis], len(op.outputs)
        if size % count:
            raise unsupported(graph, op, f"axis {axis} of size {size} does not split into {count} equal parts")
        return [size // count] * count


class SplitVKernel(_SplitBase):
    opcode = "SPLIT_V"
    num_inputs = 3

    def _axis(self, graph: Graph, op: Operator) -> int:
        return resolve_axis(graph, op, _constant_axis(graph, op, 2), len(operand(graph, op, 0).shape))

    def _sizes(self, graph: Graph, op: Operator, axis: int) -> list[int]:
        sizes = [int(s) for s in constant_ints(graph, op, 1, "size_splits").ravel()]
        if sizes.count(-1) == 1:  # one size may be left for the operator to infer
            sizes[sizes.index(-1)] = operand(graph, op, 0).shape[axis] - (sum(sizes) + 1)
        return sizes


class UnpackKernel(_SplitBase):
    opcode = "UNPACK"

    def _axis(self, graph: Graph, op: Operator) -> int:
        return resolve_axis(graph, op, int(op.options.get("axis", 0)), len(operand(graph, op, 0).shape))

    def _sizes(self, graph: Graph, op: Operator, axis: int) -> list[int]:
        return [1] * operand(graph, op, 0).shape[axis]

    def _expected_shape(self, source: Tensor, axis: int, size: int) -> tuple[int, ...]:
        return (*source.shape[:axis], *source.shape[axis + 1:])


KERNELS = [SplitKernel(), SplitVKernel(), UnpackKernel()]
