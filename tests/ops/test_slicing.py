"""STRIDED_SLICE (begin, end and shrink_axis masks, negative indices and strides) and SLICE of int8: a strided
gather with an offset, bit-exact against TFLM. TFLM ignores ellipsis_mask, new_axis_mask and offset: refused."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import CASES, FEW_EXAMPLES, assert_cases_bit_exact, movement_model
from validated import assert_bit_exact, refusal, shapes


def _axis_count(size, begin, end, stride, begin_masked, end_masked, offset):
    """The element count TFLM gives one axis (a model whose output shape disagrees is refused by TFLM)."""
    def clamp(v):
        return min(max(v, 0), size) if stride > 0 else min(max(v, -1), size - 1)
    start = 0 if begin_masked and stride > 0 else size - 1 if begin_masked else clamp(begin + size if begin < 0
                                                                                       else begin)
    stop = end + start if offset else end
    stop = (size if stride > 0 else -1) if end_masked else clamp(stop + size if stop < 0 else stop)
    return max(0, math.ceil((stop - start) / stride))


@st.composite
def strided_cases(draw):
    shape = draw(shapes(1, 4, max_side=6))
    begin, end, strides, out_shape = [], [], [], []
    masks = {"begin_mask": 0, "end_mask": 0, "shrink_axis_mask": 0}
    offset = False
    for axis, size in enumerate(shape):
        stride = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        b, e = draw(st.integers(-size, size)), draw(st.integers(-size, size))
        bm, em = draw(st.booleans()), draw(st.booleans())
        shrink = draw(st.integers(0, 4)) == 0 and -size <= b < size and stride > 0
        if shrink:
            bm = em = False
            masks["shrink_axis_mask"] |= 1 << axis
        masks["begin_mask"] |= bm << axis
        masks["end_mask"] |= em << axis
        count = _axis_count(size, b, e, stride, bm, em, offset)
        if not shrink:
            if count == 0:
                bm, em, stride = True, True, 1  # keep the slice non-empty
                masks["begin_mask"] |= 1 << axis
                masks["end_mask"] |= 1 << axis
                count = size
            out_shape.append(count)
        begin.append(b)
        end.append(e)
        strides.append(stride)
    return movement_model("STRIDED_SLICE", [shape], [out_shape], [begin, end, strides], masks)


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(strided_cases(), min_size=CASES, max_size=CASES), seed=st.integers(0, 99))
def test_strided_slice_is_bit_exact(models, seed):
    assert_cases_bit_exact(models, seed=seed)


def test_every_mask_with_negative_strides_is_bit_exact():
    # axis 0 shrinks to index -1, axis 1 runs backwards from the end (begin_mask), axis 2 stops at end_mask.
    model = movement_model("STRIDED_SLICE", [(3, 5, 4)], [(2, 2)], [[-1, 0, 1], [0, 0, 0], [1, -2, 2]],
                           {"shrink_axis_mask": 1, "begin_mask": 2, "end_mask": 4})
    assert_bit_exact(model)


@st.composite
def slice_models(draw):
    shape = draw(shapes(1, 4, max_side=6))
    begin = [draw(st.integers(0, n - 1)) for n in shape]
    size = [draw(st.sampled_from([-1, n - b])) if draw(st.booleans()) else draw(st.integers(1, n - b))
            for n, b in zip(shape, begin, strict=True)]
    out = [n - b if s == -1 else s for n, b, s in zip(shape, begin, size, strict=True)]
    return movement_model("SLICE", [shape], [out], [begin, size])


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(slice_models(), min_size=CASES, max_size=CASES))
def test_slice_is_bit_exact(models):
    assert_cases_bit_exact(models)


def test_ellipsis_and_new_axis_masks_are_refused():
    model = movement_model("STRIDED_SLICE", [(2, 3)], [(2, 3)], [[0, 0], [2, 3], [1, 1]], {"ellipsis_mask": 1})
    assert "option ellipsis_mask = 1" in refusal(model)
    model = movement_model("STRIDED_SLICE", [(2, 3)], [(1, 2, 3)], [[0, 0], [2, 3], [1, 1]], {"new_axis_mask": 1})
    assert "option new_axis_mask = 1" in refusal(model)
    model = movement_model("STRIDED_SLICE", [(4,)], [(2,)], [[1], [2], [1]], {"offset": True})
    assert "option offset = True" in refusal(model)


def test_a_zero_stride_is_refused():
    model = movement_model("STRIDED_SLICE", [(2, 3)], [(2, 3)], [[0, 0], [2, 3], [1, 0]])
    assert "contain 0" in refusal(model)
