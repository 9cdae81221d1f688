"""UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro's integer LSTM computes it: int8 input, output and hidden state with
int32 biases, or (16x8) int16 ones with int64 biases and zero points 0; int8 weights; an int16 cell state whose scale
is a power of two.

Each gate is the sum of two fully-connected products rescaled to Q3.12 (input x weights + bias, hidden state x
recurrent weights), then a sigmoid (the cell gate: tanh, its `activation` option) in Q0.15; the cell
state becomes forget x cell + input x cell gate (clipped when cell_clip > 0); the hidden state is tanh(cell) x
output gate, which is also the step's output. TFLM supports only this standard LSTM: its kernel refuses peephole
weights, a projection, layer normalization and a missing input gate (CIFG), and so does this module. TFLM never reads
the converter's intermediate tensors; neither does this module. The zero points are folded into the biases at
generation time (ops/recurrent/lstm_params.py); the kernel needs no scratch memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.recurrent.lstm_params import lstm_params
from firmware_gen.ops.support.operands import require_arity, unsupported
from firmware_gen.ops.support.tensor_checks import int8_per_tensor

BIAS_DTYPES = {DType.INT8: DType.INT32, DType.INT16: DType.INT64}  # activation type -> gate bias type

INPUT, OUTPUT_STATE, CELL_STATE = 0, 18, 19
INPUT_WEIGHTS, RECURRENT_WEIGHTS, BIASES = range(1, 5), range(5, 9), range(12, 16)
ABSENT = {"peephole weights": range(9, 12), "projection": range(16, 18), "layer-norm coefficients": range(20, 24)}
CELL_GATE_ACTIVATION = "TANH"  # the only one a flatbuffer can name that TFLM's LSTM applies


@dataclass(frozen=True)
class LstmOperands:
    source: Tensor
    result: Tensor
    weights: list[Tensor]  # the four input weights, then the four recurrent weights
    biases: list[Tensor]
    hidden: Tensor
    cell: Tensor
    batches: int
    time_steps: int
    input_size: int
    units: int


def _refuse_variants(graph: Graph, op: Operator) -> None:
    for what, positions in ABSENT.items():
        present = [p for p in positions if op.inputs[p] >= 0]
        if present:
            raise unsupported(graph, op, f"has {what} (inputs {present}); TFLite Micro's LSTM supports only the "
                                         "standard LSTM without them")
    if op.inputs[1] < 0 or op.inputs[5] < 0:
        raise unsupported(graph, op, "has no input gate (CIFG); TFLite Micro's LSTM needs all four gates")
    activation = op.options.get("activation", "NONE")
    if activation != CELL_GATE_ACTIVATION:
        raise unsupported(graph, op, f"option activation {activation}: TFLite Micro's LSTM applies "
                                     f"{CELL_GATE_ACTIVATION} to the cell gate")
    if op.options.get("diagonal_recurrent_tensors"):
        raise unsupported(graph, op, "option diagonal_recurrent_tensors True: TFLite Micro's LSTM needs full "
                                     "recurrent weight matrices")


def _constant(graph: Graph, op: Operator, position: int, dtype: DType, shape: tuple[int, ...]) -> Tensor:
    if op.inputs[position] < 0:
        raise unsupported(graph, op, f"input {position} is missing; TFLite Micro's LSTM needs it")
    tensor = graph.tensors[op.inputs[position]]
    q = tensor.quantization
    if tensor.dtype is not dtype or not tensor.is_constant or tuple(tensor.shape) != shape:
        raise unsupported(graph, op, f"input {position} {tensor.describe()} must be a constant {dtype} tensor of "
                                     f"shape {list(shape)}")
    if q is None or q.per_channel or q.zero_point != 0 or not q.scale > 0.0:
        raise unsupported(graph, op, f"input {position} {tensor.describe()} needs one positive scale and zero "
                                     "point 0 (TFLite Micro's LSTM rescales each gate with one multiplier)")
    return tensor


def _state(graph: Graph, op: Operator, position: int, dtype: DType, elements: int) -> Tensor:
    role = "output (hidden) state" if position == OUTPUT_STATE else "cell state"
    tensor = graph.tensors[op.inputs[position]] if op.inputs[position] >= 0 else None
    if tensor is None or not tensor.is_variable:
        what = "is missing" if tensor is None else f"{tensor.describe()} is not a variable tensor"
        raise unsupported(graph, op, f"{role} (input {position}) {what}; the LSTM keeps its state in one")
    q = tensor.quantization
    if tensor.dtype is not dtype or q is None or q.per_channel or tensor.num_elements != elements:
        raise unsupported(graph, op, f"{role} {tensor.describe()} must be {dtype} with one scale and "
                                     f"{elements} elements")
    users = [other.index for other in graph.operators if op.inputs[position] in (*other.inputs, *other.outputs)]
    if users != [op.index]:
        raise unsupported(graph, op, f"{role} {tensor.describe()} is used by operators {users}; only by its "
                                     "LSTM is supported")
    return tensor


def _activation(graph: Graph, op: Operator, index: int, role: str, dtype: DType | None = None) -> Tensor:
    """An int8 tensor, or an int16 one (one positive scale, zero point 0); of `dtype` when given."""
    tensor = graph.tensors[index] if index >= 0 else None
    if tensor is None or tensor.dtype is not DType.INT16 or dtype is DType.INT8:
        tensor = int8_per_tensor(graph, op, index, role)
    elif (q := tensor.quantization) is None or q.per_channel or q.zero_point != 0 or not q.scale > 0.0:
        raise unsupported(graph, op, f"{role} {tensor.describe()} is int16: it needs one positive scale and zero "
                                     "point 0")
    if dtype is not None and tensor.dtype is not dtype:
        raise unsupported(graph, op, f"{role} {tensor.describe()} must be {dtype} as the input is")
    return tensor


def lstm_operands(graph: Graph, op: Operator) -> LstmOperands:
    """The operands, checked against each other and against what TFLM's integer LSTM accepts."""
    require_arity(graph, op, (24,))
    _refuse_variants(graph, op)
    source = _activation(graph, op, op.inputs[INPUT], "input")
    result = _activation(graph, op, op.outputs[0], "output", source.dtype)
    if len(source.shape) != 3:
        raise unsupported(graph, op, f"input {source.describe()} must have rank 3 ([batch, time, features] or "
                                     "time-major)")
    outer, inner, input_size = source.shape
    batches, time_steps = (inner, outer) if op.options.get("time_major") else (outer, inner)
    forget = graph.tensors[op.inputs[RECURRENT_WEIGHTS[1]]] if op.inputs[RECURRENT_WEIGHTS[1]] >= 0 else None
    units = forget.shape[0] if forget is not None and forget.shape else 0  # checked with the weights below
    weights = [_constant(graph, op, p, DType.INT8, (units, input_size)) for p in INPUT_WEIGHTS]
    weights += [_constant(graph, op, p, DType.INT8, (units, units)) for p in RECURRENT_WEIGHTS]
    biases = [graph.tensors[op.inputs[p]] if op.inputs[p] >= 0 else None for p in BIASES]
    bias_dtype = BIAS_DTYPES[source.dtype]
    for position, bias in zip(BIASES, biases, strict=True):
        if bias is None or bias.dtype is not bias_dtype or not bias.is_constant or tuple(bias.shape) != (units,):
            raise unsupported(graph, op, f"gate bias (input {position}) must be a constant {bias_dtype} tensor "
                                         f"[{units}] ({source.dtype} activations)")
    if tuple(result.shape) != (outer, inner, units):
        raise unsupported(graph, op, f"output {result.describe()} should be {[outer, inner, units]}")
    hidden = _state(graph, op, OUTPUT_STATE, source.dtype, batches * units)
    _activation(graph, op, op.inputs[OUTPUT_STATE], "output (hidden) state", source.dtype)
    cell = _state(graph, op, CELL_STATE, DType.INT16, batches * units)
    return LstmOperands(source, result, weights, biases, hidden, cell, batches, time_steps, input_size, units)


class LstmKernel:
    opcode = "UNIDIRECTIONAL_SEQUENCE_LSTM"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        lstm_params(graph, op, lstm_operands(graph, op))

    def macs(self, graph: Graph, op: Operator) -> int:
        s = lstm_operands(graph, op)
        return s.batches * s.time_steps * 4 * s.units * (s.input_size + s.units)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        operands = lstm_operands(graph, op)
        params, tables = lstm_params(graph, op, operands)
        return KernelCall("fg_lstm", "fg_lstm_params", params,
                          inputs=[op.inputs[INPUT], *(op.inputs[p] for p in (*INPUT_WEIGHTS, *RECURRENT_WEIGHTS))],
                          outputs=[op.outputs[0], op.inputs[OUTPUT_STATE], op.inputs[CELL_STATE]], tables=tables)


KERNELS = [LstmKernel()]
