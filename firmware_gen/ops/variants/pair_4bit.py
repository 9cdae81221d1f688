"""What the 4-bit CONV_2D and FULLY_CONNECTED variants of each ISA class share (mve_4bit, dsp_4bit, armv7m_4bit): the
pair of variants replacing fg_conv2d_s4 and fg_fully_connected_s4, each from its class's weight layout; and the
channel-pair bytes (pack_channel_pairs) the Armv7-M and DSP layouts are made of."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant

# (graph, operator, the portable call, the variant, output channels[, the board's stack bytes when the variant takes
# them]) -> the variant's call, its weights laid out.
Layout = Callable[..., KernelCall]


def weights_4bit(graph: Graph, op: Operator, out_c: int) -> np.ndarray:
    """The filter as [out_c, taps] (values in [-8, 7])."""
    return np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int64).reshape(out_c, -1)


def pack_channel_pairs(weights: np.ndarray) -> np.ndarray:
    """int8 [C_out, K] in [-8, 7] -> int8 [ceil(C_out / 2), K]: output channels c (even) and c + 1 in one signed byte
    16 w_c + (w_c+1 + 8) (an odd C_out padded with a zero channel). Its low nibble u = w_c+1 + 8, so a dot product
    with the bytes, S_b = 16 S_c + S_c+1 + 8 X, and with their low nibbles, S_u = S_c+1 + 8 X (X the sum of the same
    inputs), give both channels: S_c+1 = S_u - 8 X, S_c = (S_b - S_u) >> 4."""
    channels, depth = weights.shape
    padded = np.zeros((channels + channels % 2, depth), np.int16)
    padded[:channels] = weights
    return (16 * padded[0::2] + padded[1::2] + 8).astype(np.int8)


def conv_and_fully_connected(prefix: str, requires: frozenset[str], layout: Layout, window_taps: int,
                             description: str, depth_max: int | None = None,
                             fc_description: str | None = None, takes_isa: bool = False) -> list[Variant]:
    """fg_conv2d_s4_<prefix> (windows of at most window_taps taps; laid out for the board's stack if takes_isa) and
    fg_fully_connected_s4_<prefix> (rows of at most depth_max; described by fc_description if given)."""
    def conv2d(graph: Graph, op: Operator, call: KernelCall, *isa: Isa) -> KernelCall | None:
        p = call.params
        if p["filter_h"] * p["filter_w"] * p["in_c"] > window_taps:
            return None
        return layout(graph, op, call, variants[0], int(p["out_c"]), *(board.stack_bytes for board in isa))

    def fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
        if depth_max is not None and call.params["accum_depth"] > depth_max:
            return None
        return layout(graph, op, call, variants[1], int(call.params["out_depth"]))

    variants = [Variant(f"fg_conv2d_s4_{prefix}", "fg_conv2d_s4", requires, conv2d,
                        f"{description}; windows copied (gathered at the border)", takes_isa=takes_isa),
                Variant(f"fg_fully_connected_s4_{prefix}", "fg_fully_connected_s4", requires, fully_connected,
                        fc_description or description)]
    return variants
