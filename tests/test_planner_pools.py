"""Several pools: planning, checking, generated C, bit-exact runs."""

from __future__ import annotations

import pytest

from firmware_gen.abi import pool_symbol
from firmware_gen.check.host_validation import validate_model
from firmware_gen.errors import DoesNotFitError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.zoo import residual_block
from firmware_gen.ops import view_aliases
from firmware_gen.planner import PlanningOptions, PoolSpec, check_plan, plan_graph


def test_fast_pool_first_then_spill() -> None:
    graph = read_model(residual_block())
    pools = [PoolSpec("dtcm", 2048, 0), PoolSpec("sram", None, 1)]
    plan = plan_graph(graph, aliases=view_aliases(graph), options=PlanningOptions(overlap=False, pools=pools))
    check_plan(plan, graph)
    assert 0 < plan.pool_sizes["dtcm"] <= 2048
    assert plan.pool_sizes["sram"] > 0
    assert plan.pool_bytes == plan.pool_sizes["dtcm"] + plan.pool_sizes["sram"]
    assert {b.pool for b in plan.buffers} == {"dtcm", "sram"}
    assert pool_symbol(plan.buffer_of(plan.buffers[0].tensor).pool) in ("fg_pool_dtcm", "fg_pool_sram")


def test_a_pool_too_small_is_an_error_with_numbers() -> None:
    graph = read_model(residual_block())
    needed = plan_graph(graph).pool_bytes
    with pytest.raises(DoesNotFitError, match=rf"pool 'ram' needs {needed:,} B .* but holds 1,000 B"):
        plan_graph(graph, options=PlanningOptions(pools=[PoolSpec("ram", 1000)]))


def test_generated_c_has_one_array_per_pool_and_stays_bit_exact(tmp_path) -> None:
    pools = [PoolSpec("dtcm", 2048, 0), PoolSpec("sram", None, 1)]
    report = validate_model(residual_block(), work_dir=tmp_path, options=PlanningOptions(pools=pools))
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


def test_cli_plan_for_a_board_is_the_plan_its_firmware_gets(tmp_path, capsys) -> None:
    import json

    from firmware_gen.driver.compiler import compile_graph
    from firmware_gen.frontend.tflite_reader import read_model
    from firmware_gen.target.boards import load_board

    status, out, _ = cli_plan(tmp_path, capsys, "--json", "--board", "mps2_an386")
    assert status == 0
    compiled = compile_graph(read_model(residual_block()), isa=load_board("mps2_an386").isa)
    printed, planned = json.loads(out), json.loads(json.dumps(compiled.plan.to_json()))
    assert (printed["pool_bytes"], printed["buffers"]) == (planned["pool_bytes"], planned["buffers"])
