"""The ISA variants' weight layouts within the board's flash.

A variant may lay its weights out wider than the portable kernels do (the DSP variants' int16 pairs take twice the
bytes of int8 weights). When the constants of the chosen variants do not fit the flash left once CODE_RESERVE is
counted, the layers that gain least per extra byte (fewest output pixels, as in ops/convolution/wide_layout.py) go
back to their
portable calls until they fit; the linker's fit check still has the last word.
"""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.convolution.wide_layout import CODE_RESERVE, constant_bytes, output_pixels


def _table_bytes(call: KernelCall) -> int:
    return sum(table.values.nbytes for table in call.tables)


def fit_variants(graph: Graph, portable: dict[int, KernelCall], chosen: dict[int, KernelCall],
                 flash_bytes: int) -> dict[int, KernelCall]:
    """`chosen` with the variants that cost flash put back to `portable` (the portable call, or the compact variant
    after a wide one: Variant.wide), fewest output pixels first, until the constants fit `flash_bytes` (or no variant
    is left to put back)."""
    over = CODE_RESERVE + constant_bytes(graph, chosen) - flash_bytes
    costly = [index for index, call in chosen.items()
              if call is not portable[index] and _table_bytes(call) > _table_bytes(portable[index])]
    fitted = dict(chosen)
    for index in sorted(costly, key=lambda i: output_pixels(graph, chosen[i])):
        if over <= 0:
            break
        fitted[index] = portable[index]
        over = CODE_RESERVE + constant_bytes(graph, fitted) - flash_bytes
    return fitted
