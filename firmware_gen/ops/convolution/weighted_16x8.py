"""The 16x8 form of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: int16 activations (zero point 0), int8 weights.

As TFLite Micro's reference kernels (reference_integer_ops, AccumScalar): with an int64 bias, or none, the
accumulator is int64 and scaled by the 64-bit MultiplyByQuantizedMultiplier (the multiplier rounded to 16 bits, one
rounding); with an int32 bias the accumulator is int32 and scaled by the usual 32-bit one (double rounding). The
kernels always accumulate in int64 and take the bias as an int64 table (`wide.bias`), written here; `wide.narrow`
selects the int32 behaviour (the sum read modulo 2^32, then the 32-bit scaling).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.requantize import constant_operands, output_stage
from firmware_gen.ops.support.tensor_checks import unsupported


def is_16x8(source: Tensor) -> bool:
    return source.dtype is DType.INT16


# fg_depthwise_conv2d_s16 sums one filter row at a time in int32: 512 products of 23 bits at most.
MAX_DEPTHWISE_FILTER_WIDTH = 512


def check_depthwise_16x8(graph: Graph, op: Operator, filter_w: int, position: int = 2) -> None:
    """TFLite Micro's 16x8 DEPTHWISE_CONV_2D reads its bias as int64 whatever its type (an int32 one is misread);
    our kernel's filter rows are at most MAX_DEPTHWISE_FILTER_WIDTH wide."""
    if filter_w > MAX_DEPTHWISE_FILTER_WIDTH:
        raise unsupported(graph, op, f"a 16x8 filter {filter_w} wide is not supported (at most "
                                     f"{MAX_DEPTHWISE_FILTER_WIDTH})")
    check_int64_bias(graph, op, position)


def check_int64_bias(graph: Graph, op: Operator, position: int) -> None:
    """The 16x8 kernels of TFLite Micro that read their bias as int64 whatever its type (DEPTHWISE_CONV_2D,
    TRANSPOSE_CONV): any other bias type is refused rather than misread as TFLM would."""
    if len(op.inputs) <= position or op.inputs[position] < 0:
        return
    bias = graph.tensors[op.inputs[position]]
    if bias.dtype is not DType.INT64:
        raise unsupported(graph, op, f"bias {bias.describe()} is {bias.dtype}; TFLite Micro's 16x8 {op.opcode} "
                                     f"reads an int64 bias only")


def wide_bias(graph: Graph, op: Operator, position: int = 2) -> tuple[list[ConstTable], tuple]:
    """The `wide` params field (fg_wide_bias) and the table it points at (none without a bias)."""
    if len(op.inputs) <= position or op.inputs[position] < 0:
        return [], (0, 0)
    bias = graph.tensors[op.inputs[position]]
    if not bias.is_constant:
        raise unsupported(graph, op, f"bias {bias.describe()} is not a constant; the 16x8 kernels need a constant "
                                     f"bias")
    table = ConstTable("wide_bias", "int64_t", np.asarray(bias.data, dtype=np.int64).ravel())
    return [table], (TableRef(table.suffix), int(bias.dtype is DType.INT32))


# Output channels per group of the interleaved weight layout (FG_S16_GROUP, fg/support/dot_s16.h).
GROUP = 8


def interleaved_weights(rows: np.ndarray) -> ConstTable:
    """[out_c, taps] int8 weights as fg_dot8_s16_s8 reads them: each group of GROUP output channels interleaved
    ([group][taps][GROUP]), then the other out_c % GROUP rows as they are."""
    rows = np.asarray(rows, dtype=np.int8)
    grouped = rows.shape[0] - rows.shape[0] % GROUP
    head = rows[:grouped].reshape(-1, GROUP, rows.shape[1]).transpose(0, 2, 1)
    return ConstTable("interleaved", "int8_t", np.concatenate([head.ravel(), rows[grouped:].ravel()]))


def call_16x8(graph: Graph, op: Operator, function: str, params_type: str, fields: dict[str, object],
              placeholders: dict[str, object], multipliers: np.ndarray, shifts: np.ndarray,
              interleave: bool = False) -> KernelCall:
    """A 16x8 kernel call: `fields` (geometry) and the output stage, then `placeholders` for the int8 variants'
    fields that precede `wide` in the params struct, then `wide`. The kernel takes input, weights, output; with
    `interleave` and constant operands the weights (read as [out_c, taps]) travel instead in the `interleaved` field
    that follows `wide` (interleaved_weights) and the weights argument is NULL."""
    source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    stage = output_stage(graph, op, source, result, multipliers, shifts)
    tables, wide = wide_bias(graph, op)
    params = {**fields, **stage.fields, **placeholders, "wide": wide}
    inputs = [op.inputs[0], op.inputs[1]]
    if interleave and constant_operands(graph, op):
        weights = np.asarray(graph.tensors[op.inputs[1]].data)
        table = interleaved_weights(weights.reshape(weights.shape[0], -1))
        params["interleaved"] = TableRef(table.suffix)
        tables.append(table)
        inputs[1] = -1
    return KernelCall(function, params_type, params, inputs=inputs, outputs=[op.outputs[0]],
                      tables=[*stage.tables, *tables])
