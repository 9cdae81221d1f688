"""runtime_c's fixed-point helpers against TFLite's definitions, written out with Python integers in
ops/support/fixedpoint.py (which fills generation-time tables with them): random and edge inputs, compiled with the
sanitizers (the helpers use shifts where TFLite divides)."""

from __future__ import annotations

import numpy as np
from c_harness import run_c_harness

from firmware_gen.ops.support.fixedpoint import INT32_MAX, INT32_MIN, multiply_by_quantized_multiplier
from firmware_gen.ops.support.fixedpoint import saturating_rounding_doubling_high_mul as srdhm

HARNESS = r"""
#include <stdio.h>
#include "fg/support/fixedpoint.h"
int main(void) {
    long long x, m, s;
    while (scanf("%lld %lld %lld", &x, &m, &s) == 3) {
        printf("%ld %ld\n", (long)fg_saturating_rounding_doubling_high_mul((int32_t)x, (int32_t)m),
               (long)fg_multiply_by_quantized_multiplier((int32_t)x, (int32_t)m, (int)s));
    }
    return 0;
}
"""


def _cases(rng: np.random.Generator) -> list[tuple[int, int, int]]:
    edges = [INT32_MIN, INT32_MIN + 1, -(1 << 30), -1, 0, 1, 1 << 30, INT32_MAX - 1, INT32_MAX]
    cases = [(a, b, s) for a in edges for b in edges for s in (-31, -8, -1, 0, 1, 3)]
    count = 40_000
    accumulators = np.concatenate([rng.integers(INT32_MIN, INT32_MAX, count // 2, endpoint=True),
                                   rng.integers(-(1 << 20), 1 << 20, count // 2)])
    multipliers = rng.integers(1 << 30, INT32_MAX, count, endpoint=True)
    multipliers[::7] = rng.integers(INT32_MIN, INT32_MAX, len(multipliers[::7]), endpoint=True)
    shifts = rng.integers(-31, 8, count)
    cases += [(int(a), int(m), int(s)) for a, m, s in zip(accumulators, multipliers, shifts, strict=True)]
    # Exact ties of the doubling high multiply (a * 2^30 with a odd) and of the rounding divide.
    odd = rng.integers(-(1 << 20), 1 << 20, 2000) * 2 + 1
    cases += [(int(a), 1 << 30, int(s)) for a, s in zip(odd, rng.integers(-12, 1, odd.size), strict=True)]
    return cases


def test_fixed_point_helpers_match_tflite(tmp_path):
    cases = _cases(np.random.default_rng(0))
    lines = run_c_harness(tmp_path, HARNESS, "".join(f"{a} {m} {s}\n" for a, m, s in cases))
    got = [tuple(map(int, line.split())) for line in lines]
    assert len(got) == len(cases)
    for (a, m, s), (high_mul, scaled) in zip(cases, got, strict=True):
        assert high_mul == srdhm(a, m), (a, m)
        assert scaled == multiply_by_quantized_multiplier(a, m, s), (a, m, s)


SINGLE_ROUNDING_HARNESS = r"""
#include <stdio.h>
#include "fg/support/single_rounding.h"
int main(void) {
    long long x, m, s;
    while (scanf("%lld %lld %lld", &x, &m, &s) == 3) {
        const fg_single_rounding stage = fg_single_rounding_of((int32_t)m, (int32_t)s);
        printf("%ld\n", (long)fg_single_rounding_apply((int32_t)x, &stage));
    }
    return 0;
}
"""


def test_single_rounding_matches_tflite_in_its_range(tmp_path):
    """fg/support/single_rounding.h (ADD's and SUB's rescales) equals MultiplyByQuantizedMultiplierSmallerThanOneExp for
    accumulators in [-2^30, 2^30), every right shift, ties included."""
    rng = np.random.default_rng(1)
    edges = [-(1 << 30), -(1 << 29), -32768 << 15, -1, 0, 1, 32767 << 15, (1 << 30) - 1]
    cases = [(a, m, s) for a in edges for m in (1 << 30, INT32_MAX) for s in range(-31, 1)]
    count = 20_000
    accumulators = np.concatenate([rng.integers(-(1 << 30), 1 << 30, count // 2),
                                   rng.integers(-32768, 32768, count // 2) << 15])
    multipliers = rng.integers(1 << 30, INT32_MAX, count, endpoint=True)
    multipliers[::5] = 1 << 30  # exact ties of the high multiply and of the division
    shifts = rng.integers(-31, 1, count)
    cases += [(int(a), int(m), int(s)) for a, m, s in zip(accumulators, multipliers, shifts, strict=True)]
    lines = run_c_harness(tmp_path, SINGLE_ROUNDING_HARNESS, "".join(f"{a} {m} {s}\n" for a, m, s in cases))
    got = [int(line) for line in lines]
    assert got == [multiply_by_quantized_multiplier(a, m, s) for a, m, s in cases]


HALVES_HARNESS = "#define FG_HIGH_MUL_HALVES 1 /* the Armv6-M form, from 16-bit halves, also on the host */\n" + HARNESS


def test_high_multiply_from_halves_matches_tflite(tmp_path):
    """Armv6-M's rounding doubling high multiply without a 64-bit product (fg_high_mul_halves: four 16 x 16
    products), on the same random, edge and tie cases."""
    cases = _cases(np.random.default_rng(1))
    lines = run_c_harness(tmp_path, HALVES_HARNESS, "".join(f"{a} {m} {s}\n" for a, m, s in cases))
    got = [tuple(map(int, line.split())) for line in lines]
    assert len(got) == len(cases)
    for (a, m, s), (high_mul, scaled) in zip(cases, got, strict=True):
        assert high_mul == srdhm(a, m), (a, m)
        assert scaled == multiply_by_quantized_multiplier(a, m, s), (a, m, s)
