"""Memory planning at and below the limit, end to end: operator-level overlap (on by default), the model's inputs
and outputs in or outside the pool, several pools placed in a board's memory regions.

Host tests compare every tensor with TFLite Micro; the QEMU tests run the firmware (skipped without the Arm
toolchain and QEMU); the shared models are skipped when /work/shared/models is absent.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_gen.check.host_validation import validate_model
from firmware_gen.driver.compiler import compile_graph, generate, overlap_allowances
from firmware_gen.frontend.tflite_reader import load_model, read_model
from firmware_gen.modelgen.mobilenet import mobilenet_v1
from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS
from firmware_gen.ops import view_aliases
from firmware_gen.planner import PlanningOptions, check_plan, plan_graph
from firmware_gen.target.boards import BoardError, load_board
from firmware_gen.target.linker_script import pool_region, render_linker_script

from conftest import SHARED_MODEL_NAMES, run_cli, shared_model

needs_qemu = pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                                reason="needs qemu-system-arm and arm-none-eabi-gcc")
needs_cross_gcc = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="arm-none-eabi-gcc missing")
SYNTHETIC = {**SYNTHETIC_MODELS, "mobilenet_v1_025_96": mobilenet_v1}
RAM_BUDGET = 40 * 1024  # what vww_96_int8 and person_detect must fit in with overlap (the LM3S6965 has 64 KiB)


def _operator_outputs(data: bytes) -> int:
    graph = read_model(data)
    return sum(len(op.outputs) for op in graph.operators)


def _assert_bit_exact(report, data: bytes) -> None:
    assert report.bit_exact, report.mismatches[:3]
    # every tensor, not just the outputs (but a padded one whose PAD its convolution does: ops/pad_folding.py)
    assert report.tensors_compared + len(report.folded_tensors) == _operator_outputs(data)
    assert report.outputs_compared >= 1


@pytest.mark.parametrize("overlap", [True, False], ids=["overlap", "no-overlap"])
@pytest.mark.parametrize("name", SHARED_MODEL_NAMES)
def test_shared_model_bit_exact_on_the_host(name: str, overlap: bool) -> None:
    path = shared_model(name)
    report = validate_model(path, options=PlanningOptions(overlap=overlap))
    _assert_bit_exact(report, path.read_bytes())
    assert report.overlap is overlap


@pytest.mark.parametrize("overlap", [True, False], ids=["overlap", "no-overlap"])
@pytest.mark.parametrize("name", SYNTHETIC)
def test_synthetic_model_bit_exact_on_the_host(name: str, overlap: bool) -> None:
    data = SYNTHETIC[name]()
    _assert_bit_exact(validate_model(data, options=PlanningOptions(overlap=overlap)), data)


@pytest.mark.parametrize("name", SHARED_MODEL_NAMES)
def test_planning_a_shared_model_with_overlap_passes_the_checker(name: str) -> None:
    # How long planning takes is a benchmark figure (bench/planners.py prints it), not a timed test.
    graph = load_model(shared_model(name))
    allowances = overlap_allowances(graph)
    plan = plan_graph(graph, aliases=view_aliases(graph), allowances=allowances)
    check_plan(plan, graph, allowances)


@pytest.mark.parametrize("name", ["vww_96_int8", "person_detect"])
def test_overlap_brings_the_big_models_under_40_kib(name: str) -> None:
    graph = load_model(shared_model(name))
    assert compile_graph(graph).plan.pool_bytes <= RAM_BUDGET  # overlap is the default
    assert compile_graph(graph, options=PlanningOptions(overlap=False)).plan.pool_bytes == 55_296


# --- inputs and outputs outside the pool -------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHARED_MODEL_NAMES)
def test_shared_model_with_io_outside_the_pool_bit_exact(name: str) -> None:
    path = shared_model(name)
    report = validate_model(path, options=PlanningOptions(io_in_pool=False))
    _assert_bit_exact(report, path.read_bytes())
    assert not report.io_in_pool


@pytest.mark.parametrize("name", SYNTHETIC)
def test_synthetic_model_with_io_outside_the_pool_bit_exact(name: str) -> None:
    data = SYNTHETIC[name]()
    _assert_bit_exact(validate_model(data, options=PlanningOptions(io_in_pool=False)), data)


def test_io_outside_the_pool_plans_only_intermediates_and_copies_nothing(tmp_path: Path) -> None:
    graph = read_model(SYNTHETIC_MODELS["tiny_cnn"]())
    compiled = generate(graph, tmp_path, options=PlanningOptions(io_in_pool=False))
    planned = {index for buffer in compiled.plan.buffers for index in buffer.tensors}
    io = {*graph.inputs, *graph.outputs}
    assert planned.isdisjoint(io)
    assert all(compiled.plan.is_outside(index) for index in io)
    inside = generate(graph, tmp_path / "inside")
    assert io <= {index for buffer in inside.plan.buffers for index in buffer.tensors}
    model_c, model_h = (tmp_path / "model.c").read_text(), (tmp_path / "model.h").read_text()
    assert "memcpy" not in model_c and "(const int8_t *)(inputs[0])" in model_c
    assert "#define FG_MODEL_IO_IN_POOL 0" in model_h and "int fg_model_invoke(void);" not in model_h
    assert "#define FG_MODEL_IO_IN_POOL 1" in (tmp_path / "inside" / "model.h").read_text()


def test_io_outside_the_pool_refuses_the_packed_interface() -> None:
    from firmware_gen.errors import UserError

    with pytest.raises(UserError, match="packed"):
        compile_graph(read_model(SYNTHETIC_MODELS["tiny_cnn"]()), interface="packed",
                      options=PlanningOptions(io_in_pool=False))


# --- several pools in a board's memory regions -------------------------------------------------------------------

def test_linker_script_routes_each_named_pool_to_its_region() -> None:
    board = load_board("mps3_an547")
    script = render_linker_script(board, pools=["dtcm", "SRAM"])
    assert re.search(r"\.fg_pool_dtcm \(NOLOAD\) :\s*\{[^}]*KEEP\(\*\(\.bss\.fg_pool_dtcm\)\)[^}]*\} > DTCM", script)
    assert re.search(r"\.fg_pool_SRAM \(NOLOAD\) :\s*\{[^}]*KEEP\(\*\(\.bss\.fg_pool_SRAM\)\)[^}]*\} > SRAM", script)
    # the named pools come before .bss, whose .bss.* pattern would otherwise take them
    assert script.index(".fg_pool_dtcm (NOLOAD)") < script.index("  .bss (NOLOAD)")
    assert pool_region(load_board("mps2_an385"), "psram").name == "PSRAM"
    assert pool_region(load_board("mps2_an385"), "code_sram").name == "code SRAM"


def test_unknown_pool_name_is_refused_with_the_board_regions() -> None:
    with pytest.raises(BoardError, match="itcm, dtcm, sram"):
        render_linker_script(load_board("mps3_an547"), pools=["fast"])
    done = run_cli("build", str(shared_model("hello_world_int8")), "--board", "mps3_an547", "--pool", "fast:1K",
                   "--pool", "sram")
    assert done.returncode == 2 and "no memory region" in done.stderr and "itcm, dtcm, sram" in done.stderr


def _symbols(elf: Path) -> dict[str, int]:
    done = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True)
    return {parts[2]: int(parts[0], 16) for parts in map(str.split, done.stdout.splitlines()) if len(parts) == 3}


@needs_qemu
def test_two_pools_on_mps3_an547_land_in_dtcm_and_sram_and_run_bit_exact(tmp_path: Path) -> None:
    model = str(shared_model("vww_96_int8"))
    pools = ["--pool", "dtcm:16K", "--pool", "sram"]
    done = run_cli("build", model, "--board", "mps3_an547", *pools, "-o", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    board = load_board("mps3_an547")
    symbols = _symbols(Path(json.loads(done.stdout)["elf"]))
    for symbol, region in (("fg_pool_dtcm", "DTCM"), ("fg_pool_sram", "SRAM")):
        where = next(r for r in board.regions if r.name == region)
        assert where.origin <= symbols[symbol] < where.end, (symbol, hex(symbols[symbol]))
    assert symbols["__fg_pool_dtcm_end"] - symbols["__fg_pool_dtcm_start"] <= 16 * 1024
    done = run_cli("validate", model, "--board", "mps3_an547", *pools, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bit_exact"]


# --- the big models on the 64 KiB Cortex-M3 ---------------------------------------------------------------------

@needs_qemu
@pytest.mark.parametrize("name", ["vww_96_int8", "person_detect"])
def test_big_model_fits_and_is_bit_exact_on_qemu_cortex_m3(name: str, tmp_path: Path) -> None:
    model = str(shared_model(name))
    done = run_cli("build", model, "--board", "qemu_cortex_m3", "-o", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    build = json.loads(done.stdout)
    assert build["fits"] and build["workspace_bytes"] <= RAM_BUDGET
    assert build["ram_bytes"] <= load_board("qemu_cortex_m3").region_for("pool").size
    done = run_cli("validate", model, "--board", "qemu_cortex_m3", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bit_exact"]


@needs_qemu
def test_io_outside_the_pool_runs_bit_exact_on_a_board() -> None:
    done = run_cli("validate", str(shared_model("kws_ref_model")), "--board", "qemu_cortex_m3", "--no-io-in-pool",
                   "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bit_exact"]


@needs_cross_gcc
def test_build_cache_is_keyed_by_the_planning_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware_gen.driver.deploy import prepare

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = shared_model("micro_speech_quantized")
    data = path.read_bytes()
    overlapped = prepare(data, str(path), "qemu_cortex_m3")
    plain = prepare(data, str(path), "qemu_cortex_m3", options=PlanningOptions(overlap=False))
    assert overlapped.firmware.elf != plain.firmware.elf
    assert overlapped.firmware.workspace_bytes < plain.firmware.workspace_bytes
    again = prepare(data, str(path), "qemu_cortex_m3")
    assert again.firmware.elf == overlapped.firmware.elf
