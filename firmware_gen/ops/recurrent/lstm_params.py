"""The generation-time half of the integer LSTM (ops/recurrent/lstm.py): the effective scales of TFLM's LSTM preparation
(lstm_eval_common's gate and inter-gate parameters) as Q31 multipliers, the quantized cell clip, the tanh input
rescaling of the cell state, and the biases with the input and hidden-state zero points folded in.

The gates work in Q3.12 (scale 2^-12) and their non-linear outputs in Q0.15 (scale 2^-15), exactly: an older TFLM
wrote 2^-15 as the literal 0.00003051757, a little below it in single precision, which changes a rounding of the
cell state now and then; the installed TFLM agrees with exact 2^-15 (measured: 3 of 24 random configurations differed
by one in one cell-state element with the literal, none with 2^-15; tests/ops/test_lstm.py keeps one of them).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import ConstTable, TableRef
from firmware_gen.ops.support.fixedpoint import MultiplierOutOfRange, quantize_multiplier, round_half_away
from firmware_gen.ops.support.operands import unsupported
from firmware_gen.ops.support.requantize import fully_connected_multiplier, wrap_int32

GATE_INPUT_SCALE = 2.0 ** -12  # TFLM's nonlinear_input_scale
GATE_OUTPUT_SCALE = 2.0 ** -15  # TFLM's nonlinear_output_scale
MAX_CELL_SCALE_POWER = 4  # beyond it TFLM's tanh input rescaling overflows int32


def cell_scale_power(scale: float) -> int:
    """TFLM's CheckedLog2 (single precision): the nearest power of two, which TFLM uses without checking that the
    scale is one."""
    log2 = np.log(np.float32(scale)) * (np.float32(1.0) / np.log(np.float32(2.0)))
    return round_half_away(float(log2))


def tanh_rescaling(power: int) -> tuple[int, int]:
    """(multiplier, right shift) of the input of TFLM's int16 tanh on a state whose scale is 2^power."""
    left_shift = 15 + power - 3
    return (3 << left_shift, 0) if left_shift >= 0 else (3, -left_shift)


def _inter_gate(a: float, b: float, out: float) -> tuple[int, int]:
    """CreateInterGateMulParams: the product of the two input scales over the output scale, in double."""
    return quantize_multiplier(float(np.float32(a)) * float(np.float32(b)) / float(np.float32(out)))


def _folded(weights: np.ndarray, offset: int, bias: np.ndarray | None = None) -> np.ndarray:
    sums = np.asarray(weights, dtype=np.int64).sum(axis=1)
    return offset * sums + (np.asarray(bias, dtype=np.int64) if bias is not None else 0)


def _gate_multipliers(operands, gates: range, source_scale: float) -> tuple[tuple[int, ...], tuple[int, ...]]:
    pairs = [fully_connected_multiplier(source_scale, operands.weights[g].quantization.scale, GATE_INPUT_SCALE)
             for g in gates]
    return tuple(int(m[0]) for m, _ in pairs), tuple(int(s[0]) for _, s in pairs)


def lstm_params(graph: Graph, op: Operator, operands) -> tuple[dict, list[ConstTable]]:
    """The fg_lstm_params fields and the two folded-bias tables of one LSTM (operands: ops.lstm.LstmOperands)."""
    s = operands
    cell_scale, hidden = s.cell.quantization.scale, s.hidden.quantization
    power = cell_scale_power(cell_scale)
    if power > MAX_CELL_SCALE_POWER:
        raise unsupported(graph, op, f"cell state {s.cell.describe()} has scale {cell_scale:g} (2^{power}); "
                                     f"at most 2^{MAX_CELL_SCALE_POWER} is supported")
    cell_clip = float(op.options.get("cell_clip", 0.0))
    try:
        input_multipliers, input_shifts = _gate_multipliers(s, range(4), s.source.quantization.scale)
        recurrent_multipliers, recurrent_shifts = _gate_multipliers(s, range(4, 8), hidden.scale)
        forget = _inter_gate(GATE_OUTPUT_SCALE, cell_scale, cell_scale)
        update = _inter_gate(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, cell_scale)
        hidden_rescale = _inter_gate(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, hidden.scale)
    except MultiplierOutOfRange as error:
        raise unsupported(graph, op, str(error)) from None
    tanh_multiplier, tanh_shift = tanh_rescaling(power)
    params = {
        "batches": s.batches, "time_steps": s.time_steps, "input_size": s.input_size, "units": s.units,
        "time_major": int(bool(op.options.get("time_major"))), "activation_bits": 8 * s.source.dtype.itemsize,
        "input_multiplier": input_multipliers, "input_shift": input_shifts,
        "recurrent_multiplier": recurrent_multipliers, "recurrent_shift": recurrent_shifts,
        "forget_multiplier": forget[0], "forget_shift": forget[1],
        "update_multiplier": update[0], "update_shift": update[1],
        "clip_cell": int(cell_clip > 0.0),
        "cell_clip": int(min(max(cell_clip / cell_scale, -32768.0), 32767.0)) if cell_clip > 0.0 else 0,
        "cell_tanh_multiplier": tanh_multiplier, "cell_tanh_shift": tanh_shift,
        "hidden_multiplier": hidden_rescale[0], "hidden_shift": hidden_rescale[1],
        "hidden_zero_point": hidden.zero_point,
    }
    if s.source.dtype.itemsize == 2:  # 16x8: zero points 0, nothing to fold; int64 biases
        biases = np.concatenate([np.asarray(s.biases[g].data, dtype=np.int64) for g in range(4)])
        params.update(input_bias=0, recurrent_bias=0, input_bias64=TableRef("input_bias64"))
        return params, [ConstTable("input_bias64", "int64_t", biases)]
    params.update(input_bias=TableRef("input_bias"), recurrent_bias=TableRef("recurrent_bias"), input_bias64=0)
    input_offset = -s.source.quantization.zero_point
    input_bias = [_folded(s.weights[g].data, input_offset, s.biases[g].data) for g in range(4)]
    recurrent_bias = [_folded(s.weights[4 + g].data, -hidden.zero_point) for g in range(4)]
    tables = [ConstTable("input_bias", "int32_t", wrap_int32(np.concatenate(input_bias))),
              ConstTable("recurrent_bias", "int32_t", wrap_int32(np.concatenate(recurrent_bias)))]
    return params, tables
