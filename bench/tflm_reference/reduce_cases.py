"""MEAN, SUM, REDUCE_MAX and REDUCE_MIN over the spatial axes (1, 2) of the 1x16x16x16 input (MEAN and REDUCE_MAX
also over the channels, axis 3), keep_dims: TFLM
Micro's reduce kernels (PrepareMeanOrSum's double-precision multiplier; EvalIntegerMean's QuantizedMeanOrSum, whose
output quantization here differs from the input's so every TFLM revision takes that path; EvalMaxHelper's and
EvalMinHelper's ReduceGeneric)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from tflm_reference.model import BenchModel

AXES = {(1, 2): (1, 1, 1, 16), (3,): (1, 16, 16, 1)}  # reduced axes -> output shape (keep_dims)
SCRATCH = "int temp_index[5];\nint resolved_axis[4];\nint32_t temp_sum[256];"


def _label(opcode: str, reduced: tuple[int, ...]) -> str:
    return f"{opcode} axes {reduced}" if len(reduced) > 1 else f"{opcode} axis {reduced[0]}"


def _int_array(name: str) -> str:
    """TFLM hands the reduce kernels int arrays (dims->data); arm-none-eabi's int32_t is long."""
    return f"reinterpret_cast<const int*>({name})"


def add_mean_or_sum(m: BenchModel, opcode: str, out_quant: tuple[float, int],
                    reduced: tuple[int, ...] = (1, 2)) -> None:
    axes = m.builder.constant(f"{opcode.lower()}_axes_{len(reduced)}", np.array(reduced, np.int32))
    out = m.tensor(AXES[reduced], out_quant)
    (si, zi), (so, zo) = m.quant(m.x), m.quant(out)
    multiplier, shift = quantize_multiplier(si / so)
    call = (f"tflite::reference_ops::QuantizedMeanOrSumExtraArgs<int8_t, int32_t>(t{m.x}, {zi}, {si!r}f, "
            f"{_int_array(f'd{m.x}')}, 4, t{out}, {so!r}f, {multiplier}, {shift}, {zo}, {_int_array(f'd{out}')}, 4, "
            f"{_int_array(f't{axes}')}, {len(reduced)}, true, temp_index, resolved_axis, temp_sum, "
            f"{'true' if opcode == 'SUM' else 'false'});")
    m.add(_label(opcode, reduced), opcode, [m.x, axes], out, (SCRATCH, "", call), {"keep_dims": True})


def add_reduce_extreme(m: BenchModel, opcode: str, reduced: tuple[int, ...] = (1, 2)) -> None:
    """REDUCE_MAX / REDUCE_MIN: ReduceGeneric with the lowest (highest) int8 as the initial value and TFLM's
    comparison lambda (EvalMaxHelper / EvalMinHelper)."""
    axes = m.builder.constant(f"{opcode.lower()}_axes_{len(reduced)}", np.array(reduced, np.int32))
    out = m.tensor(AXES[reduced], m.quant(m.x))
    initial, compare = ("lowest", ">") if opcode == "REDUCE_MAX" else ("max", "<")
    call = (f"tflite::reference_ops::ReduceGeneric<int8_t>(t{m.x}, {_int_array(f'd{m.x}')}, 4, t{out}, "
            f"{_int_array(f'd{out}')}, 4, {_int_array(f't{axes}')}, {len(reduced)}, true, temp_index, "
            f"resolved_axis, std::numeric_limits<int8_t>::{initial}(), "
            f"[](const int8_t current, const int8_t in) -> int8_t {{ return (in {compare} current) ? in : current; }}"
            ");")
    m.add(_label(opcode, reduced), opcode, [m.x, axes], out, (SCRATCH, "", call), {"keep_dims": True})


def add_reduce_cases(m: BenchModel) -> None:
    add_mean_or_sum(m, "MEAN", (0.04, 1))
    add_mean_or_sum(m, "SUM", (5.0, 3))
    add_reduce_extreme(m, "REDUCE_MAX")
    add_reduce_extreme(m, "REDUCE_MIN")
    add_mean_or_sum(m, "MEAN", (0.04, 1), (3,))
    add_reduce_extreme(m, "REDUCE_MAX", (3,))
