"""Where the compiler runs the compact 1x1 layers on their expanded variant (ops/convolution/expanded_layout.py),
which allows
no output overlap above 16 channels: only where the layers planned without it keep the pool's size; and the
Armv7-M 4-bit convolutions on theirs: where the output stage is the fused one and the board's stack takes them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import firmware_gen.driver.compiler as compiler
from firmware_gen.driver.compiler import compile_graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.convolution.expanded_layout import ARMV7M_4BIT, EXPANDED, EXPANDED_4BIT, WINDOW_4BIT
from firmware_gen.ops.convolution.fused_output import COMPACT_FUSED
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.boards import load_board

from conftest import shared_model

QUICK = PlanningOptions(algorithm="hill_climb")  # the default's pool on vww, in 0.1 s


def _functions(compiled: compiler.CompiledModel) -> list[str]:
    return [call.function for _, call in sorted(compiled.calls.items())]


def test_vww_runs_every_1x1_layer_expanded_on_qemu_cortex_m3_in_the_same_pool() -> None:
    graph = read_model(shared_model("vww_96_int8").read_bytes())
    compiled = compile_graph(graph, options=QUICK, isa=load_board("qemu_cortex_m3").isa)
    assert _functions(compiled).count(EXPANDED) == 13 and COMPACT_FUSED not in _functions(compiled)
    assert compiled.plan.pool_bytes == compiler.plan_model(graph, QUICK).pool_bytes == 36_896


def test_the_1x1_layers_after_a_patch_stage_run_expanded_in_the_stage_plan_s_pool(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A patch stage's plan is the model's plan: the layers after it are expanded where that keeps its pool."""
    graph, isa = read_model(shared_model("vww_96_int8").read_bytes()), load_board("qemu_cortex_m3").isa
    options = dataclasses.replace(QUICK, patch_stage="3:rows")
    compiled = compile_graph(graph, options=options, isa=isa)
    after = [call.function for index, call in sorted(compiled.calls.items()) if index > 3]
    # 24x24x32 -> 24x24x32 keeps its overlap: side by side, its tensors would take 36,864 B, more than the pool
    assert after.count(EXPANDED) == 11 and after.count(COMPACT_FUSED) == 1
    monkeypatch.setattr(compiler, "_expand_after_stage", lambda graph, calls, stage, options, stack: (calls, stage))
    assert compiled.plan.pool_bytes <= compile_graph(graph, options=options, isa=isa).plan.pool_bytes


def test_layers_that_would_grow_the_pool_keep_the_compact_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = read_model(shared_model("vww_96_int8").read_bytes())
    plan_model = compiler.plan_model

    def larger_without_overlap(graph, options=PlanningOptions(), without_overlap=frozenset(), granules=None):
        plan = plan_model(graph, options, without_overlap, granules)
        return dataclasses.replace(plan, pool_bytes=plan.pool_bytes + 16) if without_overlap else plan

    monkeypatch.setattr(compiler, "plan_model", larger_without_overlap)
    functions = _functions(compile_graph(graph, options=QUICK, isa=load_board("qemu_cortex_m3").isa))
    assert functions.count(EXPANDED) == 1  # the 48x48x16 layer keeps its overlap (its outputs wait on the stack)
    assert functions.count(COMPACT_FUSED) == 12


def _conv_4bit(filter_hw: tuple[int, int], activation: str = "NONE") -> bytes:
    """One CONV_2D with 4-bit weights on 6x6x16, 24 output channels."""
    rng = np.random.default_rng(1)
    b = ModelBuilder("conv4")
    x = b.input("x", (1, 6, 6, 16), "int8", scale=0.05, zero_point=-3)
    w = b.constant("w", rng.integers(-8, 8, (24, *filter_hw, 16)).astype(np.int8), scale=0.1, int4=True)
    bias = b.constant("b", rng.integers(-300, 300, 24).astype(np.int32), scale=0.005)
    y = b.tensor("y", (1, 6, 6, 24), "int8", scale=0.5, zero_point=-3)
    b.operator("CONV_2D", [x, w, bias], [y], {"padding": "SAME", "activation": activation})
    b.output(y)
    return b.build()


@pytest.mark.parametrize(("filter_hw", "activation", "board", "function"), [
    ((1, 1), "NONE", "mps2_an385", EXPANDED_4BIT), ((3, 3), "NONE", "mps2_an385", WINDOW_4BIT),
    ((3, 3), "RELU", "mps2_an385", ARMV7M_4BIT),  # a clamp the fused output stage does not apply
    ((1, 1), "NONE", "qemu_cortex_m3", ARMV7M_4BIT),  # a 4 KB stack: not the expanded variants' 10.3 KB
])
def test_4bit_convolutions_run_expanded_on_boards_whose_stack_takes_it(filter_hw, activation, board, function) -> None:
    graph = read_model(_conv_4bit(filter_hw, activation))
    assert _functions(compile_graph(graph, options=QUICK, isa=load_board(board).isa)) == [function]
