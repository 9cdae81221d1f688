"""Armv6-M variants (Cortex-M0, M0+: Thumb-1, MULS the only multiply, no long multiply, no SSAT, no divide), chosen
only where the board's core is an Armv6-M one. The C side: runtime_c/include/fg/isa/armv6m.h and
runtime_c/kernels/*_armv6m.c.

The convolutions and the fully-connected layer share one inner loop (fg/isa/armv6m_asm.h): eight output channels
per input byte, each product one LDRB (the weight, with an immediate offset), one MULS and one ADD, four taps a
pass. For that the weights are written here as unsigned bytes w + 128, eight channels interleaved tap by tap, each
group of eight led by its eight folded biases (bias + input offset * sum of weights, as int32; [group][8 biases]
[taps][8], a short last group padded): the int8 filter's flash and the bias's. The kernels take 128 times the
window's input sum off each sum. The output stage's constants: armv6m_output.py; the 3x3 depthwise variants:
armv6m_depthwise.py. Where the flash allows, the convolutions and the fully-connected layer take two outputs per
MULS instead (armv6m_paired.py); these compact variants stay where it does not, or where a pair's weights allow no
block.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import ARMV6M
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.requantize import wrap_int32
from firmware_gen.ops.variants import Variant, call_table, renamed
from firmware_gen.ops.variants.armv6m_output import accumulator_reach, layer_constants

REQUIRES = frozenset({ARMV6M})
GROUP = 8  # FG_ARMV6M_GROUP
GATHER_TAPS = 576  # FG_CONV_GATHER_TAPS: the taps of a window the convolution copies to its stack


def unsigned_interleaved(taps: np.ndarray) -> np.ndarray:
    """[channels, taps] int8 -> uint8 w + 128, [groups of GROUP channels][taps][GROUP] (zero weights padding the last
    group)."""
    channels, depth = taps.shape
    groups = -(-channels // GROUP)
    padded = np.zeros((groups * GROUP, depth), np.int16)
    padded[:channels] = taps
    layout = (padded + 128).astype(np.uint8).reshape(groups, GROUP, depth).transpose(0, 2, 1)
    return np.ascontiguousarray(layout).ravel()


def nibble_interleaved(taps: np.ndarray) -> np.ndarray:
    """[channels, taps] 4-bit values -> uint8, [groups of GROUP channels][taps][GROUP / 2]: byte j of a tap holds
    channel 2j's weight + 8 in its low nibble and channel 2j + 1's + 8 in its high one (fg_armv6m_dot8_s4; zero
    weights, 0x88, padding the last group): half the bytes of the int8 layout."""
    channels, depth = taps.shape
    groups = -(-channels // GROUP)
    padded = np.zeros((groups * GROUP, depth), np.int16)
    padded[:channels] = taps
    biased = (padded + 8).reshape(groups, GROUP // 2, 2, depth)
    layout = (biased[:, :, 0] | (biased[:, :, 1] << 4)).astype(np.uint8).transpose(0, 2, 1)
    return np.ascontiguousarray(layout).ravel()


def packed_table(call: KernelCall, taps: np.ndarray, int4: bool = False) -> ConstTable:
    """The layer's constants, then per group of GROUP channels its folded biases (int32, zeros padding the last
    group) and its unsigned interleaved weights (4-bit: nibble_interleaved), as fg_armv6m_dot8 reads them, packed
    four bytes to a little-endian word."""
    channels, depth = taps.shape
    groups = -(-channels // GROUP)
    weights = (nibble_interleaved(taps) if int4 else unsigned_interleaved(taps)).reshape(groups, -1)
    bias = call_table(call, "folded_bias")[:channels].astype(np.int64)
    padded = np.zeros(groups * GROUP, "<i4")
    padded[:channels] = wrap_int32(bias)
    layout = np.concatenate([padded.view(np.uint8).reshape(groups, 4 * GROUP), weights], axis=1)  # whole words
    reach = accumulator_reach(taps, bias)
    values = np.concatenate([layer_constants(call, channels, reach), layout.ravel().view("<i4").astype(np.int32)])
    return ConstTable("armv6m_packed", "int32_t", values)


def _weights_call(call: KernelCall, variant: Variant, taps: np.ndarray, int4: bool = False) -> KernelCall:
    """The variant's call: `packed` the layer's constants, biases and weights (packed_table); the portable folded
    bias and blocked and paired copies of the weights (4-bit: the packed rows) left out (they would cost their size
    again in flash)."""
    table = packed_table(call, taps, int4)
    return packed_call(call, variant, table, {call.params["packed"].suffix} if int4 else set())


def packed_call(call: KernelCall, variant: Variant, table: ConstTable, dropped: set[str],
                **changes: object) -> KernelCall:
    """The variant's call reading `table` as params->packed, the portable folded bias and blocked and paired copies
    of the weights (and the tables named in `dropped`) left out."""
    dropped = {"folded_bias", "blocked_weights", "paired_weights", *dropped}
    params = {**call.params, "packed": TableRef(table.suffix), "folded_bias": "0"}
    if "blocked" in params:
        params["blocked"] = ("0", *([0] * (len(params["blocked"]) - 1)))  # NULL and zeros
    if "paired_weights" in params:
        params["paired_weights"] = "0"
    kept = [t for t in call.tables if t.suffix not in dropped]
    return renamed(call, variant, params=params, tables=[*kept, table], **changes)


def conv_taps(graph: Graph, op: Operator, call: KernelCall) -> np.ndarray:
    weights = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8)
    if call.function == "fg_depthwise_conv2d_one_channel_s8":  # [1, h, w, m] -> [m, h, w, 1]
        weights = np.moveaxis(weights, 3, 0)
    return weights.reshape(weights.shape[0], -1)


def _convolution(name: str):
    def specialize(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
        return _weights_call(call, globals()[name], conv_taps(graph, op, call))
    return specialize


def _fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8).reshape(call.params["out_depth"], -1)
    return _weights_call(call, FULLY_CONNECTED, taps)


def _conv2d_4bit(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    if call.params["filter_h"] * call.params["filter_w"] * call.params["in_c"] > GATHER_TAPS:
        return None
    return _weights_call(call, CONV_2D_4BIT, conv_taps(graph, op, call), int4=True)


def _fully_connected_4bit(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8).reshape(call.params["out_depth"], -1)
    return _weights_call(call, FULLY_CONNECTED_4BIT, taps, int4=True)


DOT8 = "one input x eight channels per tap: LDRB of w + 128 (interleaved), MULS, ADD; 128 x input sum taken off"
POINTWISE = Variant("fg_conv2d_pointwise_armv6m", "fg_conv2d_pointwise_s8", REQUIRES, _convolution("POINTWISE"),
                    DOT8)
FOLDED = Variant("fg_conv2d_folded_armv6m", "fg_conv2d_folded_s8", REQUIRES, _convolution("FOLDED"),
                 "window rows (gathered at the border), then " + DOT8)
FOLDED_ONE_CHANNEL = Variant("fg_conv2d_folded_armv6m", "fg_depthwise_conv2d_one_channel_s8", REQUIRES,
                             _convolution("FOLDED_ONE_CHANNEL"), "one-channel depthwise as its CONV_2D: " + DOT8)
FULLY_CONNECTED = Variant("fg_fully_connected_armv6m", "fg_fully_connected_folded_s8", REQUIRES, _fully_connected,
                          DOT8)

DOT8_4BIT = ("4-bit weights: one input x eight channels per tap, two nibbles + 8 per LDRB: the byte and its high "
             "nibble (LSRS) each through MULS, ADD")
CONV_2D_4BIT = Variant("fg_conv2d_s4_armv6m", "fg_conv2d_s4", REQUIRES, _conv2d_4bit,
                       "window rows (gathered at the border), then " + DOT8_4BIT)
FULLY_CONNECTED_4BIT = Variant("fg_fully_connected_s4_armv6m", "fg_fully_connected_s4", REQUIRES,
                               _fully_connected_4bit, DOT8_4BIT)
VARIANTS = [POINTWISE, FOLDED, FOLDED_ONE_CHANNEL, FULLY_CONNECTED, CONV_2D_4BIT, FULLY_CONNECTED_4BIT]
