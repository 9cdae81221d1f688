"""The Armv6-M fully-connected and convolution variants with two outputs per multiply
(fg_fully_connected_paired_armv6m, fg_conv2d_paired_armv6m; their shared loop in
runtime_c/kernels/support/pairs_armv6m.c, where the arithmetic is explained).

MULS keeps the low 32 bits of x * (w1 + 2^16 w2): a register summing such products over a block of inputs holds
both outputs' partial sums, P1 + 2^16 P2, as long as each stays within int16, whatever the int8 inputs. Here, per
pair of outputs (2j, 2j + 1; an odd last one paired with zero weights), the block length is chosen from BLOCKS: the
one of least estimated instructions among those whose every block is safe (`safe`); a layer with a pair safe at no
length (weights of -128) keeps the compact variant. The pair words take four bytes per two weights, twice the int8
filter's flash: where the board's flash is short, ops/variant_choice.py keeps the layer on the compact variant.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import ConstTable, KernelCall
from firmware_gen.ops.support.requantize import wrap_int32
from firmware_gen.ops.variants import Variant, call_table
from firmware_gen.ops.variants.armv6m import REQUIRES, conv_taps, packed_call
from firmware_gen.ops.variants.armv6m_output import accumulator_reach, layer_constants

BLOCKS = (16, 8, 4, 2)
PASS = 16  # the inputs of one pass of each length's loop: 16 / length blocks
ENTRIES = {16: 0, 8: 1, 4: 3, 2: 7}  # the loop of each length in the kernel's table of entries (then one a block)
BLOCK_START = 1 << 15  # each block's register starts there: its low half P1 + 2^15, unsigned
WIDENED = 16  # the inputs are widened to a multiple of this many words
STACK_SHARE = 4  # the widened row takes at most this fraction of the board's stack
UNKNOWN_STACK_DEPTH = 1024  # the deepest row where the board's stack is not known


def padded(depth: int, length: int) -> int:
    return -(-depth // length) * length


def safe(taps: np.ndarray, length: int) -> bool:
    """Whether every block of `length` inputs of each row of `taps` ([rows, depth], zeros after the depth) keeps its
    partial sum within int16 for any inputs in [-128, 127]: the sum of max(127 w, -128 w) at most 32767 and that of
    min(127 w, -128 w) at least -32768."""
    rows, depth = taps.shape
    blocks = np.zeros((rows, padded(depth, length)), np.int64)
    blocks[:, :depth] = taps
    blocks = blocks.reshape(rows, -1, length)
    high = np.maximum(127 * blocks, -128 * blocks).sum(axis=2)
    low = np.minimum(127 * blocks, -128 * blocks).sum(axis=2)
    return bool(np.all(high <= 32767) and np.all(low >= -32768))


def estimated_instructions(depth: int, length: int) -> int:
    """A pair's instructions at this block length (an estimate): 6 per two inputs, 3 per block (its fold), 2 per pass
    (the loop)."""
    blocks = padded(depth, length) // length
    return padded(depth, length) * 3 + blocks * 3 + -(-blocks // (PASS // length)) * 2


def entry(length: int, blocks: int) -> int:
    """The entry of a pair of `blocks` blocks of `length`: its loop's first pass skips the blocks it has too few
    for."""
    return ENTRIES[length] + -blocks % (PASS // length)


def entry_length(entry: int) -> int:
    """The block length of an entry."""
    return max((first, length) for length, first in ENTRIES.items() if first <= entry)[1]


def block_length(pair: np.ndarray) -> int | None:
    """The block length of a pair of outputs' weights ([2, depth]): the safe one of least estimated instructions;
    None if none is safe."""
    lengths = [length for length in BLOCKS if safe(pair, length)]
    return min(lengths, key=lambda length: estimated_instructions(pair.shape[1], length), default=None)


def pair_record(pair: np.ndarray, bias: np.ndarray, length: int) -> np.ndarray:
    """One pair's record (int32): its entry, the bytes of inputs it reads, its two sums' starting values (the biases,
    the first as bias1 + 2^16 bias2 less BLOCK_START per block), then w1 + 2^16 w2 per input (zeros to the padded
    depth)."""
    depth = pair.shape[1]
    inputs = padded(depth, length)
    words = np.zeros(inputs, np.int64)
    words[:depth] = pair[0].astype(np.int64) + (pair[1].astype(np.int64) << 16)
    first = int(bias[0]) + (int(bias[1]) << 16) - BLOCK_START * (inputs // length)
    head = [entry(length, inputs // length), 4 * inputs, first, int(bias[1])]
    return wrap_int32(np.concatenate([np.array(head, np.int64), words])).astype(np.int32)


def paired_records(taps: np.ndarray, bias: np.ndarray) -> np.ndarray | None:
    """The records of every pair of outputs of `taps` ([outputs, depth]) with their folded biases; None when a pair
    is safe at no block length."""
    outputs, depth = taps.shape
    even = np.zeros((outputs + outputs % 2, depth), np.int64)
    even[:outputs] = taps
    biases = np.zeros(len(even), np.int64)
    biases[:outputs] = bias
    records = []
    for j in range(0, len(even), 2):
        length = block_length(even[j:j + 2])
        if length is None:
            return None
        records.append(pair_record(even[j:j + 2], biases[j:j + 2], length))
    return np.concatenate(records)


def _deepest(stack_bytes: int) -> int:
    return stack_bytes // STACK_SHARE // 4 if stack_bytes else UNKNOWN_STACK_DEPTH


def _paired_call(call: KernelCall, variant: Variant, taps: np.ndarray, stack_bytes: int) -> KernelCall | None:
    """The variant's call on `taps` ([outputs, depth]): the output stage's constants then the pairs' records, the
    widened inputs its run-time stack; None where they would take more than the board's stack allows or a pair is
    safe at no block length."""
    outputs, depth = taps.shape
    widened = padded(depth, WIDENED)
    if widened > _deepest(stack_bytes):
        return None
    bias = call_table(call, "folded_bias")[:outputs].astype(np.int64)
    records = paired_records(taps, bias)
    if records is None:
        return None
    constants = layer_constants(call, outputs, accumulator_reach(taps, bias))
    table = ConstTable("armv6m_paired", "int32_t", np.concatenate([constants, records]))
    return packed_call(call, variant, table, set(), run_time_stack=4 * widened)


def _fully_connected(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8).reshape(call.params["out_depth"], -1)
    return _paired_call(call, FULLY_CONNECTED, taps, isa.stack_bytes)


def _convolution(name: str):
    def specialize(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
        return _paired_call(call, globals()[name], conv_taps(graph, op, call), isa.stack_bytes)
    return specialize


PAIRS = ("two outputs per MULS (w1 + 2^16 w2 words), in blocks whose int16 partial sums cannot overflow: LDM two "
         "inputs, LDM two words, two MULS, two ADDS")
FULLY_CONNECTED = Variant("fg_fully_connected_paired_armv6m", "fg_fully_connected_folded_s8", REQUIRES,
                          _fully_connected, PAIRS, precedence=1, takes_isa=True, wide=True)
POINTWISE = Variant("fg_conv2d_paired_armv6m", "fg_conv2d_pointwise_s8", REQUIRES, _convolution("POINTWISE"),
                    "each pixel widened, then " + PAIRS, precedence=1, takes_isa=True, wide=True)
FOLDED = Variant("fg_conv2d_paired_armv6m", "fg_conv2d_folded_s8", REQUIRES, _convolution("FOLDED"),
                 "each window widened (the zero point in the padding), then " + PAIRS, precedence=1,
                 takes_isa=True, wide=True)
VARIANTS = [FULLY_CONNECTED, POINTWISE, FOLDED]
