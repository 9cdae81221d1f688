"""The Thumb-1 output stage of the Armv6-M variants: its per-channel constants (fg_armv6m_channel in
runtime_c/include/fg/isa/armv6m.h), worked out at generation time.

TFLite's output stage of an accumulator a (multiplier m in [2^30, 2^31), right shift r >= 1) rounds twice: the high
product h = floor(a m / 2^31 + 1/2) (its nudge makes every tie go up), then h / 2^r rounded half away from zero. The
two compose into one floor: for h >= 0 the output less the zero point is floor((a m + 2^30 + 2^(30+r)) / 2^(31+r)),
for h < 0 the same with 2^31 taken off the sum (h < 0 exactly when a < 0, but for a = -1 and m = 2^30, where both
forms agree). The kernels form that floor from four 16 x 16 products of a's and m's halves, a = ah 2^16 + al:

    u = (al ml >> 16) + ah ml + al mh + k - 2^15 [a < 0]      k = 2^14 - 2^22 (+ 2^15 when r = 1)
    out = (ah mh + (u >> 16) + c) >> (r - 1)                   c = 2^(r-2) (0 when r = 1) + 2^6 + zero 2^(r-1)

exact when |a| < 2^21 (then u stays within int32: the 2^22 taken off in k keeps it below 2^31, c's 2^6 puts it
back; the zero point, a multiple of 2^(r-1) there, passes the shift whole). Accumulators outside the unsaturated
range leave early with the clamp's end, so a channel is served when that range, cut to the accumulators its weights
can reach, lies within +-2^21 (and r <= 23, for c to stay within int32).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import call_table
from firmware_gen.ops.variants.dsp import tflite_outputs

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
SERVED_RANGE = 1 << 21  # |a| below this in the unsaturated range
POSITIVE = 2  # FG_ARMV6M_POSITIVE: served, and no unsaturated sum negative (the output stage without the sign's term)


def _first_above(call: KernelCall, multipliers: np.ndarray, shifts: np.ndarray, level: int) -> np.ndarray:
    """Per channel, the smallest int32 accumulator whose output (TFLite's arithmetic) exceeds `level`; INT32_MAX + 1
    where none does. The output rises with the accumulator (multipliers >= 0), so a bisection finds it."""
    low = np.full(multipliers.shape, INT32_MIN, np.int64)
    high = np.full(multipliers.shape, 1 << 31, np.int64)  # exclusive
    while np.any(low < high):
        middle = (low + high) // 2
        above = tflite_outputs(np.minimum(middle, INT32_MAX), multipliers, shifts, call) > level
        above &= middle < (1 << 31)
        high = np.where(above & (low < high), middle, high)
        low = np.where(~above & (low < high), middle + 1, low)
    return low


def saturation_thresholds(call: KernelCall, multipliers: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """[channels, 2]: accumulators below the first give the clamp's low end, above the second its high end (the
    output stage's early exits); INT32_MIN / INT32_MAX where there is no such accumulator."""
    low_end, high_end = call.params["requant"][2:4]
    below = np.minimum(_first_above(call, multipliers, shifts, low_end), INT32_MAX)
    above = _first_above(call, multipliers, shifts, high_end - 1) - 1  # the last accumulator below the high end
    return np.stack([below, np.clip(above, INT32_MIN, INT32_MAX)], axis=1)


def accumulator_reach(taps: np.ndarray, bias: np.ndarray, input_low: int = -128, input_high: int = 127) -> np.ndarray:
    """[channels, 2]: the least and greatest accumulator bias[c] + sum_k x_k taps[c, k] over inputs x_k in
    [input_low, input_high]; the whole int32 range where the sum could wrap."""
    weights = taps.astype(np.int64)
    low = bias.astype(np.int64) + np.minimum(weights * input_low, weights * input_high).sum(axis=1)
    high = bias.astype(np.int64) + np.maximum(weights * input_low, weights * input_high).sum(axis=1)
    wraps = (low < INT32_MIN) | (high > INT32_MAX)
    return np.stack([np.where(wraps, INT32_MIN, low), np.where(wraps, INT32_MAX, high)], axis=1)


def _constant_outputs(call: KernelCall, multipliers: np.ndarray, shifts: np.ndarray,
                      reach: np.ndarray | None) -> np.ndarray:
    """Per channel, its one output where every accumulator it can reach gives the same (a filter of zeros, a
    multiplier of zero); INT32_MIN where they differ."""
    if reach is None:
        return np.full(multipliers.shape, INT32_MIN, np.int64)
    low, high = (tflite_outputs(reach[:, i], multipliers, np.minimum(shifts, 0), call) for i in (0, 1))
    return np.where((low == high) & (shifts <= 0), low, INT32_MIN)


def layer_constants(call: KernelCall, channels: int, reach: np.ndarray | None = None) -> np.ndarray:
    """fg_armv6m_layer then one fg_armv6m_channel per output channel, int32: below, above (the early exits, cut to
    `reach`, the accumulators the channel can reach), ml, mh, k, c, r - 1 (the module's docstring). A channel whose
    every reachable accumulator gives one output gets it from k and c alone (ml, mh and the shift 0, no exits). A
    channel the fast stage does not serve (a left shift, a multiplier below 2^30, an unsaturated range beyond
    +-2^21) has the shift -1: the kernels run TFLite's arithmetic for it. The layer is served (1) when every channel
    is, POSITIVE when besides every unsaturated range is non-negative (or the channel's output one constant)."""
    multipliers = np.broadcast_to(call_table(call, "multipliers").astype(np.int64), (channels,))
    right = -np.broadcast_to(call_table(call, "shifts").astype(np.int64), (channels,))
    thresholds = saturation_thresholds(call, np.maximum(multipliers, 0), -right)
    if reach is not None:
        thresholds = np.stack([np.maximum(thresholds[:, 0], reach[:, 0]), np.minimum(thresholds[:, 1], reach[:, 1])],
                              axis=1)
    below, above = thresholds.T
    _, zero, low, high = call.params["requant"][:4]
    constant = _constant_outputs(call, multipliers, -right, reach)
    served = (right >= 1) & (right <= 23) & (multipliers >= 1 << 30)
    served &= (below >= -SERVED_RANGE) & (above < SERVED_RANGE)
    right = np.where(served, right, 1)
    k = (1 << 14) - (1 << 22) + np.where(right == 1, 1 << 15, 0)
    c = np.where(right >= 2, 1 << np.maximum(right - 2, 0), 0) + 64 + zero * (1 << (right - 1))
    rows = np.stack([below, above, multipliers & 0xFFFF, multipliers >> 16, k, c, right - 1], axis=1)
    rows[~served, 2:] = [0, 0, 0, 0, -1]  # the shift -1: TFLite's arithmetic for this channel
    fixed = constant != INT32_MIN
    rows[fixed] = np.stack([np.full(channels, INT32_MIN), np.full(channels, INT32_MAX), 0 * constant,
                            0 * constant, np.full(channels, (1 << 14) - (1 << 22)), 64 + constant,
                            0 * constant], axis=1)[fixed]
    flag = POSITIVE if np.all(fixed | (served & (below >= 0))) else int(np.all(served | fixed))
    return np.concatenate([[flag, zero, low, high], rows.ravel()]).astype(np.int32)
