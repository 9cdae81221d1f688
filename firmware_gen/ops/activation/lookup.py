"""ABS (ops/activation/abs.py) and RSQRT on int8: functions of one input byte, so the compiler evaluates TFLM's
integer formula
(elementwise.cc, AbsEvalQuantized and RsqrtEvalQuantized) on all 256 inputs and the device looks the results up
(fg_lookup_s8, the kernel of the table-driven activations). NEG and SQRT have no int8 kernel in TFLM and are not
offered.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.support.fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier
from firmware_gen.ops.support.fixedpoint_math import inv_sqrt_quantized_multiplier_exp
from firmware_gen.ops.support.tensor_checks import int8_per_tensor, unsupported

INT8_INPUTS = range(-128, 128)


PerTensorCheck = Callable[[Graph, Operator, int, str], Tensor]


def unary_operands(graph: Graph, op: Operator, per_tensor: PerTensorCheck = int8_per_tensor) -> tuple[Tensor, Tensor]:
    """The checked (input, output) of a table-driven operator: int8 (or as `per_tensor` checks), per tensor, one
    shape."""
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise unsupported(graph, op, f"expected one input and one output, got {len(op.inputs)} and "
                                     f"{len(op.outputs)}")
    source = per_tensor(graph, op, op.inputs[0], "input")
    result = per_tensor(graph, op, op.outputs[0], "output")
    if tuple(source.shape) != tuple(result.shape):
        raise unsupported(graph, op, f"output {result.describe()} does not have the shape of input "
                                     f"{source.describe()}")
    return source, result


def lookup_call(op: Operator, size: int, table: np.ndarray) -> KernelCall:
    """fg_lookup_s8 over `size` elements; table: 256 int8 outputs indexed by the input byte read as uint8."""
    return KernelCall("fg_lookup_s8", "fg_lookup_params", {"size": size, "table": TableRef("table")},
                      inputs=[op.inputs[0]], outputs=[op.outputs[0]], tables=[ConstTable("table", "int8_t", table)])


class LookupKernel:
    """One int8 input, one int8 output of its shape, per-tensor quantization; a 256-entry table."""

    opcode: str
    is_alias = False

    def operands(self, graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
        return unary_operands(graph, op)

    def check(self, graph: Graph, op: Operator) -> None:
        self.table(*self.operands(graph, op))

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.outputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, result = self.operands(graph, op)
        by_input = np.clip(np.array(self.table(source, result), dtype=np.int64), -128, 127).astype(np.int8)
        return lookup_call(op, result.num_elements, np.roll(by_input, 128))  # -128..127 -> by the byte as uint8

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)

    def table(self, source: Tensor, result: Tensor) -> list[int]:
        """The output for each input byte -128..127, before saturation to int8."""
        raise NotImplementedError


RSQRT_HEADROOM = 20  # TFLM's kShift: 1/sqrt(value) is kept as an integer scaled by 2^20


def rsqrt_rescaling(source: Tensor, result: Tensor) -> tuple[int, int]:
    """1 / (sqrt(input scale) * output scale) as a Q31 multiplier and shift."""
    return quantize_multiplier(1.0 / (math.sqrt(source.quantization.scale) * result.quantization.scale))


class RsqrtKernel(LookupKernel):
    """Inputs below the zero point (negative reals) make TFLM fail the invocation; the table gives them the int8
    maximum, as TFLM does for the zero point itself."""

    opcode = "RSQRT"

    def table(self, source: Tensor, result: Tensor) -> list[int]:
        in_q, out_q = source.quantization, result.quantization
        multiplier, shift = rsqrt_rescaling(source, result)
        values = []
        for x in INT8_INPUTS:
            value = x - in_q.zero_point
            if value <= 0:
                values.append(127)
                continue
            inv_multiplier, inv_shift = inv_sqrt_quantized_multiplier_exp(value, -1)
            data = multiply_by_quantized_multiplier(1, inv_multiplier, inv_shift + RSQRT_HEADROOM)
            values.append(multiply_by_quantized_multiplier(data, multiplier, shift - RSQRT_HEADROOM)
                          + out_q.zero_point)
        return values

