"""ops/convolution/wide_layout.py's paired layout and the ISA variants, chosen within the board's flash
(ops/variant_choice.py), never past it."""

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
)


def _blocked():
    graph = fold(read_model(SYNTHETIC_MODELS["small_mobilenet"]()))
    calls = lower(graph)
    candidates = {index: call for index, call in calls.items() if call.function in PAIRED}
    assert len(candidates) >= 2
    return graph, calls, candidates


def _wide(function: str) -> set[str]:
    """The paired twin of a blocked function, with its output stage fused or not (ops/convolution/fused_output.py)."""
    return {PAIRED[function], FUSED[PAIRED[function]], FLOOR[FUSED[PAIRED[function]]], ROWS, FLOOR[ROWS]}


def _functions(calls) -> dict[int, str]:
    return {index: call.function for index, call in calls.items()}


def _flash(constants: int) -> Isa:
    return Isa(frozenset({ARMV7M}), flash_bytes=CODE_RESERVE + constants)


def test_widening_follows_the_budget():
    """ops/variant_choice.py over a real graph: no flash to spare leaves every layer compact, flash for every paired
    layout and its kernels' code widens every layer, and half of that widens some, within the flash."""
    graph, calls, candidates = _blocked()
    compact = constant_bytes(graph, lower(graph, _flash(1)))
    assert _functions(lower(graph, _flash(compact))) == _functions(lower(graph, _flash(1)))
    roomy = lower(graph, _flash(1 << 24))
    assert all(roomy[i].function in _wide(c.function) for i, c in candidates.items())
    code = dict(WIDE_CODE.get(call.function, ("", 0)) for call in roomy.values())
    needed = constant_bytes(graph, roomy) + sum(code.values())
    assert _functions(lower(graph, _flash(needed))) == _functions(roomy)
    half = compact + (needed - compact) // 2
    some = lower(graph, _flash(half))
    assert 0 < sum(some[i].function in _wide(c.function) for i, c in candidates.items()) < len(candidates)
    assert constant_bytes(graph, some) <= half


def test_variants_that_do_not_fit_go_back_to_the_portable_calls():
    """The DSP variants' int16 weights within the board's flash: with too little, some layers keep the portable
    call, and the constants fit."""
    graph = fold(read_model(SYNTHETIC_MODELS["small_mobilenet"]()))
    portable, dsp = lower(graph), lower(graph, Isa(frozenset({DSP, ARMV7M})))
    costly = [i for i in dsp if dsp[i].function != portable[i].function
              and sum(t.values.nbytes for t in dsp[i].tables) > sum(t.values.nbytes for t in portable[i].tables)]
    assert costly
    roomy = constant_bytes(graph, dsp)
    fitted = lower(graph, Isa(frozenset({DSP, ARMV7M}), flash_bytes=CODE_RESERVE + roomy))
    assert [fitted[i].function for i in costly] == [dsp[i].function for i in costly]
    tight = lower(graph, Isa(frozenset({DSP, ARMV7M}), flash_bytes=CODE_RESERVE + roomy - 1))
    assert constant_bytes(graph, tight) <= roomy - 1
    assert any(tight[i].function not in (dsp[i].function,) for i in costly)


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
