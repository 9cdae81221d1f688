"""MEAN, SUM, REDUCE_MAX and REDUCE_MIN over the spatial axes (1, 2) of the 1x16x16x16 input, keep_dims: TFLM
Micro's reduce kernels (PrepareMeanOrSum's double-precision multiplier; EvalIntegerMean's QuantizedMeanOrSum, whose
output quantization here differs from the input's so every TFLM revision takes that path; EvalMaxHelper's and
EvalMinHelper's ReduceGeneric)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.fixedpoint import quantize_multiplier
from tflm_reference.model import BenchModel

OUT_SHAPE = (1, 1, 1, 16)
SCRATCH = "int temp_index[5];\nint resolved_axis[4];\nint32_t temp_sum[16];"


def _int_array(name: str) -> str:
    """TFLM hands the reduce kernels int arrays (dims->data); arm-none-eabi's int32_t is long."""
    return f"reinterpret_cast<const int*>({name})"


def add_mean_or_sum(m: BenchModel, opcode: str, out_quant: tuple[float, int]) -> None:
    axes = m.builder.constant(f"{opcode.lower()}_axes", np.array([1, 2], np.int32))
    out = m.tensor(OUT_SHAPE, out_quant)
    (si, zi), (so, zo) = m.quant(m.x), m.quant(out)
    multiplier, shift = quantize_multiplier(si / so)
    call = (f"tflite::reference_ops::QuantizedMeanOrSumExtraArgs<int8_t, int32_t>(t{m.x}, {zi}, {si!r}f, "
            f"{_int_array(f'd{m.x}')}, 4, t{out}, {so!r}f, {multiplier}, {shift}, {zo}, {_int_array(f'd{out}')}, 4, "
            f"{_int_array(f't{axes}')}, 2, true, temp_index, resolved_axis, temp_sum, "
            f"{'true' if opcode == 'SUM' else 'false'});")
    m.add(f"{opcode} axes (1, 2)", opcode, [m.x, axes], out, (SCRATCH, "", call), {"keep_dims": True})


def add_reduce_extreme(m: BenchModel, opcode: str) -> None:
    """REDUCE_MAX / REDUCE_MIN: ReduceGeneric with the lowest (highest) int8 as the initial value and TFLM's
    comparison lambda (EvalMaxHelper / EvalMinHelper)."""
    axes = m.builder.constant(f"{opcode.lower()}_axes", np.array([1, 2], np.int32))
    out = m.tensor(OUT_SHAPE, m.quant(m.x))
    initial, compare = ("lowest", ">") if opcode == "REDUCE_MAX" else ("max", "<")
    call = (f"tflite::reference_ops::ReduceGeneric<int8_t>(t{m.x}, {_int_array(f'd{m.x}')}, 4, t{out}, "
            f"{_int_array(f'd{out}')}, 4, {_int_array(f't{axes}')}, 2, true, temp_index, resolved_axis, "
            f"std::numeric_limits<int8_t>::{initial}(), [](const int8_t current, const int8_t in) -> int8_t "
            f"{{ return (in {compare} current) ? in : current; }});")
    m.add(f"{opcode} axes (1, 2)", opcode, [m.x, axes], out, (SCRATCH, "", call), {"keep_dims": True})


def add_reduce_cases(m: BenchModel) -> None:
    add_mean_or_sum(m, "MEAN", (0.04, 1))
    add_mean_or_sum(m, "SUM", (5.0, 3))
    add_reduce_extreme(m, "REDUCE_MAX")
    add_reduce_extreme(m, "REDUCE_MIN")
