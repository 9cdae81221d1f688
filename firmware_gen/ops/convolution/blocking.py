"""The register-blocked filter layout of the portable fast kernels (runtime_c/include/fg/support/dot_s8.h), written at
generation time.

fg_dot2x4_s8 computes two output pixels x four output channels, two products per SMLAL: each tap packs the two
pixels' inputs into x0 + x1 * 2^22 and accumulates its products with a channel's weight into one 64-bit sum
S0 + S1 * 2^22. The low 22 bits hold S0 exactly while |S0| < 2^21, which holds when 128 * sum(|w|) < 2^21 over
the taps of one call (|x| <= 128). The weights are known here, so the window is split into calls where they
need it (`call_rows` filter rows per call, or pieces of `call_taps` taps of one row), usually not at all.
The filter is stored once, in the blocked order: groups of four output channels, tap by tap, the four channels'
weights side by side (a short last group padded with zero channels).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.base import ConstTable, TableRef

# The largest sum(|w|) over the taps of one fg_dot2x4_s8 call: 128 * 16383 < 2^21.
EXACT_WEIGHT_SUM = (1 << 21) // 128 - 1
GROUP = 4  # FG_BLOCK_CHANNELS
PAIRED_GROUP = 8  # FG_PAIRED_CHANNELS


def _call_rows(row_sums: np.ndarray) -> int:
    """The most filter rows per call (groups of rows from row 0) that stay exact; 0 when a single row does not."""
    rows = row_sums.shape[1]
    for per_call in range(rows, 0, -1):
        starts = range(0, rows, per_call)
        if all(row_sums[:, s:s + per_call].sum(axis=1).max() <= EXACT_WEIGHT_SUM for s in starts):
            return per_call
    return 0


def _call_taps(magnitudes: np.ndarray) -> int:
    """The most taps per call, pieces of each row from its first tap, that stay exact (127 always is)."""
    run = magnitudes.shape[2]
    prefix = np.concatenate([np.zeros(magnitudes.shape[:2] + (1,), np.int64), magnitudes.cumsum(axis=2)], axis=2)
    for taps in range(run, 0, -1):
        edges = np.minimum(np.arange(0, run + taps, taps), run)
        if (prefix[:, :, edges[1:]] - prefix[:, :, edges[:-1]]).max() <= EXACT_WEIGHT_SUM:
            return taps
    raise AssertionError("one tap is always exact")


def blocked_filter(taps: np.ndarray) -> tuple[ConstTable, tuple]:
    """`taps` [out_channels, rows, run]: the table `blocked_weights` and the fg_blocked_filter initializer."""
    channels, rows, run = taps.shape
    magnitudes = np.abs(np.asarray(taps, dtype=np.int64))
    call_rows = _call_rows(magnitudes.sum(axis=2))
    call_taps = run if call_rows else _call_taps(magnitudes)
    groups = -(-channels // GROUP)
    padded = np.zeros((groups * GROUP, rows * run), np.int8)
    padded[:channels] = np.asarray(taps, dtype=np.int8).reshape(channels, rows * run)
    layout = padded.reshape(groups, GROUP, rows * run).transpose(0, 2, 1)
    table = ConstTable("blocked_weights", "int8_t", np.ascontiguousarray(layout).ravel())
    return table, (TableRef(table.suffix), rows, run, max(call_rows, 1), call_taps, 0, "fg_blocked_window_s8")


def _paired_words(weights: np.ndarray, group: int) -> np.ndarray:
    """[channels, taps] -> per group of `group` output channels, tap by tap, the words w[c] + w[c + 1] * 2^22 of its
    channel pairs (a short last group padded with zero channels), as int32 in that order."""
    channels, taps = weights.shape
    groups = -(-channels // group)
    padded = np.zeros((groups * group, taps), np.int64)
    padded[:channels] = weights
    grouped = padded.reshape(groups, group // 2, 2, taps)
    words = grouped[:, :, 0, :] + grouped[:, :, 1, :] * (1 << 22)  # [group, pair, tap]
    return np.ascontiguousarray(words.transpose(0, 2, 1)).ravel().astype(np.int32)


def paired_filter(taps: np.ndarray) -> tuple[ConstTable, tuple]:
    """The wide layout of blocked_filter's filter (fg_dot1x8_paired_s8, twice the bytes): the table `paired_filter`
    and the fg_blocked_filter initializer (same calls, blocked weights NULL)."""
    channels, rows, run = taps.shape
    _, blocked = blocked_filter(taps)
    words = _paired_words(np.asarray(taps, dtype=np.int64).reshape(channels, rows * run), PAIRED_GROUP)
    table = ConstTable("paired_filter", "int32_t", words)
    return table, (0, *blocked[1:5], TableRef(table.suffix), "fg_paired_window_s8")


def paired_weights(weights: np.ndarray) -> ConstTable:
    """[out_depth, depth] weights as fg_dot1x4_paired_s8 reads them: per group of four output channels, tap by tap,
    the words w[c] + w[c + 1] * 2^22 for channels (0, 1) and (2, 3) (a short last group padded with zeros)."""
    return ConstTable("paired_weights", "int32_t", _paired_words(np.asarray(weights, dtype=np.int64), GROUP))
