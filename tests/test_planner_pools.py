"""Kernel scratch buffers and several pools: planning, checking, legalization, generated C, bit-exact runs."""

from __future__ import annotations

import pytest

import firmware_gen.driver.compiler as compiler
from firmware_gen.backend.legalize import legalize
from firmware_gen.check.host_validation import validate_model
from firmware_gen.driver.compiler import compile_graph, view_aliases
from firmware_gen.errors import DoesNotFitError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.zoo import residual_block, tiny_cnn
from firmware_gen.planner import PoolSpec, check_plan, plan_graph


def test_scratch_is_a_buffer_of_its_step_only() -> None:
    graph = read_model(tiny_cnn())
    aliases = view_aliases(graph)
    plan = plan_graph(graph, aliases=aliases, scratch={1: 100})
    scratch = plan.scratch_of(1)
    assert scratch is not None and (scratch.first_op, scratch.last_op, scratch.size) == (1, 1, 100)
    assert plan.lower_bound_bytes >= plan_graph(graph, aliases=aliases).lower_bound_bytes
    check_plan(plan, graph, scratch={1: 100})
    with pytest.raises(AssertionError, match="step 1: the kernel needs 200 bytes of scratch, the plan gives 100"):
        check_plan(plan, graph, scratch={1: 200})
    assert {r["scratch_step"] for r in plan.to_json()["buffers"]} == {None, 1}


def test_legalization_passes_scratch_last() -> None:
    graph = read_model(tiny_cnn())
    compiled = compile_graph(graph)
    compiled.calls[0].scratch_bytes = 64
    plan = plan_graph(graph, aliases=compiled.aliases, scratch={0: 64})
    steps = legalize(graph, compiled.calls, plan)
    offset = plan.scratch_of(0).offset
    assert steps[0].arguments[-1].expression == f"(void *)(fg_pool + {offset})"
    assert steps[0].arguments[:-1] == steps[0].inputs + steps[0].outputs
    assert steps[1].arguments == steps[1].inputs + steps[1].outputs


def test_fast_pool_first_then_spill() -> None:
    graph = read_model(residual_block())
    pools = [PoolSpec("dtcm", 2048, 0), PoolSpec("sram", None, 1)]
    plan = plan_graph(graph, aliases=view_aliases(graph), pools=pools)
    check_plan(plan, graph)
    assert 0 < plan.pool_sizes["dtcm"] <= 2048
    assert plan.pool_sizes["sram"] > 0
    assert plan.pool_bytes == plan.pool_sizes["dtcm"] + plan.pool_sizes["sram"]
    assert {b.pool for b in plan.buffers} == {"dtcm", "sram"}
    assert plan.symbol_of(plan.buffers[0].tensor) in ("fg_pool_dtcm", "fg_pool_sram")


def test_a_pool_too_small_is_an_error_with_numbers() -> None:
    graph = read_model(residual_block())
    needed = plan_graph(graph).pool_bytes
    with pytest.raises(DoesNotFitError, match=rf"pool 'ram' needs {needed:,} B .* but holds 1,000 B"):
        plan_graph(graph, pools=[PoolSpec("ram", 1000)])


def test_generated_c_has_one_array_per_pool_and_stays_bit_exact(tmp_path, monkeypatch) -> None:
    pools = [PoolSpec("dtcm", 2048, 0), PoolSpec("sram", None, 1)]
    def planned_with_pools(graph, **options):  # validate_model has no planning options of its own
        return plan_graph(graph, **{**options, "pools": pools, "overlap": True})

    monkeypatch.setattr(compiler, "plan_graph", planned_with_pools)
    report = validate_model(residual_block(), work_dir=tmp_path)
    assert report.bit_exact, report.mismatches
    model_c = (tmp_path / "model" / "model.c").read_text()
    for name in ("dtcm", "sram"):
        assert f'static uint8_t fg_pool_{name}[' in model_c
        assert f'section(".bss.fg_pool_{name}")' in model_c
    assert "fg_pool[" not in model_c


# --- the command line -------------------------------------------------------------------------------------------------


def cli_plan(tmp_path, capsys, *options: str) -> tuple[int, str, str]:
    from firmware_gen.cli import main

    model = tmp_path / "residual.tflite"
    model.write_bytes(residual_block())
    status = main(["plan", str(model), *options])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_plan_options(tmp_path, capsys) -> None:
    import json

    status, out, _ = cli_plan(tmp_path, capsys, "--json", "--algorithm", "hill_climb", "--overlap",
                              "--pool", "dtcm:2K", "--pool", "sram")
    assert status == 0
    plan = json.loads(out)
    assert plan["overlap"] is True and "hill_climb" in plan["algorithm"]
    assert [(p["name"], p["limit"]) for p in plan["pools"]] == [("dtcm", 2048), ("sram", None)]
    assert plan["lower_bound_bytes"] > 0 and "proven_optimal" in plan
    status, _, err = cli_plan(tmp_path, capsys, "--pool", "dtcm:2Q")
    assert status == 2 and "--pool dtcm:2Q: the size must be bytes" in err
    status, _, err = cli_plan(tmp_path, capsys, "--pool", "ram:100")
    assert status == 2 and "pool 'ram' needs" in err and "holds 100 B" in err


def test_cli_plot(tmp_path, capsys, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "timeline.png"
    assert cli_plan(tmp_path, capsys, "--plot", str(png), "--pool", "dtcm:2K", "--pool", "sram")[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    status, _, err = cli_plan(tmp_path, capsys, "--plot", str(png))
    assert status == 2 and "--plot needs matplotlib" in err
