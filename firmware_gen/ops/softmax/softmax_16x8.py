"""SOFTMAX on int16 tensors (16x8 models), as TFLite Micro's SoftmaxInt16 computes it.

Input differences from the row maximum are scaled so that [-65535, 0] spans [-10, 0] (a multiplier from
input_scale * beta / (10 / 65535)), looked up in a 513-entry exp table, summed, and the reciprocal of the sum is
looked up in a 513-entry 1 / (1 + x) table. Both tables are what TFLM's gen_lut computes in float32 in Prepare;
they do not depend on the model, and are computed here at generation time. The output must be zero point 0 and
scale 1/32768 (within 0.1 %).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.activation.activations_16x8 import int16_operands
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.fixedpoint import MultiplierOutOfRange, quantize_multiplier, round_half_away
from firmware_gen.ops.support.tensor_checks import unsupported

OUTPUT_SCALE = 1.0 / 32768
LUT_STEPS = 512  # entries, plus one more for the slope of the last
EXP_INPUT_RANGE = 10.0  # exp() is tabulated on [-10, 0]


def _round(value: np.float32) -> np.float32:
    return np.float32(round_half_away(float(value)))


def int16_lut(function: Callable[[np.float32], np.float32], input_min: float, input_max: float) -> np.ndarray:
    """TFLite's gen_lut<float, int16_t, int16_t> for outputs in [-1, 1]: each entry biased by half the error of the
    linear interpolation at the midpoint of its step."""
    f32 = np.float32
    low, high = f32(input_min), f32(input_max)
    step = (high - low) / f32(LUT_STEPS)
    half_step = step / f32(2)
    scaling = f32(65536) / (f32(1) - f32(-1))
    table = np.zeros(LUT_STEPS + 1, dtype=np.int16)
    for i in range(LUT_STEPS):
        value = function(low + f32(i) * step)
        midpoint = function(low + f32(i) * step + half_step)
        following = function(low + f32(i + 1) * step)
        sample = _round(value * scaling)
        interpolated = _round((following * scaling + _round(value * scaling)) / f32(2))
        bias = _round((interpolated - _round(midpoint * scaling)) / f32(2))
        table[i] = np.clip(sample - bias, -32768, 32767)
    table[LUT_STEPS] = np.clip(_round(function(high) * scaling), -32768, 32767)
    return table


def _exp(x: np.float32) -> np.float32:
    return np.float32(math.exp(float(x)))  # correctly rounded to float32, as glibc's expf


def _one_over_one_plus(x: np.float32) -> np.float32:
    return np.float32(1) / (np.float32(1) + x)


class Softmax16x8:
    def scaling(self, graph: Graph, op: Operator) -> tuple[int, int]:
        source, result = int16_operands(graph, op)
        if not source.shape:
            raise unsupported(graph, op, f"input {source.describe()} is a scalar; SOFTMAX needs at least one "
                                         f"dimension")
        scale = np.float32(result.quantization.scale)
        if not abs(scale - np.float32(OUTPUT_SCALE)) <= np.float32(0.001) * np.float32(OUTPUT_SCALE):
            raise unsupported(graph, op, f"output {result.describe()} has scale {result.quantization.scale:g}; "
                                         f"TFLite Micro requires 1/32768 for int16")
        beta = float(np.float32(op.options.get("beta", 1.0)))
        try:
            return quantize_multiplier(float(np.float32(source.quantization.scale)) * beta
                                       / (EXP_INPUT_RANGE / 65535.0))
        except MultiplierOutOfRange as error:
            raise unsupported(graph, op, f"input {source.describe()}, beta {beta:g}: {error}") from None

    def check(self, graph: Graph, op: Operator) -> None:
        self.scaling(graph, op)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        multiplier, shift = self.scaling(graph, op)
        source = graph.tensors[op.inputs[0]]
        depth = int(source.shape[-1])
        tables = [ConstTable("exp_lut", "int16_t", int16_lut(_exp, -EXP_INPUT_RANGE, 0.0)),
                  ConstTable("reciprocal_lut", "int16_t", int16_lut(_one_over_one_plus, 0.0, 1.0))]
        return KernelCall("fg_softmax_s16", "fg_softmax_s16_params",
                          {"rows": source.num_elements // depth if depth else 0, "depth": depth,
                           "input_multiplier": multiplier, "input_shift": shift,
                           "exp_lut": TableRef("exp_lut"), "reciprocal_lut": TableRef("reciprocal_lut")},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]], tables=tables)


SOFTMAX_16X8 = Softmax16x8()
