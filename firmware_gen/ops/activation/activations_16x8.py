"""LOGISTIC, TANH, LEAKY_RELU, RELU and RELU6 on int16 tensors (16x8 models), as TFLite Micro's int16 kernels compute
them.

LOGISTIC and TANH (logistic.cc / tanh.cc: reference_integer_ops Logistic and Tanh) read one sigmoid table,
interpolated, with the input rescaled to steps of 1/(3 * 4096). A power-of-two input scale of 2^-12 (or, for TANH
only, 2^-11) gives the multiplier 3 << shift; any other scale input_scale * 3 * 4096, doubled (and the right shift
counted up) while at most 32767 / 2, in doubles (TFLM's Prepare). The output must be zero point 0 and scale 2^-15.
LEAKY_RELU takes the int8 form's multipliers. RELU rescales by input_scale / output_scale and clamps at the output's
zero; RELU6 clamps the raw input between the input's 0 and 6 (the output's quantization unused); one kernel does
both, RELU6 with the exact identity multiplier.
TFLite Micro has no int16 HARD_SWISH: it is refused.
"""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.activation.lookup import unary_operands
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.support.fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier, round_half_away
from firmware_gen.ops.support.tensor_checks import activation_per_tensor, unsupported

SIGMOID_INPUT_INTEGER_BITS = 3
OUTPUT_FRACTIONAL_BITS = 15
SIGMOID_TABLE_STEP = 3 * 4096  # the rescaled input counts steps of 1/(3 * 4096)
INT32_MAX = 2**31 - 1


def has_int16_input(graph: Graph, op: Operator) -> bool:
    return bool(op.inputs) and op.inputs[0] >= 0 and graph.tensors[op.inputs[0]].dtype is DType.INT16


class Int16Dispatch:
    """Mixed into an int8 table operator whose int16 form has a kernel of its own (`_lower_s16`): an int16 input is
    checked and lowered by it, any other by the int8 form (the next class)."""

    def check(self, graph: Graph, op: Operator) -> None:
        if has_int16_input(graph, op):
            self._lower_s16(graph, op)
            return
        super().check(graph, op)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        return self._lower_s16(graph, op) if has_int16_input(graph, op) else super().lower(graph, op)


def int16_operands(graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
    """The checked (input, output): int16 both, per tensor, zero point 0, one shape."""
    source, result = unary_operands(graph, op, activation_per_tensor)
    if result.dtype is not DType.INT16:
        raise unsupported(graph, op, f"output {result.describe()} is {result.dtype}; an int16 input needs an int16 "
                                     f"output")
    return source, result


def leaky_relu_multipliers(in_scale: float, out_scale: float, alpha: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """LEAKY_RELU's (identity, alpha) multipliers and shifts, for int8 (activation_tables) and int16 alike. TFLM's
    Prepare (CalculateOpDataLeakyRelu) multiplies and divides the float32 scales and alpha in double: in float32,
    as older TFLM sources read, the multipliers differ in their last bits (263 of 300 random cases were off by 1 in
    a median 5 of the 65,536 int16 inputs). A negative alpha gives a negative multiplier: see
    multiply_by_signed_multiplier."""
    in64, out64 = float(np.float32(in_scale)), float(np.float32(out_scale))
    return quantize_multiplier(in64 / out64), quantize_multiplier(in64 * float(np.float32(alpha)) / out64)


def relu_rescaling(in_scale: float, out_scale: float) -> tuple[int, int]:
    """RELU's multiplier and shift: the float32 scales divided in double (CalculateReluOpData)."""
    return quantize_multiplier(float(np.float32(in_scale)) / float(np.float32(out_scale)))


def relu6_six(in_scale: float, in_zero_point: int, value_range: tuple[int, int]) -> int:
    """RELU6's upper bound: 6 quantized with the input's parameters in float32 (FloatToQuantizedType), clamped to
    the type's range; ValueError where TFLM's conversion to int32 would be undefined."""
    with np.errstate(over="ignore"):
        six_steps = float(np.float32(6.0) / np.float32(in_scale))
    if not abs(six_steps) < 2.0**31:
        raise ValueError(f"6 / input scale {in_scale:g} does not fit in int32")
    return min(max(round_half_away(six_steps) + in_zero_point, value_range[0]), value_range[1])


def multiply_by_signed_multiplier(x: int, multiplier: int, shift: int) -> int:
    """x times a multiplier of either sign as TFLM's LEAKY_RELU computes it (measured on every int8 and int16
    input): a negative multiplier gives minus the product by its magnitude, so halves round symmetrically."""
    if multiplier < 0:
        return -multiply_by_quantized_multiplier(x, -multiplier, shift)
    return multiply_by_quantized_multiplier(x, multiplier, shift)


def checked_log2(scale: float) -> tuple[int, bool]:
    """TFLite's CheckedLog2 in float32: (log2 rounded, whether the scale is a power of two within 1e-3)."""
    with np.errstate(all="ignore"):
        log2 = np.float32(np.log(np.float32(scale))) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = np.float32(math.copysign(math.floor(abs(float(log2)) + 0.5), float(log2)))
    return int(rounded), bool(abs(np.float32(log2 - rounded)) < np.float32(1e-3))


def sigmoid_input_scaling(input_scale: float, power_of_two_shifts: tuple[int, ...] = (0, 1)) -> tuple[int, int]:
    """(multiplier, right shift) by which the kernel rescales the input, or ValueError where TFLM's arithmetic
    would multiply by 0 (or shift an int32 by 32). A scale within 1e-3 of a power of two takes the exact multiplier
    3 << shift where the shift is one of power_of_two_shifts: 0 or 1 for TANH, only 0 (2^-12) for LOGISTIC, whose
    Prepare sends a scale near 2^-11 down the general path."""
    log2, is_power_of_two = checked_log2(input_scale)
    shift = (15 - SIGMOID_INPUT_INTEGER_BITS) + log2
    if is_power_of_two and shift in power_of_two_shifts:
        return 3 << shift, 0
    multiplier, shift = float(np.float32(input_scale)) * SIGMOID_TABLE_STEP, 0
    while multiplier <= 32767.0 / 2.0 and shift <= 30:
        shift += 1
        multiplier *= 2.0
    if int(multiplier) == 0:
        raise ValueError(f"input scale {input_scale:g} is too small: TFLite Micro's input multiplier would be 0")
    return int(multiplier), shift


class Int16Form:
    """The int16 form of an operator whose int8 form is registered (ops/activation/activations.py,
    ops/activation/logistic.py): checked
    and lowered when the input is int16; the output overlaps the input element for element."""

    def check(self, graph: Graph, op: Operator) -> None:
        raise NotImplementedError

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        raise NotImplementedError

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)


class SigmoidFamily16x8(Int16Form):
    """LOGISTIC or TANH on int16, the kernel `function`."""

    def __init__(self, function: str, power_of_two_shifts: tuple[int, ...]) -> None:
        self.function = function
        self.power_of_two_shifts = power_of_two_shifts

    def scaling(self, graph: Graph, op: Operator) -> tuple[int, int]:
        source, result = int16_operands(graph, op)
        log2, is_power_of_two = checked_log2(result.quantization.scale)
        if not is_power_of_two or log2 != -OUTPUT_FRACTIONAL_BITS:
            raise unsupported(graph, op, f"output {result.describe()} has scale {result.quantization.scale:g}; "
                                         f"TFLite Micro requires 2^-{OUTPUT_FRACTIONAL_BITS} for int16")
        try:
            return sigmoid_input_scaling(source.quantization.scale, self.power_of_two_shifts)
        except ValueError as error:
            raise unsupported(graph, op, f"input {source.describe()}: {error}") from None

    def check(self, graph: Graph, op: Operator) -> None:
        self.scaling(graph, op)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        multiplier, shift = self.scaling(graph, op)
        return KernelCall(self.function, "fg_sigmoid_s16_params",
                          {"size": graph.tensors[op.inputs[0]].num_elements, "input_multiplier": multiplier,
                           "input_right_shift": shift},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])


class LeakyRelu16x8(Int16Form):
    function = "fg_leaky_relu_s16"

    def check(self, graph: Graph, op: Operator) -> None:
        self.lower(graph, op)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, result = int16_operands(graph, op)
        alpha = op.options.get("alpha", 0.0)
        if not math.isfinite(alpha):
            raise unsupported(graph, op, f"option alpha is {alpha}; a finite value is required")
        (identity, identity_shift), (alpha_multiplier, alpha_shift) = leaky_relu_multipliers(
            source.quantization.scale, result.quantization.scale, alpha)
        return KernelCall(self.function, "fg_leaky_relu_s16_params",
                          {"size": source.num_elements, "identity_multiplier": identity,
                           "identity_shift": identity_shift, "alpha_multiplier": min(abs(alpha_multiplier), INT32_MAX),
                           "alpha_shift": alpha_shift, "alpha_sign": -1 if alpha_multiplier < 0 else 1},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])


class Relu16x8(Int16Form):
    """RELU (six=False) or RELU6 on int16: fg_relu_s16, a rescaling then a clamp."""

    function = "fg_relu_s16"

    def __init__(self, six: bool) -> None:
        self.six = six

    def check(self, graph: Graph, op: Operator) -> None:
        self.lower(graph, op)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, result = int16_operands(graph, op)
        if self.six:
            (multiplier, shift), low = quantize_multiplier(1.0), 0
            try:
                high = relu6_six(source.quantization.scale, 0, (-32768, 32767))
            except ValueError as error:
                raise unsupported(graph, op, f"input {source.describe()}: {error}") from None
        else:
            multiplier, shift = relu_rescaling(source.quantization.scale, result.quantization.scale)
            low, high = 0, 32767
        return KernelCall(self.function, "fg_relu_s16_params",
                          {"size": source.num_elements, "multiplier": multiplier, "shift": shift,
                           "activation_min": low, "activation_max": high},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])


class NoInt16Kernel(Int16Form):
    """An operator TFLite Micro has no int16 kernel for: refused."""

    def check(self, graph: Graph, op: Operator) -> None:
        source = graph.tensors[op.inputs[0]]
        raise unsupported(graph, op, f"input {source.describe()} is int16; TFLite Micro has no int16 {op.opcode} "
                                     f"kernel")

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        self.check(graph, op)
        raise AssertionError("unreachable")


LOGISTIC_16X8 = SigmoidFamily16x8("fg_logistic_s16", (0,))
TANH_16X8 = SigmoidFamily16x8("fg_tanh_s16", (0, 1))
LEAKY_RELU_16X8 = LeakyRelu16x8()
RELU_16X8 = Relu16x8(six=False)
RELU6_16X8 = Relu16x8(six=True)
NO_INT16_KERNEL = NoInt16Kernel()
