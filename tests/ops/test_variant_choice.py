"""ops/variant_choice.py's chooser, on candidate records alone (it never sees an operator), and the cost table of
ops/variant_cost.py that ranks them."""

from __future__ import annotations

import pytest

from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variant_choice import Candidate, choose
from firmware_gen.ops.variant_cost import PER_MAC_AND_OUTPUT, estimated_cycles
from firmware_gen.ops.variants import VARIANTS


def _candidate(name: str, bytes_: int, cycles: float, code: tuple[str, int] = ("", 0)) -> Candidate:
    return Candidate(KernelCall(name, "p", {}, [], []), bytes_, cycles, code)


def _names(chosen: dict[int, Candidate]) -> dict[int, str]:
    return {index: candidate.call.function for index, candidate in chosen.items()}


LAYERS = {
    0: [_candidate("compact0", 100, 1000.0), _candidate("wide0", 200, 600.0, ("paired", 50))],  # 400 for 150 B
    1: [_candidate("compact1", 100, 1000.0), _candidate("wide1", 200, 800.0, ("paired", 50))],  # 200 for 150 B
    2: [_candidate("slow2", 80, 500.0), _candidate("fast2", 80, 300.0)],  # faster for nothing
}


def test_no_budget_takes_each_layers_fastest():
    assert _names(choose(LAYERS, None)) == {0: "wide0", 1: "wide1", 2: "fast2"}


def test_no_room_keeps_the_fewest_bytes_and_the_free_gains():
    assert _names(choose(LAYERS, 280)) == {0: "compact0", 1: "compact1", 2: "fast2"}


def test_the_most_cycles_per_byte_first_and_a_kernels_code_counted_once():
    # 280 B of constants; 150 B more (100 + the family's 50 B of code) buys one wide layer: the one saving more.
    assert _names(choose(LAYERS, 280 + 150)) == {0: "wide0", 1: "compact1", 2: "fast2"}
    # The second needs only its 100 B: the code is linked already.
    assert _names(choose(LAYERS, 280 + 150 + 99)) == {0: "wide0", 1: "compact1", 2: "fast2"}
    assert _names(choose(LAYERS, 280 + 150 + 100)) == {0: "wide0", 1: "wide1", 2: "fast2"}


def test_a_layer_moves_on_to_a_faster_candidate_when_room_is_left():
    layers = {0: [_candidate("a", 10, 900.0), _candidate("b", 20, 500.0), _candidate("c", 60, 450.0)]}
    assert _names(choose(layers, 20)) == {0: "b"}
    assert _names(choose(layers, 59)) == {0: "b"}
    assert _names(choose(layers, 60)) == {0: "c"}


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v.function in PER_MAC_AND_OUTPUT
                                     and v.replaces in PER_MAC_AND_OUTPUT], ids=lambda v: v.function)
def test_the_cost_table_ranks_each_measured_variant_below_its_portable_function(variant):
    """Over a layer of 10,000 MACs and 1,000 outputs (a 3x3 window's proportions)."""
    portable = KernelCall(variant.replaces, "p", {}, [], [])
    call = KernelCall(variant.function, "p", {}, [], [])
    assert estimated_cycles(call, 10_000, 1_000, portable) < estimated_cycles(portable, 10_000, 1_000, portable)


def test_an_unmeasured_variant_counts_as_faster_than_its_portable_call():
    portable = KernelCall("fg_not_in_the_table_s8", "p", {}, [], [])
    variant = KernelCall("fg_not_in_the_table_dsp", "p", {}, [], [])
    assert estimated_cycles(variant, 1000, 100, portable) < estimated_cycles(portable, 1000, 100, portable)
