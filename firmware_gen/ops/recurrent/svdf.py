"""SVDF on int8 activations, as TFLite Micro's integer SVDF computes it, with its activation state.

Inputs: input [batch, input_size] int8, weights_feature [filters, input_size] int8, weights_time [filters, memory]
(int16 or int8, the state's type), bias [units] int32, activation state [batch, filters * memory] (a variable
tensor, int16 or int8); output [batch, units] int8, filters = units * rank. Each invocation shifts the state left by
one element, writes the feature products (rescaled to the state's scale) into the newest column, then sums
weights_time x state over each unit's `rank` filters, adds the bias and rescales to the output.

The kernel needs no scratch: TFLM keeps the per-filter time products in an int32 scratch buffer and reduces them
afterwards; fg_svdf_s8 adds each filter's int32 product into its unit's accumulator as soon as it is complete,
the same sums in the same int32 arithmetic. TFLM's integer kernel applies no fused activation: NONE and RELU (what
converters write) are accepted and, as there, not applied.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from firmware_gen.ops.support.operands import require_arity, unsupported
from firmware_gen.ops.support.requantize import wrap_int32
from firmware_gen.ops.support.tensor_checks import int8_per_tensor

STATE_DTYPES = (DType.INT16, DType.INT8)
IGNORED_ACTIVATIONS = ("NONE", "RELU")  # TFLM's integer SVDF applies none
BIAS_SCALE_TOLERANCE = 1e-5  # absolute, as TFLM's PrepareSvdf


@dataclass(frozen=True)
class SvdfShapes:
    source: Tensor
    features: Tensor
    time: Tensor
    bias: Tensor
    state: Tensor
    result: Tensor
    batches: int
    input_size: int
    filters: int
    units: int
    rank: int
    memory: int


def _constant(graph: Graph, op: Operator, index: int, role: str, dtypes: tuple[DType, ...], rank: int) -> Tensor:
    tensor = graph.tensors[index] if index >= 0 else None
    if tensor is None:
        raise unsupported(graph, op, f"{role} is missing (TFLite Micro's int8 SVDF needs it)")
    if tensor.dtype not in dtypes or len(tensor.shape) != rank or not tensor.is_constant:
        raise unsupported(graph, op, f"{role} {tensor.describe()} must be a constant {'/'.join(map(str, dtypes))} "
                                     f"tensor of rank {rank}")
    if tensor.quantization is None or tensor.quantization.per_channel:
        raise unsupported(graph, op, f"{role} {tensor.describe()} needs one (per-tensor) scale")
    return tensor


def _state(graph: Graph, op: Operator, index: int) -> Tensor:
    state = graph.tensors[index] if index >= 0 else None
    if state is None or not state.is_variable:
        what = "is missing" if state is None else f"{state.describe()} is not a variable tensor"
        raise unsupported(graph, op, f"activation state (input 4) {what}; SVDF keeps its state in one")
    if state.dtype not in STATE_DTYPES or state.quantization is None or state.quantization.per_channel:
        raise unsupported(graph, op, f"activation state {state.describe()} must be int16 or int8 with one scale")
    readers = [other.index for other in graph.operators if index in (*other.inputs, *other.outputs)]
    if readers != [op.index]:
        raise unsupported(graph, op, f"activation state {state.describe()} is used by operators {readers}; "
                                     "only by its SVDF is supported")
    return state


def svdf_shapes(graph: Graph, op: Operator) -> SvdfShapes:
    """The operands, checked against each other and against what TFLM's integer SVDF accepts."""
    require_arity(graph, op, (5,))
    rank = op.options.get("rank", 0)
    activation = op.options.get("activation", "NONE")
    if activation not in IGNORED_ACTIVATIONS:
        raise unsupported(graph, op, f"option activation {activation}: the int8 SVDF supports "
                                     f"{' or '.join(IGNORED_ACTIVATIONS)} (TFLite Micro applies none)")
    source = int8_per_tensor(graph, op, op.inputs[0], "input")
    result = int8_per_tensor(graph, op, op.outputs[0], "output")
    if len(source.shape) != 2:
        raise unsupported(graph, op, f"input {source.describe()} must be [batch, input_size]")
    features = _constant(graph, op, op.inputs[1], "weights_feature", (DType.INT8,), 2)
    state = _state(graph, op, op.inputs[4])
    time = _constant(graph, op, op.inputs[2], "weights_time", (state.dtype,), 2)
    bias = _constant(graph, op, op.inputs[3], "bias", (DType.INT32,), 1)
    batches, input_size = source.shape
    filters, memory = time.shape
    if not isinstance(rank, int) or rank < 1 or filters % rank:
        raise unsupported(graph, op, f"option rank {rank}: must be a positive divisor of the {filters} filters")
    units = filters // rank
    expected = [(features, (filters, input_size)), (bias, (units,)), (state, (batches, filters * memory)),
                (result, (batches, units))]
    for tensor, shape in expected:
        if tuple(tensor.shape) != shape:
            raise unsupported(graph, op, f"{tensor.describe()} should be {list(shape)} (rank {rank})")
    return SvdfShapes(source, features, time, bias, state, result, batches, input_size, filters, units, rank, memory)


def _multiplier(a: float, b: float, c: float) -> tuple[int, int]:
    """a * b / c in double precision (the oracle's PrepareSvdf; measured: single precision differs by an ulp and
    changes a rounding), then Q31."""
    return quantize_multiplier(a * b / c)


class SvdfKernel:
    opcode = "SVDF"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        shapes = svdf_shapes(graph, op)
        product = float(np.float32(shapes.state.quantization.scale) * np.float32(shapes.time.quantization.scale))
        if abs(shapes.bias.quantization.scale - product) >= BIAS_SCALE_TOLERANCE:
            raise unsupported(graph, op, f"bias {shapes.bias.describe()} has scale {shapes.bias.quantization.scale:g}"
                                         f"; TFLite Micro needs state scale * weights_time scale = {product:g}")

    def macs(self, graph: Graph, op: Operator) -> int:
        s = svdf_shapes(graph, op)
        return s.batches * s.filters * (s.input_size + s.memory)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        s = svdf_shapes(graph, op)
        feature = _multiplier(s.source.quantization.scale, s.features.quantization.scale, s.state.quantization.scale)
        output = _multiplier(s.state.quantization.scale, s.time.quantization.scale, s.result.quantization.scale)
        params = {"batches": s.batches, "input_size": s.input_size, "filters": s.filters, "units": s.units,
                  "rank": s.rank, "memory": s.memory, "input_offset": -s.source.quantization.zero_point,
                  "state_zero_point": s.state.quantization.zero_point,
                  "output_zero_point": s.result.quantization.zero_point,
                  "feature_multiplier": feature[0], "feature_shift": feature[1],
                  "output_multiplier": output[0], "output_shift": output[1],
                  "state_bits": 8 * s.state.dtype.itemsize, "feature_bias": TableRef("feature_bias")}
        sums = np.asarray(s.features.data, dtype=np.int64).sum(axis=1)
        feature_bias = ConstTable("feature_bias", "int32_t", wrap_int32(-s.source.quantization.zero_point * sums))
        return KernelCall("fg_svdf_s8", "fg_svdf_params", params,
                          inputs=[op.inputs[0], op.inputs[1], op.inputs[2], op.inputs[3]],
                          outputs=[op.outputs[0], op.inputs[4]], tables=[feature_bias])


KERNELS = [SvdfKernel()]
