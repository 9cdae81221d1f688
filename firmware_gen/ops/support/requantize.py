"""The output stage shared by CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on int8.

Each output channel's int32 accumulator sum((input - input_zp) * weight) + bias is scaled by
input_scale * weight_scale / output_scale, given to the kernel as a Q31 multiplier and a shift per channel
(a single entry when every channel shares them), then offset by the output zero point and clamped to the
fused activation's range. This module checks the weight and bias tensors and computes those tables
exactly as TFLite Micro's Prepare does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, TableRef
from firmware_gen.ops.support.fixedpoint import quantize_multipliers
from firmware_gen.ops.support.tensor_checks import fused_activation_range, unsupported

# TFLM refuses a per-tensor FULLY_CONNECTED whose bias scale strays further than this from
# input_scale * weight_scale, relative to the output scale (GetQuantizedConvolutionMultipler).
BIAS_SCALE_TOLERANCE = 0.02


def weights_tensor(graph: Graph, op: Operator, index: int, channel_axis: int, channels: int) -> Tensor:
    """The int8 weight tensor, after checking its quantization: symmetric, one scale or one per output
    channel along `channel_axis`."""
    if index < 0:
        raise unsupported(graph, op, "the weights are missing")
    weights = graph.tensors[index]
    if weights.dtype not in (DType.INT8, DType.INT4):  # which operators take int4: ops/weights_4bit.py
        raise unsupported(graph, op, f"weights {weights.describe()} are {weights.dtype}; only int8 is supported")
    q = weights.quantization
    if q is None:
        raise unsupported(graph, op, f"weights {weights.describe()} have no quantization")
    if any(zp != 0 for zp in q.zero_points):
        raise unsupported(graph, op, f"weights {weights.describe()} have a nonzero zero point; int8 weights must be "
                                     f"symmetric")
    if len(q.scales) not in (1, channels):
        raise unsupported(graph, op, f"weights {weights.describe()} have {len(q.scales)} scales; expected 1 or "
                                     f"{channels} (one per output channel)")
    if q.per_channel and q.axis != channel_axis:
        raise unsupported(graph, op, f"weights {weights.describe()} are quantized along axis {q.axis}; expected the "
                                     f"output-channel axis {channel_axis}")
    if not all(s > 0.0 for s in q.scales):
        raise unsupported(graph, op, f"weights {weights.describe()} have a scale that is not positive")
    return weights


def bias_tensor(graph: Graph, op: Operator, channels: int, position: int = 2,
                source: Tensor | None = None) -> Tensor | None:
    """The optional bias (input `position`), one value per output channel: int32 on int8 activations, int64 or
    int32 (as TFLite stores them) on int16 ones. The activations are `source`, by default input 0."""
    if len(op.inputs) <= position or op.inputs[position] < 0:
        return None
    bias = graph.tensors[op.inputs[position]]
    wide = (source or graph.tensors[op.inputs[0]]).dtype is DType.INT16
    if bias.dtype is not DType.INT32 and not (wide and bias.dtype is DType.INT64):
        needed = "an int64 or int32" if wide else "an int32"
        raise unsupported(graph, op, f"bias {bias.describe()} is {bias.dtype}; these kernels need {needed} bias")
    if bias.num_elements != channels:
        raise unsupported(graph, op, f"bias {bias.describe()} has {bias.num_elements} values for {channels} "
                                     f"output channels")
    return bias


def convolution_multipliers(input_scale: float, weight_scales: tuple[float, ...], output_scale: float,
                            ) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel (multiplier, shift) as PopulateConvolutionQuantizationParams: every factor widened to
    double first, then input * weight / output. Used by conv, depthwise and per-channel FULLY_CONNECTED."""
    effective = [input_scale * weight_scale / output_scale for weight_scale in weight_scales]
    return quantize_multipliers(np.array(effective, dtype=np.float64))


def fully_connected_multiplier(input_scale: float, weight_scale: float, output_scale: float,
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Per-tensor FULLY_CONNECTED (and BATCH_MATMUL): TFLM multiplies the float32 input and weight scales and
    divides by the output scale in double (GetQuantizedConvolutionMultipler). The float32 product older TFLM sources
    take differs in its last bits: 4 of 5 int8 and 5 of 5 16x8 FULLY_CONNECTED models of 256 x 4 outputs were off by
    1 somewhere with it."""
    product = float(np.float32(input_scale)) * float(np.float32(weight_scale))
    return quantize_multipliers(np.array([product / output_scale], dtype=np.float64))


@dataclass
class OutputStage:
    """The params field `requant` (an fg_requant_params initializer) and the tables it points at."""

    fields: dict[str, int | TableRef | tuple]
    tables: list[ConstTable]


def output_stage(graph: Graph, op: Operator, source: Tensor, result: Tensor,
                 multipliers: np.ndarray, shifts: np.ndarray) -> OutputStage:
    """The input/output offsets, activation clamp and multiplier/shift tables; identical per-channel
    entries collapse to one."""
    activation_min, activation_max = fused_activation_range(graph, op, result)
    if np.all(multipliers == multipliers[0]) and np.all(shifts == shifts[0]):
        multipliers, shifts = multipliers[:1], shifts[:1]
    # In the order fg_requant_params declares them.
    requant = (-source.quantization.zero_point, result.quantization.zero_point, activation_min, activation_max,
               int(multipliers.size > 1), TableRef("multipliers"), TableRef("shifts"))
    tables = [ConstTable("multipliers", "int32_t", multipliers.astype(np.int32)),
              ConstTable("shifts", "int32_t", shifts.astype(np.int32))]
    return OutputStage({"requant": requant}, tables)


def constant_operands(graph: Graph, op: Operator) -> bool:
    """Weights and bias (if any) are constants: what folding the input zero point into the bias needs."""
    return all(graph.tensors[i].is_constant and graph.tensors[i].data is not None for i in op.inputs[1:] if i >= 0)


def wrap_int32(values: np.ndarray) -> np.ndarray:
    """int64 values reduced modulo 2^32 into int32 (two's complement), as int32 arithmetic wraps."""
    return ((np.asarray(values, dtype=np.int64) + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


def folded_bias(graph: Graph, op: Operator, source: Tensor, taps_per_channel: np.ndarray,
                multiple: int = 1) -> ConstTable:
    """bias + input_offset * (sum of each output channel's taps): the input zero point moved out of the inner
    loop. `taps_per_channel` is [channels, taps]. Exact modulo 2^32, as the accumulators. Padded with zeros to a
    multiple of `multiple` entries (kernels that compute whole groups of channels)."""
    sums = np.asarray(taps_per_channel, dtype=np.int64).sum(axis=1)
    bias = graph.tensors[op.inputs[2]] if len(op.inputs) > 2 and op.inputs[2] >= 0 else None
    base = np.zeros(sums.size, np.int64) if bias is None else np.asarray(bias.data, dtype=np.int64).ravel()
    folded = wrap_int32(base - source.quantization.zero_point * sums)
    return ConstTable("folded_bias", "int32_t", np.pad(folded, (0, -folded.size % multiple)))
