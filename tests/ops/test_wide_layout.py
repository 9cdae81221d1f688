"""ops/convolution/wide_layout.py: the paired layout goes to the layers with most output pixels first, within the
flash left
over, and never past it."""

from __future__ import annotations

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import ARMV7M, DSP, Isa
from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS
from firmware_gen.ops import fold, lower
from firmware_gen.ops.convolution.fused_output import FLOOR, FUSED, ROWS
from firmware_gen.ops.convolution.wide_layout import (
    CODE_RESERVE,
    PAIRED,
    WIDE_CODE,
    constant_bytes,
    flash_for_constants,
    paired_call,
)
from firmware_gen.ops.variant_budget import fit_variants
from firmware_gen.ops.wide_weights import widen


def _blocked():
    graph = fold(read_model(SYNTHETIC_MODELS["small_mobilenet"]()))
    calls = lower(graph)
    candidates = {index: call for index, call in calls.items() if call.function in PAIRED}
    assert len(candidates) >= 2
    return graph, calls, candidates


def _wide(function: str) -> set[str]:
    """The paired twin of a blocked function, with its output stage fused or not (ops/convolution/fused_output.py)."""
    return {PAIRED[function], FUSED[PAIRED[function]], FLOOR[FUSED[PAIRED[function]]], ROWS, FLOOR[ROWS]}


def _extra(call) -> int:
    return sum(t.values.nbytes for t in paired_call(call).tables) - sum(t.values.nbytes for t in call.tables)


def _code(calls) -> int:
    """The code of the wide kernel families the paired twins of `calls` link in, each counted once."""
    return sum(dict(WIDE_CODE[paired_call(call).function] for call in calls).values())


def test_widening_follows_the_budget_and_the_gain_per_byte():
    graph, calls, candidates = _blocked()
    compact = CODE_RESERVE + constant_bytes(graph, calls)
    pixels = {i: int(graph.tensors[c.outputs[0]].num_elements // graph.tensors[c.outputs[0]].shape[-1])
              for i, c in candidates.items()}
    first = max(candidates, key=lambda i: pixels[i])
    assert widen(graph, calls, compact) == calls  # no flash to spare: compact everywhere
    everything = widen(graph, calls, compact + sum(_extra(c) for c in candidates.values()) +
                       _code(candidates.values()))
    assert all(everything[i].function in _wide(c.function) for i, c in candidates.items())
    just_first = widen(graph, calls, compact + _extra(candidates[first]) + _code([candidates[first]]))
    assert just_first[first].function in _wide(candidates[first].function)
    taken = [calls[i] for i in candidates if just_first[i].function != calls[i].function]
    assert sum(_extra(c) for c in taken) + _code(taken) <= _extra(candidates[first]) + _code([candidates[first]])
    no_code = widen(graph, calls, compact + _extra(candidates[first]) + _code([candidates[first]]) - 1)
    assert no_code[first] is calls[first]  # its bytes, but not its kernel's code: compact


def test_variants_that_do_not_fit_go_back_to_the_portable_calls():
    """ops/variant_budget.py: the DSP variants' int16 weights within the board's flash, fewest pixels first."""
    graph = fold(read_model(SYNTHETIC_MODELS["small_mobilenet"]()))
    portable, dsp = lower(graph), lower(graph, Isa(frozenset({DSP})))
    costly = [i for i in dsp if dsp[i].function != portable[i].function
              and sum(t.values.nbytes for t in dsp[i].tables) > sum(t.values.nbytes for t in portable[i].tables)]
    assert costly
    roomy = CODE_RESERVE + constant_bytes(graph, dsp)
    assert fit_variants(graph, portable, dsp, roomy) == dsp
    tight = fit_variants(graph, portable, dsp, roomy - 1)
    assert CODE_RESERVE + constant_bytes(graph, tight) <= roomy - 1
    assert sum(tight[i] is portable[i] for i in costly) >= 1
    assert fit_variants(graph, portable, dsp, 0) == {**dsp, **{i: portable[i] for i in costly}}


def test_a_build_over_the_flash_by_n_bytes_is_lowered_again_with_n_bytes_fewer_constants():
    """driver/deploy.py's retry after a link that overflowed the flash (the code exceeded CODE_RESERVE, as Zephyr's
    kernel can): lowered within flash_for_constants(constants - N), the constants are N bytes fewer, or more."""
    graph = fold(read_model(SYNTHETIC_MODELS["small_mobilenet"]()))
    for features in ({ARMV7M}, {ARMV7M, DSP}):
        roomy = lower(graph, Isa(frozenset(features), flash_bytes=1 << 24))
        constants = constant_bytes(graph, roomy)
        compact = constant_bytes(graph, lower(graph, Isa(frozenset(features), flash_bytes=1)))
        assert constants > compact + 1000  # something to take out
        for over in (1, 1000):
            again = lower(graph, Isa(frozenset(features), flash_bytes=flash_for_constants(constants - over)))
            assert constant_bytes(graph, again) <= constants - over
