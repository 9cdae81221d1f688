"""Random cases with a bounded activation (RELU6, RELU_N1_TO_1) whose clamp spans enough codes to check anything.

The property tests (tests/ops/weighted.py, tests/target/test_variants_*.py) draw an output scale that spreads the
accumulators over the int8 range. Under RELU6 or RELU_N1_TO_1 that puts the activation's bound 0-6 codes from the zero
point, and the outputs collapse onto the clamp: measured on test_variants_dsp's cases, a median of 3 (RELU6) and 1
(RELU_N1_TO_1) distinct output values against 44 without an activation, so a quarter of the cases checked none of
the arithmetic. Such a case is rescaled instead: every scale times the factor that puts the bound at 100 codes, so
its integer multipliers stay as drawn.
"""

from __future__ import annotations

BOUNDS = {"RELU6": 6.0, "RELU_N1_TO_1": 1.0}  # each bounded activation's real bound
CODES_PER_BOUND = 100


def bounded_scales(activation: str, scales: list[float], output_scale: float) -> tuple[list[float], float]:
    """(scales, output_scale) times the factor that puts the activation's bound CODES_PER_BOUND codes from the zero
    point (ratios, and so the requantization's multipliers, unchanged); as they are for an unbounded activation."""
    if activation not in BOUNDS:
        return scales, output_scale
    factor = BOUNDS[activation] / CODES_PER_BOUND / output_scale
    return [s * factor for s in scales], output_scale * factor
