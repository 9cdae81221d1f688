"""BATCH_MATMUL on int8 tensors, or int16 ones (16x8 models), as TFLite Micro's reference kernel computes it.

output[..., m, n] = requantize(sum_k (lhs[..., m, k] - lhs_zp) * (rhs[..., k, n] - rhs_zp)), with adj_x reading lhs
as [..., k, m] and adj_y reading rhs as [..., n, k] (TFLM transposes them into scratch tensors; our kernel reads them
in place through strides instead). Ranks 2 to 5; the batch dimensions (all but the last two) broadcast as TFLite
defines it: right-aligned, a dimension of 1 repeats. One scale per operand (TFLM has no per-channel BATCH_MATMUL), no
fused activation; the multiplier is the per-tensor FULLY_CONNECTED one (GetQuantizedConvolutionMultipler).
On int16 (BatchMatMul<int16_t, int64_t>) both operands and the output are int16 with zero point 0 (TFLM runs no
int16 x int8 BATCH_MATMUL), the products summed in int64 and scaled by the 64-bit MultiplyByQuantizedMultiplier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.layout import row_major_strides
from firmware_gen.ops.support.operands import require_arity
from firmware_gen.ops.support.requantize import fully_connected_multiplier, output_stage
from firmware_gen.ops.support.tensor_checks import activation_per_tensor, same_activation_dtype, unsupported

MAX_RANK = 5
BATCH_DIMS = MAX_RANK - 2
# fg_multiply_by_quantized_multiplier_64 shifts right by 15 - shift: at least 1.
MAX_WIDE_SHIFT = 14


@dataclass(frozen=True)
class MatmulShapes:
    lhs: Tensor
    rhs: Tensor
    result: Tensor
    batch_shape: tuple[int, ...]  # BATCH_DIMS output batch dimensions, padded with 1s in front
    rows: int  # m
    cols: int  # n
    depth: int  # k


def _batch_dims(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (1,) * (MAX_RANK - len(shape)) + tuple(shape[:-2])


def matmul_shapes(graph: Graph, op: Operator) -> MatmulShapes:
    require_arity(graph, op, {2})
    lhs = activation_per_tensor(graph, op, op.inputs[0], "lhs")
    rhs = activation_per_tensor(graph, op, op.inputs[1], "rhs")
    result = activation_per_tensor(graph, op, op.outputs[0], "output")
    same_activation_dtype(graph, op, lhs, rhs, result)
    for role, tensor in (("lhs", lhs), ("rhs", rhs)):
        if not 2 <= len(tensor.shape) <= MAX_RANK:
            raise unsupported(graph, op, f"{role} {tensor.describe()} has rank {len(tensor.shape)}; TFLM takes 2 to "
                                         f"{MAX_RANK}")
    adj_x, adj_y = bool(op.options.get("adj_x", False)), bool(op.options.get("adj_y", False))
    rows, depth = lhs.shape[-2:][::-1] if adj_x else lhs.shape[-2:]
    rhs_depth, cols = rhs.shape[-2:][::-1] if adj_y else rhs.shape[-2:]
    if depth != rhs_depth:
        raise unsupported(graph, op, f"lhs {lhs.describe()} (adj_x={adj_x}) and rhs {rhs.describe()} "
                                     f"(adj_y={adj_y}) have different accumulation depths {depth} and {rhs_depth}")
    batch = []
    for a, b in zip(_batch_dims(lhs.shape), _batch_dims(rhs.shape), strict=True):
        if a != b and 1 not in (a, b):
            raise unsupported(graph, op, f"the batch dimensions of lhs {lhs.describe()} and rhs {rhs.describe()} "
                                         f"do not broadcast")
        batch.append(max(a, b))
    rank = max(len(lhs.shape), len(rhs.shape))
    expected = (*batch[BATCH_DIMS - (rank - 2):], rows, cols)
    if tuple(result.shape) != expected:
        raise unsupported(graph, op, f"output {result.describe()} should be {list(expected)}")
    return MatmulShapes(lhs, rhs, result, tuple(batch), rows, cols, depth)


def _batch_strides(shape: tuple[int, ...], batch_shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element stride of each output batch dimension in an operand (0 where the operand repeats)."""
    dims = _batch_dims(shape)
    strides = row_major_strides((*dims, math.prod(shape[-2:])))[:BATCH_DIMS]
    return tuple(0 if d == 1 and n != 1 else s for d, n, s in zip(dims, batch_shape, strides, strict=True))


class BatchMatmulKernel:
    opcode = "BATCH_MATMUL"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        self.lower(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        shapes = matmul_shapes(graph, op)
        return math.prod(shapes.batch_shape) * shapes.rows * shapes.cols * shapes.depth

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        s = matmul_shapes(graph, op)
        multiplier, shift = fully_connected_multiplier(s.lhs.quantization.scale, s.rhs.quantization.scale,
                                                       s.result.quantization.scale)
        wide = s.lhs.dtype is DType.INT16
        if wide and int(shift[0]) > MAX_WIDE_SHIFT:
            raise unsupported(graph, op, f"lhs scale * rhs scale / output scale is 2^{int(shift[0]) - 1} or more; "
                                         f"the int16 scaling takes less than 2^{MAX_WIDE_SHIFT}")
        stage = output_stage(graph, op, s.lhs, s.result, np.asarray(multiplier), np.asarray(shift))
        adj_x, adj_y = bool(op.options.get("adj_x", False)), bool(op.options.get("adj_y", False))
        # Element strides of lhs(m, k) and rhs(k, n) within one matrix.
        lhs_row, lhs_depth = (1, s.rows) if adj_x else (s.depth, 1)
        rhs_depth, rhs_col = (1, s.depth) if adj_y else (s.cols, 1)
        params = {"batch_shape": s.batch_shape, "lhs_batch_strides": _batch_strides(s.lhs.shape, s.batch_shape),
                  "rhs_batch_strides": _batch_strides(s.rhs.shape, s.batch_shape), "rows": s.rows, "cols": s.cols,
                  "depth": s.depth, "lhs_row_stride": lhs_row, "lhs_depth_stride": lhs_depth,
                  "rhs_depth_stride": rhs_depth, "rhs_col_stride": rhs_col,
                  "rhs_offset": -s.rhs.quantization.zero_point, **stage.fields}
        function = "fg_batch_matmul_s16" if wide else "fg_batch_matmul_s8"
        return KernelCall(function, "fg_batch_matmul_params", params, inputs=list(op.inputs),
                          outputs=[op.outputs[0]], tables=stage.tables)


KERNELS = [BatchMatmulKernel()]
