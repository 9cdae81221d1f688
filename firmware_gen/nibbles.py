"""TFLite's INT4 tensor layout: two's-complement nibbles, two per byte, element 2i in the low nibble of byte i,
packed over the whole flattened tensor, an odd count padded with a zero nibble (as TFLite Micro reads them).
Shared by the reader (unpack), the model writer and the kernels' weight layouts (pack)."""

from __future__ import annotations

import numpy as np

INT4_MIN, INT4_MAX = -8, 7


def packed_size(count: int) -> int:
    return (count + 1) // 2


def pack_int4(values: np.ndarray) -> bytes:
    """The flattened values (each in [-8, 7]) as packed nibbles."""
    flat = np.asarray(values, np.int64).ravel()
    if flat.size and (flat.min() < INT4_MIN or flat.max() > INT4_MAX):
        raise ValueError(f"4-bit values must lie in [{INT4_MIN}, {INT4_MAX}]")
    nibbles = np.zeros(2 * packed_size(flat.size), np.uint8)
    nibbles[:flat.size] = flat & 0xF
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()


def unpack_int4(raw: bytes, count: int) -> np.ndarray:
    """`count` int8 values from packed nibbles (len(raw) == packed_size(count))."""
    data = np.frombuffer(raw, np.uint8)
    nibbles = np.stack([data & 0xF, data >> 4], axis=1).ravel()[:count].astype(np.int8)
    return np.where(nibbles > INT4_MAX, nibbles - 16, nibbles).astype(np.int8)
