"""RSQRT on int16 (16x8 models): bit-exact against TFLM on every non-negative int16 input (TFLM fails the invocation
on a negative one) over scales at the edges of the rounding; the int8 table form is tested in test_lookup.py."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from rounding_cases import scale_pairs
from test_activations_16x8 import side_by_side_16x8
from validated import assert_bit_exact

NON_NEGATIVE_INT16 = np.arange(0, 32768, dtype=np.int16).reshape(1, -1)


@settings(max_examples=3, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(scale_pairs(-12, 12), min_size=2, max_size=2))
@example([(0.01, 0.01), (2.0**-10, 2.0**-4)])
def test_rsqrt_16x8_is_bit_exact_on_every_non_negative_input(pairs):
    cases = [("RSQRT", in_scale, out_scale, {}) for in_scale, out_scale in pairs]
    model = side_by_side_16x8(NON_NEGATIVE_INT16.shape, cases)
    assert_bit_exact(model, [NON_NEGATIVE_INT16] * len({in_scale for in_scale, _ in pairs}))
