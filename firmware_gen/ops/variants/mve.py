"""Helium (MVE) variants for Armv8.1-M (Cortex-M55, M85): runtime_c/kernels/*_mve.c, declared in fg/variants_mve.h.

Their constants travel in one int32 table, `packed`, per layer:
  quant block (16 words per four output channels): folded bias[4], multiplier[4], left shift[4] = max(shift, 0),
    right shift[4] = min(shift, 0); channels past the layer's are zero.
  GEMM layout (1x1 and folded convolutions, fully connected): per block of four output channels its quant block,
    then ceil(depth / 16) chunks of 4 rows x 16 weight bytes (zero padded), as VMLADAVA reads them; for the column
    band kernel each window's taps column by column (filter_w, filter_h, in_c).
  depthwise 3x3 layouts, one after the other, per block of four channels its quant block, then
    vector: 9 taps x 4 channels as int32 words (word loads take any base register; byte-widening loads want
      r0-r7, which hold the taps);
    gathering: per channel its taps 0-7 as int16 (VMLADAVA.S16), then tap 8 of the 4 channels as int32 words.
The variants no longer read the original filter (it is not emitted) nor the folded bias table.
MVE implies the DSP extension, so the variants require both: they sort ahead of any DSP-only variant.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import DSP, MVE
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, renamed

ROW_MAX = 1152  # FG_MVE_ROW_MAX: the longest row (window) the convolution variants copy to their stack
DEPTHWISE_MAX = 1024  # FG_MVE_DEPTHWISE_MAX: channels of the depthwise variant's zero-point row
COLUMN_BAND_MAX = 2048  # FG_MVE_COLUMN_BAND_MAX: the column band on the stack (filter_h x band width x in_c)
# Fewer input channels and strided: the band's pieces (one per column and tap row, twice as many columns as output
# pixels) cost more than copying the windows (the first convolutions of kws_ref_model, 1 channel, stride 2: 106,562
# -> 143,125 instructions; vww_96_int8, 3 channels: 343,156 -> 352,188; pretrainedResnet_quant's, 3 channels, stride
# 1: 219,656 -> 197,000).
COLUMN_MIN_CHANNELS = 8
REQUIRES = frozenset({DSP, MVE})


def _table(call: KernelCall, suffix: str) -> np.ndarray:
    return next(np.asarray(t.values, dtype=np.int64) for t in call.tables if t.suffix == suffix)


def _blocks(channels: int) -> int:
    return (channels + 3) // 4


def quant_blocks(call: KernelCall, channels: int) -> np.ndarray:
    """[blocks, 16] int32: the quant block of every four output channels."""
    bias = _table(call, "folded_bias")[:channels]  # the portable layout may pad it
    multipliers = np.broadcast_to(_table(call, "multipliers"), (channels,))
    shifts = np.broadcast_to(_table(call, "shifts"), (channels,))
    padded = _blocks(channels) * 4
    words = np.zeros((4, padded), dtype=np.int64)
    words[:, :channels] = [bias, multipliers, np.maximum(shifts, 0), np.minimum(shifts, 0)]
    return words.reshape(4, -1, 4).transpose(1, 0, 2).reshape(-1, 16).astype(np.int32)


def _as_words(block_bytes: np.ndarray) -> np.ndarray:
    """[blocks, n] int8 (n a multiple of 4) as [blocks, n / 4] int32, little-endian as the target reads them."""
    return np.ascontiguousarray(block_bytes, dtype=np.int8).view("<i4").astype(np.int32)


def gemm_layout(call: KernelCall, weights: np.ndarray) -> np.ndarray:
    """The GEMM layout of weights [out_c, depth]."""
    out_c, depth = weights.shape
    chunks = (depth + 15) // 16
    padded = np.zeros((_blocks(out_c) * 4, chunks * 16), dtype=np.int8)
    padded[:out_c, :depth] = weights
    # [block, row, chunk, 16] -> [block, chunk, row, 16]
    ordered = padded.reshape(-1, 4, chunks, 16).transpose(0, 2, 1, 3).reshape(_blocks(out_c), -1)
    return np.concatenate([quant_blocks(call, out_c), _as_words(ordered)], axis=1).ravel()


def depthwise_layout(call: KernelCall, taps: np.ndarray) -> np.ndarray:
    """The depthwise 3x3 layouts of taps [9, channels]: the vector one, then the gathering one."""
    channels = taps.shape[1]
    padded = np.zeros((9, _blocks(channels) * 4), dtype=np.int32)
    padded[:, :channels] = taps
    by_block = padded.reshape(9, -1, 4).transpose(1, 2, 0)  # [block, channel, tap]
    quant = quant_blocks(call, channels)
    vector = np.concatenate([quant, by_block.transpose(0, 2, 1).reshape(-1, 36)], axis=1)
    pairs = np.ascontiguousarray(by_block[:, :, :8], dtype="<i2").reshape(-1, 32).view("<i4").astype(np.int32)
    gathering = np.concatenate([quant, pairs, by_block[:, :, 8]], axis=1)
    return np.concatenate([vector.ravel(), gathering.ravel()])


def _table_refs(value: object) -> set[str]:
    if isinstance(value, TableRef):
        return {value.suffix}
    if isinstance(value, tuple):
        return set().union(*(_table_refs(v) for v in value))
    return set()


def _with_packed(call: KernelCall, variant: Variant, words: np.ndarray, inputs: list[int]) -> KernelCall:
    """The variant's call: `packed` added; the portable layouts it does not read (folded bias, repacked filters:
    every table field but the requantization's) and their tables dropped, so that they are not emitted."""
    dropped = {name for name, value in call.params.items() if name != "requant" and _table_refs(value)}
    unused = set().union(*(_table_refs(call.params[name]) for name in dropped)) if dropped else set()
    params = {name: value for name, value in call.params.items() if name not in dropped}
    tables = [t for t in call.tables if t.suffix not in unused]
    tables.append(ConstTable("packed", "int32_t", words))
    params["packed"] = TableRef("packed")
    return renamed(call, variant, params=params, tables=tables, inputs=inputs)


def _weights(graph: Graph, op: Operator) -> np.ndarray:
    """The filter with output channels first ([out_c, ...]; a depthwise filter [1, h, w, m] of one input channel,
    which the portable lowering runs as a convolution, as [m, h, w])."""
    weights = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8)
    return np.moveaxis(weights, 3, 0) if op.opcode == "DEPTHWISE_CONV_2D" else weights


def _gemm_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    weights = _weights(graph, op).reshape(out_c, -1)
    return _with_packed(call, variant, gemm_layout(call, weights), [call.inputs[0], -1])


def _pointwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    if call.params["in_c"] > ROW_MAX:
        return None
    return _gemm_call(graph, op, call, POINTWISE, int(call.params["out_c"]))


def _folded(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    if call.params["filter_h"] * call.params["filter_w"] * call.params["in_c"] > ROW_MAX:
        return None
    variant = ONE_CHANNEL if op.opcode == "DEPTHWISE_CONV_2D" else FOLDED
    p = call.params
    return _with_pairs_loop(_gemm_call(graph, op, call, variant, int(p["out_c"])), call, "fg_conv2d_folded",
                            p["filter_h"] * p["filter_w"] * p["in_c"], True)


def _columns(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """The column-band kernel: each window's taps column by column ([out_c, filter_w, filter_h, in_c])."""
    p = call.params
    width = (p["out_w"] - 1) * p["stride_w"] + p["filter_w"]
    fits = p["filter_h"] * width * p["in_c"] <= COLUMN_BAND_MAX
    if p["dilation_w"] != 1 or (p["in_c"] < COLUMN_MIN_CHANNELS and p["stride_w"] > 1) or not fits:
        return None
    out_c = int(p["out_c"])
    taps = _weights(graph, op).reshape(out_c, p["filter_h"], p["filter_w"], -1)
    columns = _with_packed(call, COLUMNS, gemm_layout(call, taps.transpose(0, 2, 1, 3).reshape(out_c, -1)),
                           [call.inputs[0], -1])
    return _with_pairs_loop(columns, call, "fg_conv2d_columns", p["filter_h"] * p["filter_w"] * p["in_c"],
                            p["out_w"] >= 2)


# The pipelined loops of fg_mve_gemm_blocks2_pairs by a layer's steps of 16 taps (fg/variants_mve.h's fg_mve_pairs_*
# loops, chosen in C by gemm_blocks2_mve.c's fg_mve_pairs_kind_of); "unrolled" for four to eight steps, "spread" for
# ten or more but these.
PIPELINED_LOOPS = {1: "one", 2: "two", 3: "three", 9: "nine", 18: "eighteen", 36: "thirty_six"}


def pairs_loop(quant: np.ndarray, depth: int, runs_pairs: bool) -> str:
    """The loop of fg_mve_gemm_blocks2_pairs (fg_mve_pairs_kind_of) that a layer of these quant blocks and `depth`
    taps runs its pairs through: its kernel's entry point of that loop links no other. `runs_pairs`: whether the
    kernel calls a pairs loop for the layer at all (else "by_one", which links none)."""
    if not runs_pairs:
        return "by_one"
    if (quant[:, 8:12] > 0).any() or not (quant[:, 12:16] < 0).all():
        return "unpipelined"
    steps = -(-depth // 16)
    return PIPELINED_LOOPS.get(steps, "spread" if steps > 9 else "unrolled")


def _with_pairs_loop(variant_call: KernelCall, portable: KernelCall, kernel: str, depth: int,
                     runs_pairs: bool) -> KernelCall:
    """The variant's call through its kernel's entry point of the layer's pairs loop (pairs_loop; the quant blocks
    from the portable call's tables)."""
    out_c = int(portable.params["out_c"])
    loop = pairs_loop(quant_blocks(portable, out_c), depth, runs_pairs and out_c % 4 == 0)
    return dataclasses.replace(variant_call, function=f"{kernel}_{loop}_s8_mve")


def _fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    return _gemm_call(graph, op, call, FULLY_CONNECTED, int(call.params["out_depth"]))


def _depthwise_3x3(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    channels = int(call.params["in_c"])
    if channels > DEPTHWISE_MAX:
        return None
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8).reshape(9, channels)
    return _with_packed(call, DEPTHWISE_3X3, depthwise_layout(call, taps), [call.inputs[0]])


def _add(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    dims, strides1, strides2 = call.params["shape"]
    if any(d != 1 for d in dims[:-1]) or (strides1[-1], strides2[-1]) != (1, 1):
        return None  # broadcasting: the portable walker
    return renamed(call, ADD)


POINTWISE = Variant("fg_conv2d_pointwise_s8_mve", "fg_conv2d_pointwise_s8", REQUIRES, _pointwise,
                    "Helium: 2 pixels x 4 channels of VMLADAVA per 16 taps, vector requantization")
FOLDED = Variant("fg_conv2d_folded_s8_mve", "fg_conv2d_folded_s8", REQUIRES, _folded,
                 "Helium: windows copied to the stack in pairs, then 2 x 4 VMLADAVA dot products")
# A depthwise convolution of one input channel, which the portable lowering runs as a convolution: the same kernel.
ONE_CHANNEL = Variant("fg_conv2d_folded_s8_mve", "fg_depthwise_conv2d_one_channel_s8", REQUIRES, _folded,
                      "Helium: as a convolution of one input channel, windows copied in pairs, 2 x 4 VMLADAVA")
COLUMNS = Variant("fg_conv2d_columns_s8_mve", "fg_conv2d_folded_s8", REQUIRES, _columns,
                  "Helium: a band of the row's input columns, windows read in place in pairs, 2 x 4 VMLADAVA")
FULLY_CONNECTED = Variant("fg_fully_connected_folded_s8_mve", "fg_fully_connected_folded_s8", REQUIRES,
                          _fully_connected, "Helium: VMLADAVA dot products, 4 outputs per block")
DEPTHWISE_3X3 = Variant("fg_depthwise_conv2d_3x3_s8_mve", "fg_depthwise_conv2d_3x3_s8", REQUIRES, _depthwise_3x3,
                        "Helium: 4 channels per vector, 9 taps, vector requantization")

def _average_pool(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    if call.params["filter_h"] * call.params["filter_w"] > 255:
        return None  # its int16 sums could overflow
    return renamed(call, AVERAGE_POOL)


AVERAGE_POOL = Variant("fg_avg_pool2d_s8_mve", "fg_avg_pool2d_s8", REQUIRES, _average_pool,
                       "Helium: windows summed 8 channels per vector (int16)")
ADD = Variant("fg_add_s8_mve", "fg_add_s8", REQUIRES, _add, "Helium: 4 elements per vector, VQRDMULH rescaling")

VARIANTS = [POINTWISE, COLUMNS, FOLDED, ONE_CHANNEL, FULLY_CONNECTED, DEPTHWISE_3X3, AVERAGE_POOL, ADD]
