"""MIRROR_PAD (REFLECT, SYMMETRIC), REVERSE_V2 and BROADCAST_TO of int8, bit-exact against TFLM."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import FEW_EXAMPLES, movement_model
from validated import assert_bit_exact, refusal, shapes


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(shape=shapes(1, 4, max_side=4), mode=st.sampled_from(["REFLECT", "SYMMETRIC"]), data=st.data())
def test_mirror_pad_is_bit_exact(shape, mode, data):
    shift = 1 if mode == "REFLECT" else 0
    paddings = [[data.draw(st.integers(0, n - shift)) for _ in range(2)] for n in shape]
    out = [n + a + b for n, (a, b) in zip(shape, paddings, strict=True)]
    assert_bit_exact(movement_model("MIRROR_PAD", [shape], [out], [paddings], {"mode": mode}))


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(shape=shapes(1, 5, max_side=4), data=st.data())
def test_reverse_is_bit_exact(shape, data):
    first = data.draw(st.integers(0, len(shape) - 1))
    last = data.draw(st.integers(first, len(shape) - 1))  # TFLM reverses contiguous axes only
    assert_bit_exact(movement_model("REVERSE_V2", [shape], [shape], [list(range(first, last + 1))]))


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(target=shapes(1, 5, max_side=4), data=st.data())
def test_broadcast_to_is_bit_exact(target, data):
    kept = data.draw(st.integers(1, len(target)))
    source = tuple(n if data.draw(st.booleans()) else 1 for n in target[-kept:])
    assert_bit_exact(movement_model("BROADCAST_TO", [source], [target], [list(target)]))


def test_refusals_name_the_option():
    assert "exceed what mode REFLECT allows" in refusal(
        movement_model("MIRROR_PAD", [(2, 3)], [(4, 3)], [[[2, 0], [0, 0]]], {"mode": "REFLECT"}))
    assert "not contiguous" in refusal(movement_model("REVERSE_V2", [(2, 3, 4)], [(2, 3, 4)], [[0, 2]]))
