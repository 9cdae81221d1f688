"""Planning algorithms beyond the greedy ones: hill climbing, the exact solver, overlap allowances."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_gen.planner import ALGORITHMS, exact, hill_climb
from firmware_gen.planner.buffers import (
    OUTPUT_AFTER_INPUT,
    OUTPUT_BEFORE_INPUT,
    BufferInfo,
    OverlapAllowance,
    lower_bound,
    pool_bytes,
)


def chain(sizes: Sequence[int], alignment: int = 1) -> list[BufferInfo]:
    return [BufferInfo(i, size, alignment, max(i - 1, 0), i) for i, size in enumerate(sizes)]


def permitted(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance], offsets: dict) -> bool:
    """Written apart from the planner: every pair live together is disjoint or overlaps as an allowance permits
    (on footprints, the planners' unit)."""
    for a, b in itertools.combinations(buffers, 2):
        if not (a.first <= b.last and b.first <= a.last) or 0 in (a.footprint, b.footprint):
            continue
        if offsets[a.id] % a.alignment or offsets[b.id] % b.alignment:
            return False
        a_start, b_start = offsets[a.id], offsets[b.id]
        if a_start + a.footprint <= b_start or b_start + b.footprint <= a_start:
            continue
        ok = False
        for o in overlaps:
            for x, y in ((a, b), (b, a)):
                if (o.input, o.output) == (x.id, y.id):
                    x_start, y_start = offsets[x.id], offsets[y.id]
                    if o.kind == OUTPUT_BEFORE_INPUT:
                        ok |= y_start + y.footprint <= x_start + o.bytes
                    else:
                        ok |= y_start >= x_start + x.footprint - o.bytes
        if not ok:
            return False
    return True


def brute_force_pool(buffers: Sequence[BufferInfo], overlaps: Sequence[OverlapAllowance]) -> int:
    """The smallest pool over every aligned placement (tiny cases only)."""
    limit = sum(b.footprint for b in buffers)
    best = limit
    ranges = [range(0, limit - b.footprint + 1, b.alignment) for b in buffers]
    for starts in itertools.product(*ranges):
        offsets = {b.id: s for b, s in zip(buffers, starts, strict=True)}
        pool = pool_bytes(buffers, offsets)
        if pool < best and permitted(buffers, overlaps, offsets):
            best = pool
    return best


tiny_cases = st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from([1, 2]), st.integers(0, 3), st.integers(0, 2)),
             min_size=n, max_size=n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                       st.sampled_from([OUTPUT_BEFORE_INPUT, OUTPUT_AFTER_INPUT]), st.integers(0, 6)), max_size=2)))


def build(case: tuple) -> tuple[list[BufferInfo], list[OverlapAllowance]]:
    specs, allowances = case
    buffers = [BufferInfo(i, size, alignment, first, first + length)
               for i, (size, alignment, first, length) in enumerate(specs)]
    return buffers, [OverlapAllowance(x, y, kind, n) for x, y, kind, n in allowances if x != y]


# --- the algorithms, without overlap --------------------------------------------------------------------------------


def test_hill_climb_is_deterministic_and_not_worse_than_greedy() -> None:
    buffers = chain([2, 5, 1, 3, 4, 7, 2, 6, 1, 8])
    first, second = hill_climb.plan(buffers), hill_climb.plan(buffers)
    assert first == second
    greedy = min(pool_bytes(buffers, ALGORITHMS[name](buffers)) for name in ("greedy_by_size", "greedy_by_conflicts"))
    assert pool_bytes(buffers, first) <= greedy


def test_exact_proves_the_chain_optimum() -> None:
    buffers = chain([2, 5, 1, 3, 4])  # greedy needs 8, the optimum is the lower bound 7
    result = exact.solve(buffers)
    assert (result.pool_bytes, result.proven_optimal, result.lower_bound) == (7, True, 7)


def test_exact_proves_more_than_the_lower_bound() -> None:
    # Three buffers pairwise live together except a-c: lower bound 2+2 = 4 at each step, but b (size 2) is live
    # with a and c, which cannot share bytes with it; a and c are live apart but both at offsets clashing with b...
    # The simplest such case: sizes that cannot tile. a=3 [0,1], b=3 [1,2], c=3 [2,3], d=2 [1,1]: step 1 holds
    # a, b, d = 8; the optimum is 8 too. Use an odd interleaving instead, checked against brute force.
    buffers = [BufferInfo("a", 2, 1, 0, 1), BufferInfo("b", 3, 1, 1, 2), BufferInfo("c", 2, 1, 2, 3),
               BufferInfo("d", 3, 1, 3, 4), BufferInfo("e", 2, 1, 0, 4)]
    result = exact.solve(buffers)
    assert result.proven_optimal
    assert result.pool_bytes == brute_force_pool(buffers, [])
    assert result.lower_bound == result.pool_bytes >= lower_bound(buffers)


def test_exact_reports_an_unproven_plan_when_the_budget_runs_out() -> None:
    buffers = [BufferInfo(i, 16 + 16 * (i % 5), 16, i % 7, i % 7 + 3) for i in range(30)]
    result = exact.solve(buffers, node_budget=1)
    assert not result.proven_optimal or result.pool_bytes == result.lower_bound
    assert lower_bound(buffers) <= result.lower_bound <= result.pool_bytes


@settings(max_examples=40, deadline=None)
@given(tiny_cases)
def test_exact_matches_brute_force(case: tuple) -> None:
    buffers, overlaps = build(case)
    result = exact.solve(buffers, overlaps)
    assert result.proven_optimal
    assert permitted(buffers, overlaps, result.offsets)
    assert result.pool_bytes == brute_force_pool(buffers, overlaps)


@settings(max_examples=40, deadline=None)
@given(tiny_cases)
def test_every_algorithm_honours_overlap_allowances(case: tuple) -> None:
    buffers, overlaps = build(case)
    optimum = exact.solve(buffers, overlaps).pool_bytes
    for name, algorithm in ALGORITHMS.items():
        offsets = algorithm(buffers, overlaps)
        assert permitted(buffers, overlaps, offsets), name
        assert pool_bytes(buffers, offsets) >= optimum, name


# --- overlap allowances ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALGORITHMS)
def test_in_place_elementwise_chain(name: str) -> None:
    buffers = chain([64, 64, 64, 64], alignment=16)
    overlaps = [OverlapAllowance(i, i + 1, OUTPUT_BEFORE_INPUT, 64) for i in range(3)]
    offsets = ALGORITHMS[name](buffers, overlaps)
    assert permitted(buffers, overlaps, offsets)
    assert pool_bytes(buffers, offsets) == 64


@pytest.mark.parametrize("kind", [OUTPUT_BEFORE_INPUT, OUTPUT_AFTER_INPUT])
def test_allowance_limits_the_overlap(kind: str) -> None:
    # An output of 100 may overlap an input of 100 by at most 40 bytes: the pool needs 160.
    buffers = [BufferInfo("x", 100, 1, 0, 0), BufferInfo("y", 100, 1, 0, 1)]
    overlaps = [OverlapAllowance("x", "y", kind, 40 if kind == OUTPUT_BEFORE_INPUT else 40)]
    for name, algorithm in ALGORITHMS.items():
        offsets = algorithm(buffers, overlaps)
        assert permitted(buffers, overlaps, offsets), name
        if name in ("branch_and_bound", "exact"):
            assert pool_bytes(buffers, offsets) == 160, name
    x, y = (offsets["x"], offsets["y"])
    assert (y < x) if kind == OUTPUT_BEFORE_INPUT else (y > x)
