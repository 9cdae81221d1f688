"""Where the compiler runs the compact 1x1 layers on their expanded variant (ops/convolution/expanded_layout.py),
which allows
no output overlap above 16 channels: only where the layers planned without it keep the pool's size."""

from __future__ import annotations

import dataclasses

import pytest

import firmware_gen.driver.compiler as compiler
from firmware_gen.driver.compiler import compile_graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.ops.convolution.expanded_layout import EXPANDED
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
