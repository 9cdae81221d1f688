"""Quantization parameters at the edges of TFLite's fixed-point rounding, for the 16x8 activations: real multipliers
whose Q31 form makes the doubling high multiply or the rounding shift land on exact halves (few mantissa bits, a
power of two: every odd product a tie), multipliers next to 2^30 and 2^31 - 1 (the largest float32 mantissa rounds
to 2^31 - 128), shifts at both ends of their range, and arbitrary float32 quotients (whose last bits differ between
float32 and double arithmetic). Inputs are every int16 value, so both extremes and every residue are reached."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

ALL_INT16 = np.arange(-32768, 32768, dtype=np.int16).reshape(1, -1)
Q15 = 2.0**-15

# 1: the multiplier 2^30; 1.5, 1.25, 1.75: two or three bits, ties on a quarter or an eighth of the inputs;
# 1 - 2^-24 and 1 + 2^-23: the float32 neighbours of a power of two, next to 2^31 - 1 and 2^30 once in Q31.
EDGE_MANTISSAS = (1.0, 1.5, 1.25, 1.75, 1.0 - 2.0**-24, 1.0 + 2.0**-23)


def f32(x: float) -> float:
    return float(np.float32(x))


def mantissas() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from(EDGE_MANTISSAS), st.floats(1.0, 2.0, exclude_max=True).map(f32))


def real_multipliers(min_exponent: int, max_exponent: int) -> st.SearchStrategy[float]:
    """mantissa * 2^exponent, exact in float32."""
    return st.builds(lambda m, e: f32(m * 2.0**e), mantissas(), st.integers(min_exponent, max_exponent))


def output_scales() -> st.SearchStrategy[float]:
    """A power of two (the quotient of the scales then exactly the multiplier drawn) or an arbitrary float32."""
    return st.one_of(st.integers(-20, 0).map(lambda e: 2.0**e), st.floats(1e-6, 1.0).map(f32))


@st.composite
def scale_pairs(draw: st.DrawFn, min_exponent: int = -31, max_exponent: int = 14) -> tuple[float, float]:
    """(input scale, output scale) whose quotient is an edge multiplier; both normal float32."""
    out_scale = draw(output_scales())
    in_scale = f32(out_scale * draw(real_multipliers(min_exponent, max_exponent)))
    return (in_scale, out_scale) if 1e-30 < in_scale < 1e30 else (out_scale, out_scale)


def alphas() -> st.SearchStrategy[float]:
    """LEAKY_RELU's alpha: 0, or an edge multiplier of either sign from 2^-20 to 2^4."""
    signed = st.builds(lambda m, s: s * m, real_multipliers(-20, 4), st.sampled_from([1.0, -1.0]))
    return st.one_of(st.just(0.0), signed)


def sigmoid_input_scales() -> st.SearchStrategy[float]:
    """LOGISTIC and TANH input scales: the power-of-two path's 2^-12 and 2^-11 and their float32 neighbours within
    and beyond its 1e-3 tolerance, other powers of two, and edge multipliers from 2^-28 to 2^2."""
    near = st.builds(lambda e, d: f32(2.0**e * (1.0 + d)), st.sampled_from([-12, -11]),
                     st.sampled_from([0.0, 2.0**-23, -2.0**-24, 6.9e-4, -6.9e-4, 7e-4, -7e-4, 1e-2]))
    return st.one_of(near, st.integers(-28, 2).map(lambda e: 2.0**e), real_multipliers(-28, 2))
