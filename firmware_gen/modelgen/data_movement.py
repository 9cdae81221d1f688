"""A seeded synthetic int8 model that chains the data-movement operators of issue 15 (no arithmetic: every tensor
shares one quantization), including constants the compiler folds (SHAPE, FILL, ZEROS_LIKE, a TRANSPOSE and a
RESHAPE of weights)."""

from __future__ import annotations

import numpy as np

from firmware_gen.modelgen.writer import ModelBuilder

_Q = {"scale": 0.05, "zero_point": -4}


def _i32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int32)


def data_movement(seed: int = 0) -> bytes:
    """(1, 8, 8, 4) -> mirror pad -> strided slice -> reverse -> split -> gather | slice -> pack -> unpack ->
    concatenation with folded constants -> split_v -> gather_nd -> expand_dims -> broadcast_to."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder(f"data_movement_{seed}")

    def op(opcode: str, inputs: list[int], shapes: list[tuple[int, ...]], options: dict | None = None,
           dtype: str = "int8") -> list[int]:
        quant = _Q if dtype == "int8" else {}
        outputs = [b.tensor(f"{opcode.lower()}_{len(b.operators)}_{k}", s, dtype, **quant)
                   for k, s in enumerate(shapes)]
        b.operator(opcode, inputs, outputs, options or {})
        return outputs

    x = b.input("input", (1, 8, 8, 4), "int8", **_Q)
    mode = ["REFLECT", "SYMMETRIC"][int(rng.integers(2))]
    (x,) = op("MIRROR_PAD", [x, b.constant("pads", _i32([[0, 0], [1, 1], [2, 0], [0, 0]]))], [(1, 10, 10, 4)],
              {"mode": mode})
    (x,) = op("STRIDED_SLICE", [x, b.constant("begin", _i32([0, 1, 0, 0])), b.constant("end", _i32([1, 10, 0, 4])),
                                b.constant("strides", _i32([1, 2, 2, 1]))], [(1, 5, 5, 4)], {"end_mask": 4})
    (x,) = op("REVERSE_V2", [x, b.constant("rev_axis", _i32([int(rng.integers(1, 4))]))], [(1, 5, 5, 4)])
    left, right = op("SPLIT", [b.constant("split_axis", _i32(3)), x], [(1, 5, 5, 2)] * 2, {"num_splits": 2})
    (left,) = op("GATHER", [left, b.constant("rows", _i32(rng.integers(0, 5, 3)))], [(1, 3, 5, 2)], {"axis": 1})
    (right,) = op("SLICE", [right, b.constant("slice_begin", _i32([0, 1, 0, 0])),
                            b.constant("slice_size", _i32([1, 3, -1, 2]))], [(1, 3, 5, 2)])
    (packed,) = op("PACK", [left, right], [(2, 1, 3, 5, 2)], {"values_count": 2, "axis": 0})
    first, second = op("UNPACK", [packed], [(1, 3, 5, 2)] * 2, {"num": 2, "axis": 0})
    # Folded at generation time: a weight TRANSPOSEd and RESHAPEd, a FILL, a ZEROS_LIKE.
    weights = b.constant("weights", rng.integers(-128, 128, (5, 3, 2), dtype=np.int8), **_Q)
    (w,) = op("TRANSPOSE", [weights, b.constant("perm", _i32([1, 0, 2]))], [(3, 5, 2)])
    (w,) = op("RESHAPE", [w], [(1, 3, 5, 2)], {"new_shape": (1, 3, 5, 2)})
    (filled,) = op("FILL", [b.constant("fill_dims", _i32([1, 3, 5, 1])),
                            b.constant("fill_value", np.array(int(rng.integers(-128, 128)), np.int8), **_Q)],
                   [(1, 3, 5, 1)])
    (zeros,) = op("ZEROS_LIKE", [filled], [(1, 3, 5, 1)])
    (x,) = op("CONCATENATION", [first, w, filled, second, zeros], [(1, 3, 5, 8)], {"axis": 3})
    parts = op("SPLIT_V", [x, b.constant("sizes", _i32([3, -1])), b.constant("splitv_axis", _i32(-1))],
               [(1, 3, 5, 3), (1, 3, 5, 5)], {"num_splits": 2})
    (shape,) = op("SHAPE", [parts[0]], [(4,)], dtype="int32")  # folded: static shapes
    (y,) = op("GATHER_ND", [parts[1], b.constant("nd", _i32([[0, 2], [0, 0]]))], [(2, 5, 5)])
    (y,) = op("EXPAND_DIMS", [y, b.constant("expand_axis", _i32([0]))], [(1, 2, 5, 5)])
    (y,) = op("BROADCAST_TO", [y, b.constant("target", _i32([3, 2, 5, 5]))], [(3, 2, 5, 5)])
    (z,) = op("RESHAPE", [parts[0], shape], [(1, 3, 5, 3)], {"new_shape": (1, 3, 5, 3)})  # the folded SHAPE
    b.output(y)
    b.output(z)
    return b.build()
