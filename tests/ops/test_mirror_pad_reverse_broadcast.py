"""MIRROR_PAD (REFLECT, SYMMETRIC), REVERSE_V2 and BROADCAST_TO of int8, bit-exact against TFLM."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import CASES, FEW_EXAMPLES, assert_cases_bit_exact, movement_model
from validated import refusal, shapes


@st.composite
def mirror_pad_models(draw):
    shape = draw(shapes(1, 4, max_side=4))
    mode = draw(st.sampled_from(["REFLECT", "SYMMETRIC"]))
    shift = 1 if mode == "REFLECT" else 0
    paddings = [[draw(st.integers(0, n - shift)) for _ in range(2)] for n in shape]
    out = [n + a + b for n, (a, b) in zip(shape, paddings, strict=True)]
    return movement_model("MIRROR_PAD", [shape], [out], [paddings], {"mode": mode})


@st.composite
def reverse_models(draw, dtype="int8"):
    shape = draw(shapes(1, 5, max_side=4))
    first = draw(st.integers(0, len(shape) - 1))
    last = draw(st.integers(first, len(shape) - 1))  # TFLM reverses contiguous axes only
    return movement_model("REVERSE_V2", [shape], [shape], [list(range(first, last + 1))], dtype=dtype)


@st.composite
def broadcast_models(draw, dtype="int8"):
    target = draw(shapes(1, 5, max_side=4))
    kept = draw(st.integers(1, len(target)))
    source = tuple(n if draw(st.booleans()) else 1 for n in target[-kept:])
    return movement_model("BROADCAST_TO", [source], [target], [list(target)], dtype=dtype)


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(mirror_pad_models(), min_size=CASES, max_size=CASES))
def test_mirror_pad_is_bit_exact(models):
    assert_cases_bit_exact(models)


# The kernel's zero-stride paths, in every example: one byte set across, a row doubled onto itself a number of
# times that is not a power of two, a row longer than 16 bytes.
REPEATED_ROWS = [((1, 3, 4, 1), (1, 3, 4, 6)), ((1, 2, 1, 5), (3, 2, 7, 5)), ((1, 1, 3, 9), (2, 5, 3, 9))]


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(st.one_of(reverse_models(), broadcast_models()), min_size=CASES, max_size=CASES))
def test_reverse_and_broadcast_to_are_bit_exact(models):
    repeated = [movement_model("BROADCAST_TO", [source], [target], [list(target)]) for source, target in REPEATED_ROWS]
    assert_cases_bit_exact([*models, *repeated])


def test_refusals_name_the_option():
    assert "exceed what mode REFLECT allows" in refusal(
        movement_model("MIRROR_PAD", [(2, 3)], [(4, 3)], [[[2, 0], [0, 0]]], {"mode": "REFLECT"}))
    assert "not contiguous" in refusal(movement_model("REVERSE_V2", [(2, 3, 4)], [(2, 3, 4)], [[0, 2]]))
