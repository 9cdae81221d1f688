"""TRANSPOSE, STRIDED_SLICE, SLICE, CONCATENATION, PAD, and SPLIT, SPLIT_V, UNPACK, PACK, REVERSE_V2, BROADCAST_TO,
RESIZE_NEAREST_NEIGHBOR on int16 tensors (16x8 models): the int8 kernels on bytes (SPLIT: fg_split_s16), bit-exact
against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import CASES, FEW_EXAMPLES, assert_cases_bit_exact, movement_model
from test_mirror_pad_reverse_broadcast import broadcast_models, reverse_models
from test_resize import resize_cases
from test_split_pack import split_models, unpack_pack_models
from validated import MAX_EXAMPLES, assert_bit_exact, refusal

from firmware_gen.modelgen.writer import ModelBuilder

SCALE = 0.01


def _ints(builder: ModelBuilder, name: str, values) -> int:
    return builder.constant(name, np.asarray(values, dtype=np.int32))


def movement_chain(shape: tuple[int, ...], perm: tuple[int, ...], axis: int) -> bytes:
    """x -> TRANSPOSE(perm) -> STRIDED_SLICE (every other element of the first axis, from the end) -> SLICE (drop
    the last element of the last axis, where there is one) -> CONCATENATION with the slice along `axis`."""
    b = ModelBuilder("movement_16x8")
    x = b.input("x", shape, "int16", scale=SCALE)
    moved = tuple(shape[p] for p in perm)
    t = b.tensor("t", moved, "int16", scale=SCALE)
    b.operator("TRANSPOSE", [x, _ints(b, "perm", perm)], [t])
    rank = len(moved)
    strided = (-(-moved[0] // 2), *moved[1:])
    s = b.tensor("s", strided, "int16", scale=SCALE)
    begin, end, strides = [moved[0] - 1] + [0] * (rank - 1), [-moved[0] - 1] + list(moved[1:]), [-2] + [1] * (rank - 1)
    b.operator("STRIDED_SLICE", [t, _ints(b, "begin", begin), _ints(b, "end", end), _ints(b, "strides", strides)],
               [s], {"end_mask": 1})
    sliced = (*strided[:-1], max(strided[-1] - 1, 1))
    c = b.tensor("c", sliced, "int16", scale=SCALE)
    b.operator("SLICE", [s, _ints(b, "slice_begin", [0] * rank), _ints(b, "slice_size", sliced)], [c])
    joined = tuple(n * 2 if d == axis else n for d, n in enumerate(sliced))
    y = b.tensor("y", joined, "int16", scale=SCALE)
    b.operator("CONCATENATION", [c, c], [y], {"axis": axis})
    b.output(y)
    return b.build()


@st.composite
def chains(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=2, max_size=4)))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return shape, perm, draw(st.integers(0, len(shape) - 1))


@settings(max_examples=max(MAX_EXAMPLES // 4, 1), deadline=None)
@given(case=chains(), seed=st.integers(0, 99))
def test_int16_data_movement_is_bit_exact(case, seed):
    assert_bit_exact(movement_chain(*case), seed=seed)


def test_mixed_int8_and_int16_are_refused():
    b = ModelBuilder("mixed")
    x = b.input("x", (2, 3), "int16", scale=SCALE)
    y = b.tensor("y", (3, 2), "int8", scale=SCALE)
    b.operator("TRANSPOSE", [x, _ints(b, "perm", (1, 0))], [y])
    b.output(y)
    assert "is int8 but tensor 0 'x'" in refusal(b.build())


def _pad(opcode: str, value: int | None) -> bytes:
    b = ModelBuilder(opcode.lower())
    x = b.input("x", (1, 3, 2, 4), "int16", scale=SCALE)
    y = b.tensor("y", (1, 5, 3, 4), "int16", scale=SCALE)
    inputs = [x, _ints(b, "paddings", [[0, 0], [1, 1], [0, 1], [0, 0]])]
    if value is not None:
        inputs.append(b.constant("value", np.array([value], dtype=np.int16)))
    b.operator(opcode, inputs, [y])
    b.output(y)
    return b.build()


def test_int16_pads_are_bit_exact():
    assert_bit_exact(_pad("PAD", None), seed=1)
    assert_bit_exact(_pad("PADV2", -1), seed=2)


@pytest.mark.parametrize("value", [5, -32768, 0x1234])
def test_int16_pad_values_of_two_different_bytes_are_bit_exact(value):
    assert_bit_exact(_pad("PADV2", value), seed=3)


@st.composite
def resize_nearest_models(draw):
    shape, size, options = draw(resize_cases())
    return movement_model("RESIZE_NEAREST_NEIGHBOR", [shape], [(shape[0], *size, shape[3])], [size], options,
                          dtype="int16")


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(st.one_of(split_models("int16"), unpack_pack_models("int16"), reverse_models("int16"),
                                 broadcast_models("int16")), min_size=CASES, max_size=CASES),
       resize=resize_nearest_models())
def test_int16_split_pack_reverse_broadcast_and_resize_nearest_are_bit_exact(models, resize):
    assert_cases_bit_exact([*models, resize])
