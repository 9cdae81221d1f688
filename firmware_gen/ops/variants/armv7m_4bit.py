"""Armv7-M variants of the 4-bit-weight CONV_2D and FULLY_CONNECTED (every core from the M3 on; a Helium one is chosen
first where it fits): runtime_c/kernels/support/gemm_s4_armv7m.c.

The weights are the Armv6-M variants' nibble layout (armv6m.nibble_interleaved: eight channels per tap, channel i's
weight + 8 in nibble i of a little-endian word), read a word per tap: masked with 0x000F000F after a shift, a word is
two 16-bit lanes that one MLA multiplies by the input. Weight bytes: 4 per tap per group of eight channels, TFLite's
ceil(n / 2) when out_c is a multiple of 8 (a last short group is padded).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import ARMV7M
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, renamed
from firmware_gen.ops.variants.armv6m import GATHER_TAPS, nibble_interleaved
from firmware_gen.ops.variants.pair_4bit import conv_and_fully_connected, weights_4bit

REQUIRES = frozenset({ARMV7M})


def _nibble_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    """The call with `packed` the weights in nibble_interleaved words, the portable packed rows left out."""
    table = ConstTable("packed_words", "uint32_t",
                       nibble_interleaved(weights_4bit(graph, op, out_c)).view("<u4").astype(np.uint32))
    kept = [t for t in call.tables if t.suffix != call.params["packed"].suffix]
    return renamed(call, variant, params={**call.params, "packed": TableRef(table.suffix)}, tables=[*kept, table])


VARIANTS = conv_and_fully_connected("armv7m", REQUIRES, _nibble_call, GATHER_TAPS, "4-bit weights: one input x eight "
                                    "channels per tap word, two nibble lanes per MLA, lanes split every 16 taps")
