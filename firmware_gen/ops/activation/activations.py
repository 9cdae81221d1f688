"""RELU, RELU6, LEAKY_RELU, HARD_SWISH, TANH, ELU and GELU on int8 tensors: one table lookup per element (the int16
forms of RELU, RELU6, LEAKY_RELU and TANH: ops/activation/activations_16x8.py).

The output of each depends only on the input byte, so the compiler computes the 256 outputs at generation time
with TFLite Micro's arithmetic (ops/activation/activation_tables.py) and the device runs `fg_lookup_s8`. GELU, which
TFLM
does not implement, follows LiteRT's reference kernel (the TFLite converter emits it for Keras' GELU). The checks refuse
what TFLM's Prepare refuses (or what would make its arithmetic undefined), naming operator, tensor and value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.activation.activation_tables import (
    Quant,
    elu_table,
    gelu_table,
    hard_swish_parameters,
    hard_swish_table,
    leaky_relu_table,
    relu6_table,
    relu_table,
    tanh_table,
)
from firmware_gen.ops.activation.activations_16x8 import (
    LEAKY_RELU_16X8,
    NO_INT16_KERNEL,
    RELU6_16X8,
    RELU_16X8,
    TANH_16X8,
    Int16Form,
    has_int16_input,
)
from firmware_gen.ops.activation.lookup import lookup_call, unary_operands
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.support.operands import unsupported

TableFunction = Callable[[Graph, Operator, Quant, Quant], np.ndarray]


def _quant(tensor: Tensor) -> Quant:
    return float(tensor.quantization.scale), int(tensor.quantization.zero_point)


@dataclass(frozen=True)
class LookupActivation:
    opcode: str
    table: TableFunction
    int16: Int16Form | None = None  # the form on int16 tensors (ops/activation/activations_16x8.py), where there is one
    is_alias: bool = False

    def operands(self, graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
        return unary_operands(graph, op)

    def wide_form(self, graph: Graph, op: Operator) -> Int16Form | None:
        return self.int16 if self.int16 is not None and has_int16_input(graph, op) else None

    def check(self, graph: Graph, op: Operator) -> None:
        if wide := self.wide_form(graph, op):
            wide.check(graph, op)
            return
        self.lookup_table(graph, op)

    def lookup_table(self, graph: Graph, op: Operator) -> np.ndarray:
        source, result = self.operands(graph, op)
        try:
            with np.errstate(all="ignore"):  # float32 overflow at extreme scales is part of what TFLM computes
                return self.table(graph, op, _quant(source), _quant(result))
        except ValueError as error:
            raise unsupported(graph, op, f"input {source.describe()}, output {result.describe()}: {error}") from None

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.inputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        if wide := self.wide_form(graph, op):
            return wide.lower(graph, op)
        return lookup_call(op, graph.tensors[op.inputs[0]].num_elements, self.lookup_table(graph, op))

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)


def _leaky_relu(graph: Graph, op: Operator, source: Quant, result: Quant) -> np.ndarray:
    alpha = op.options.get("alpha", 0.0)  # the schema default, and TFLM's when the options are absent
    if not math.isfinite(alpha):
        raise unsupported(graph, op, f"option alpha is {alpha}; a finite value is required")
    return leaky_relu_table(source, result, alpha)


def _hard_swish(graph: Graph, op: Operator, source: Quant, result: Quant) -> np.ndarray:
    exponent = hard_swish_parameters(source, result)[1]
    if exponent > 0:
        raise unsupported(graph, op, f"input scale {source[0]:g} / 128 over output scale {result[0]:g} needs output "
                                     f"multiplier exponent {exponent}; TFLite Micro requires <= 0")
    return hard_swish_table(source, result)


def _gelu(graph: Graph, op: Operator, source: Quant, result: Quant) -> np.ndarray:
    return gelu_table(source, result, bool(op.options.get("approximate", False)))


def _ignoring_options(table: Callable[[Quant, Quant], np.ndarray]) -> TableFunction:
    return lambda graph, op, source, result: table(source, result)


KERNELS = [
    LookupActivation("RELU", _ignoring_options(relu_table), RELU_16X8),
    LookupActivation("RELU6", _ignoring_options(relu6_table), RELU6_16X8),
    LookupActivation("LEAKY_RELU", _leaky_relu, LEAKY_RELU_16X8),
    LookupActivation("HARD_SWISH", _hard_swish, NO_INT16_KERNEL),
    LookupActivation("TANH", _ignoring_options(tanh_table), TANH_16X8),  # ValueError below input scale 2^-28
    LookupActivation("ELU", _ignoring_options(elu_table)),
    LookupActivation("GELU", _gelu),
]
