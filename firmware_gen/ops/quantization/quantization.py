"""QUANTIZE (float32 -> int8 / int16, requantization between int8, uint8 and int16, and between int8 / int16 and
int32) and DEQUANTIZE (int8 / uint8 / int16 -> float32). int16 tensors (16x8 models) have zero point 0."""

from __future__ import annotations

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.activation.activation_tables import table_of
from firmware_gen.ops.activation.lookup import lookup_call
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier
from firmware_gen.ops.support.operands import (
    operand,
    per_tensor_quantization,
    require_arity,
    require_same_elements,
    unsupported,
)

_SHORT = {DType.FLOAT32: "f32", DType.INT8: "s8", DType.UINT8: "u8", DType.INT16: "s16", DType.INT32: "s32"}


def _variant(graph: Graph, op: Operator, supported: set[tuple[DType, DType]]) -> str:
    require_arity(graph, op, {1})
    source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
    pair = (source.dtype, output.dtype)
    if pair not in supported:
        names = ", ".join(f"{a} -> {b}" for a, b in sorted(supported, key=str))
        raise unsupported(graph, op, f"{source.dtype} -> {output.dtype} is not supported; supported: {names}")
    require_same_elements(graph, op, source, output)
    for tensor in (source, output):
        if tensor.dtype is DType.INT16 and per_tensor_quantization(graph, op, tensor).zero_point != 0:
            raise unsupported(graph, op, f"{tensor.describe()} has zero point {tensor.quantization.zero_point}; "
                                         f"int16 tensors must have zero point 0")
    return f"{_SHORT[source.dtype]}_{_SHORT[output.dtype]}"


class QuantizeKernel:
    opcode = "QUANTIZE"
    is_alias = False
    supported = {(DType.FLOAT32, DType.INT8), (DType.INT8, DType.INT8), (DType.INT8, DType.UINT8),
                 (DType.UINT8, DType.INT8), (DType.FLOAT32, DType.INT16), (DType.INT8, DType.INT16),
                 (DType.INT16, DType.INT8), (DType.INT16, DType.INT16), (DType.INT16, DType.INT32),
                 (DType.INT32, DType.INT16), (DType.INT8, DType.INT32), (DType.INT32, DType.INT8)}

    def check(self, graph: Graph, op: Operator) -> None:
        _variant(graph, op, self.supported)
        source = operand(graph, op, 0)
        per_tensor_quantization(graph, op, graph.tensors[op.outputs[0]])
        if source.dtype is not DType.FLOAT32:
            per_tensor_quantization(graph, op, source)

    def macs(self, graph: Graph, op: Operator) -> int:
        return operand(graph, op, 0).num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        variant = _variant(graph, op, self.supported)
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        out_q = per_tensor_quantization(graph, op, output)
        input_zero_point, multiplier, shift = 0, 0, 0
        if source.dtype is not DType.FLOAT32:
            in_q = per_tensor_quantization(graph, op, source)
            input_zero_point = in_q.zero_point
            multiplier, shift = quantize_multiplier(in_q.scale / out_q.scale)
        if variant == "s8_s8":  # TFLM's Requantize depends on the input byte only: one table lookup per element
            table = table_of(lambda v: out_q.zero_point
                             + multiply_by_quantized_multiplier(v - input_zero_point, multiplier, shift))
            return lookup_call(op, source.num_elements, table)
        return KernelCall(
            function=f"fg_quantize_{variant}", params_type="fg_quantize_params",
            params={"size": source.num_elements, "scale": out_q.scale, "input_zero_point": input_zero_point,
                    "output_zero_point": out_q.zero_point, "multiplier": multiplier, "shift": shift},
            inputs=[op.inputs[0]], outputs=[op.outputs[0]])


class DequantizeKernel:
    opcode = "DEQUANTIZE"
    is_alias = False
    supported = {(DType.INT8, DType.FLOAT32), (DType.UINT8, DType.FLOAT32), (DType.INT16, DType.FLOAT32)}

    def check(self, graph: Graph, op: Operator) -> None:
        _variant(graph, op, self.supported)
        per_tensor_quantization(graph, op, operand(graph, op, 0))

    def macs(self, graph: Graph, op: Operator) -> int:
        return operand(graph, op, 0).num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        variant = _variant(graph, op, self.supported)
        source = operand(graph, op, 0)
        q = per_tensor_quantization(graph, op, source)
        return KernelCall(function=f"fg_dequantize_{variant}", params_type="fg_dequantize_params",
                          params={"size": source.num_elements, "scale": q.scale, "zero_point": q.zero_point},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])


KERNELS = [QuantizeKernel(), DequantizeKernel()]
