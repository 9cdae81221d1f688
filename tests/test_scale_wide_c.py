"""fg_scale_wide_s16 (the 16x8 output stage's rescale, 32-bit where the accumulator fits int32 and the total shift
is in [16, 32]) against TFLite's 64-bit MultiplyByQuantizedMultiplier written out with Python integers: random and
edge inputs on both sides of its conditions, compiled with the sanitizers."""

from __future__ import annotations

import numpy as np
from c_harness import run_c_harness

HARNESS = r"""
#include <stdio.h>
#include "fg/support/requantize.h"
int main(void) {
    long long x, m, s;
    while (scanf("%lld %lld %lld", &x, &m, &s) == 3) {
        printf("%ld\n", (long)fg_scale_wide_s16((int64_t)x, (int32_t)m, (int)s));
    }
    return 0;
}
"""


def _reference(x: int, multiplier: int, shift: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier(int64_t, int32_t, int): the multiplier rounded to 16 bits, one
    rounding shift, the result cast to int32."""
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    total = 15 - shift
    result = (x * reduced + (1 << (total - 1))) >> total
    return (result + (1 << 31)) % (1 << 32) - (1 << 31)


def _cases(rng: np.random.Generator) -> list[tuple[int, int, int]]:
    edges = [-(1 << 31), -(1 << 31) + 1, -65536, -65535, -1, 0, 1, 0xFFFF, 65536, (1 << 31) - 1, 1 << 31,
             -(1 << 31) - 1, 1 << 40, -(1 << 40)]
    multipliers = [1 << 30, (1 << 30) + (1 << 15) - 1, 0x7FFEFFFF, 0x7FFF0000, (1 << 31) - 1]
    shifts = [14, 0, -1, -16, -17, -20, -27]  # total shifts 1, 15, 16, 31, 32, 35, 42
    cases = [(x, m, s) for x in edges for m in multipliers for s in shifts]
    count = 20_000
    xs = np.concatenate([rng.integers(-(1 << 31), 1 << 31, count // 2),
                         rng.integers(-(1 << 36), 1 << 36, count // 2)])
    ms = rng.integers(1 << 30, 1 << 31, count)
    ss = rng.integers(-27, 15, count)
    cases += [(int(x), int(m), int(s)) for x, m, s in zip(xs, ms, ss, strict=True)]
    return cases


def test_scale_wide_matches_the_64_bit_rescale(tmp_path):
    cases = _cases(np.random.default_rng(0))
    lines = run_c_harness(tmp_path, HARNESS, "".join(f"{x} {m} {s}\n" for x, m, s in cases))
    assert [int(line) for line in lines] == [_reference(x, m, s) for x, m, s in cases]
