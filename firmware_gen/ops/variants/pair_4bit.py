"""What the 4-bit CONV_2D and FULLY_CONNECTED variants of each ISA class share (mve_4bit, dsp_4bit, armv7m_4bit): the
pair of variants replacing fg_conv2d_s4 and fg_fully_connected_s4, each from its class's weight layout."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant

# (graph, operator, the portable call, the variant, output channels) -> the variant's call, its weights laid out.
Layout = Callable[[Graph, Operator, KernelCall, Variant, int], KernelCall]


def weights_4bit(graph: Graph, op: Operator, out_c: int) -> np.ndarray:
    """The filter as [out_c, taps] (values in [-8, 7])."""
    return np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int64).reshape(out_c, -1)


def conv_and_fully_connected(prefix: str, requires: frozenset[str], layout: Layout, window_taps: int,
                             description: str, depth_max: int | None = None) -> list[Variant]:
    """fg_conv2d_s4_<prefix> (windows of at most window_taps taps) and fg_fully_connected_s4_<prefix> (rows of at most
    depth_max)."""
    def conv2d(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
        p = call.params
        if p["filter_h"] * p["filter_w"] * p["in_c"] > window_taps:
            return None
        return layout(graph, op, call, variants[0], int(p["out_c"]))

    def fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
        if depth_max is not None and call.params["accum_depth"] > depth_max:
            return None
        return layout(graph, op, call, variants[1], int(call.params["out_depth"]))

    variants = [Variant(f"fg_conv2d_s4_{prefix}", "fg_conv2d_s4", requires, conv2d,
                        f"{description}; windows copied (gathered at the border)"),
                Variant(f"fg_fully_connected_s4_{prefix}", "fg_fully_connected_s4", requires, fully_connected,
                        description)]
    return variants
