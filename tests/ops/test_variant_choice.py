"""ops/variant_choice.py's chooser, on candidate records alone (it never sees an operator), and the cost table of
ops/variant_cost.py that ranks them."""

from __future__ import annotations

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import ARMV7M, DSP, Isa
from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS
from firmware_gen.ops import _lower_one, fold
from firmware_gen.ops import macs as op_macs
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variant_choice import Candidate, choose, layer_candidates
from firmware_gen.ops.variant_cost import estimated_cycles


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


def test_every_candidate_of_a_layer_is_estimated_below_its_portable_call():
    """The cost table keeps each layer's candidates in the order the kernels were designed in: over a real graph on
    Armv7-M with room for every paired layout, and with DSP, every candidate other than the portable call is
    estimated faster than it."""
    graph = fold(read_model(SYNTHETIC_MODELS["small_mobilenet_v2"]()))
    macs = op_macs(graph)
    for features in ({ARMV7M}, {ARMV7M, DSP}):
        isa = Isa(frozenset(features), flash_bytes=1 << 24)
        for op in graph.operators:
            if op.index not in macs or not macs[op.index]:
                continue
            portable = _lower_one(graph, op)
            outputs = graph.tensors[portable.outputs[0]].num_elements
            base = estimated_cycles(portable, macs[op.index], outputs, portable)
            candidates = layer_candidates(graph, op, portable, isa, macs[op.index])
            assert all(c.cycles < base for c in candidates if c.call is not portable), op.opcode


def test_an_unlabelled_variant_counts_as_an_armv7m_one():
    portable = KernelCall("fg_not_in_the_table_s8", "p", {}, [], [])
    variant = KernelCall("fg_not_in_the_table_armv7m", "p", {}, [], [], isa="Armv7-M")
    assert estimated_cycles(variant, 1000, 100, portable) == 0.8 * estimated_cycles(portable, 1000, 100, portable)
