"""Patch stages end to end on the host: random chains of windowed layers (kernel sizes, strides, SAME and VALID
padding, depth multipliers, average and max pools), each with a stage forced to its last layer in a random grid,
generated, built and run on the host, and every tensor from the stage's output on compared with TFLM's (the stage's
intermediates exist one patch at a time and are reported as not compared). Also: the plan checker proves the patch
buffers disjoint, and --patches min on a model whose whole-tensor plan is larger."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest
from patch_models import random_stage_model

from firmware_gen.check.host_validation import validate_model
from firmware_gen.driver.compiler import compile_graph, generate
from firmware_gen.errors import DoesNotFitError, UserError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images
from firmware_gen.modelgen.mobilenet import mobilenet_v1
from firmware_gen.modelgen.zoo import tiny_cnn
from firmware_gen.planner import PlanningOptions, PoolSpec, check_plan
from firmware_gen.planner.check import PlanError
from firmware_gen.target.boards import load_board

from conftest import run_cli, shared_model


@pytest.mark.parametrize("seed", range(24))
def test_a_forced_stage_is_bit_exact_with_tflm(seed: int) -> None:
    model, last, size = random_stage_model(seed)
    rng = random.Random(seed)
    rows, cols = rng.randint(1, min(size, 4)), rng.randint(1, min(size, 4))
    options = PlanningOptions(patch_stage=f"{last}:{rows}x{cols}", io_in_pool=rng.random() < 0.5)
    report = validate_model(model, options=options)
    assert report.bit_exact, report.format()
    assert report.per_patch_tensors and "not compared" in report.format()


@pytest.mark.parametrize("seed", range(16))
def test_a_forced_row_stage_is_bit_exact_with_tflm(seed: int) -> None:
    """In row buffers, in one full-width strip or in column strips (their first layer's rows gathered, and a
    residual block's input, read over fewer columns by its ADD than by its branch, copied out)."""
    model, last, size = random_stage_model(seed)
    strips = 1 + seed % min(size, 3)
    options = PlanningOptions(patch_stage=f"{last}:rowsx{strips}", io_in_pool=seed % 2 == 0)
    report = validate_model(model, options=options)
    assert report.bit_exact, report.format()
    assert report.per_patch_tensors and "not compared" in report.format()


QUICK = "hill_climb"  # one planning algorithm: the choice is under test, not the planner


def _small_mobilenet() -> bytes:
    return mobilenet_v1(alpha=0.25, input_size=64, channels=3, num_classes=2, seed=3)


def test_min_shrinks_the_pool_and_the_checker_covers_the_patch_buffers() -> None:
    graph = read_model(_small_mobilenet(), "mobilenet")
    whole = compile_graph(graph, options=PlanningOptions(patches="off", io_in_pool=False, algorithm=QUICK))
    compiled = compile_graph(graph, options=PlanningOptions(patches="min", io_in_pool=False, algorithm=QUICK))
    assert compiled.stage is not None and compiled.plan.pool_bytes < whole.plan.pool_bytes
    assert compiled.stage.extra_fraction <= 0.15
    planned = compiled.planned_graph
    check_plan(compiled.plan, planned, compiled.stage.allowances)
    # The stage's first patch buffer moved onto a buffer live at the same step: the checker must refuse the plan.
    victim = compiled.plan.buffer_of(compiled.stage.patch_tensors()[0])
    with pytest.raises(PlanError, match="overlap"):
        check_plan(_moved_onto_a_live_buffer(compiled.plan, victim), planned, compiled.stage.allowances)


def test_the_armv7m_planar_depthwise_keeps_tall_and_whole_width_patches_and_leaves_strips_to_the_portable_kernel(
) -> None:
    """A row stage's calls are one to four rows tall: in column strips the plane's per-channel set-up costs more than
    it saves; in one strip the plane stays, sparing the portable kernel's flash (ops/patch_kernels.py's
    PLANAR_MIN_SIDE)."""
    graph, isa = read_model(_small_mobilenet(), "mobilenet"), load_board("mps2_an385").isa
    kernels = {}
    for stage in ("7:rowsx2", "7:rows/4", "7:2x2"):
        compiled = compile_graph(graph, options=PlanningOptions(patch_stage=stage, io_in_pool=False, algorithm=QUICK),
                                 isa=isa)
        kernels[stage] = {call.function for call in compiled.stage.calls.values()}
    assert "fg_depthwise_conv2d_3x3_planar_s8" not in kernels["7:rowsx2"]
    assert "fg_depthwise_conv2d_3x3_s8" in kernels["7:rowsx2"]
    assert "fg_depthwise_conv2d_3x3_planar_s8" in kernels["7:rows/4"]  # one strip: the layer's whole width
    assert "fg_depthwise_conv2d_3x3_planar_s8" in kernels["7:2x2"]  # its 16-row patches of the 32x32 layers


def test_min_plans_vww_in_two_column_strips_under_12_kib() -> None:
    """Issue 24's target: the stage's calls cheap enough that two column strips fit the budget, and the chooser
    plans the candidates with the smallest stage buffers among those of one bound (not only the cheapest)."""
    graph = read_model(shared_model("vww_96_int8").read_bytes(), "vww_96_int8")
    compiled = compile_graph(graph, options=PlanningOptions(patches="min", io_in_pool=False, algorithm=QUICK),
                             isa=load_board("mps2_an386").isa)
    assert compiled.stage.stage.strips == 2 and compiled.stage.extra_fraction <= 0.15
    assert compiled.plan.pool_bytes <= 12288


def test_min_ranks_the_stages_by_the_bound_their_output_over_the_input_allows() -> None:
    """With the input in the pool, a one-strip row stage that writes its output over the input rows it has read
    saves most of the input's bytes; ranked by the tensors alone it was never planned and min kept the whole plan."""
    graph = read_model(_small_mobilenet(), "mobilenet")
    whole = compile_graph(graph, options=PlanningOptions(patches="off", algorithm=QUICK))
    compiled = compile_graph(graph, options=PlanningOptions(patches="min", algorithm=QUICK))
    stage = compiled.stage.stage
    assert stage.mode == "rows" and stage.strips == 1
    assert any(a.output == stage.tensors[-1] and a.input == stage.input for a in compiled.stage.allowances[stage.last])
    assert compiled.plan.pool_bytes < whole.plan.pool_bytes
    check_plan(compiled.plan, compiled.planned_graph, compiled.stage.allowances)


def test_min_plans_vww_with_its_input_in_the_pool_under_32_kib() -> None:
    """Issue 24's target for the input in the pool (36,896 B without a stage)."""
    graph = read_model(shared_model("vww_96_int8").read_bytes(), "vww_96_int8")
    compiled = compile_graph(graph, options=PlanningOptions(patches="min"), isa=load_board("mps2_an386").isa)
    assert compiled.stage.extra_fraction <= 0.15
    assert compiled.plan.pool_bytes <= 32768


def _moved_onto_a_live_buffer(plan, victim):
    """The plan with `victim` moved onto a buffer live at one of its steps (and within the pool)."""
    clash = next(b for b in plan.buffers if b is not victim and b.first_op <= victim.last_op
                 and victim.first_op <= b.last_op and b.offset + victim.size <= plan.pool_bytes)
    return dataclasses.replace(plan, buffers=[dataclasses.replace(b, offset=clash.offset) if b is victim else b
                                              for b in plan.buffers])


def test_row_buffers_live_over_the_whole_stage_and_the_checker_covers_them() -> None:
    graph = read_model(_small_mobilenet(), "mobilenet")
    options = PlanningOptions(patch_stage="7:rows", io_in_pool=False, algorithm=QUICK)
    compiled = compile_graph(graph, options=options)
    stage, plan = compiled.stage.stage, compiled.plan
    assert stage.mode == "rows" and compiled.stage.extra_macs == 0
    rows = [plan.buffer_of(t) for t in stage.tensors[:-1]]
    assert all((b.first_op, b.last_op) == (stage.positions[0], stage.last) for b in rows)
    assert all(b.size < graph.tensors[t].nbytes for b, t in zip(rows, stage.tensors, strict=False))
    check_plan(plan, compiled.planned_graph, compiled.stage.allowances)
    with pytest.raises(PlanError, match="overlap"):  # a row buffer onto a buffer live during the stage
        check_plan(_moved_onto_a_live_buffer(plan, rows[0]), compiled.planned_graph, compiled.stage.allowances)


def test_a_row_stage_writes_its_output_over_the_input_rows_it_has_read() -> None:
    options = PlanningOptions(patch_stage="7:rows", algorithm="greedy_by_conflicts")
    compiled = compile_graph(read_model(_small_mobilenet(), "mobilenet"), options=options)
    stage, plan = compiled.stage.stage, compiled.plan
    source, result = plan.buffer_of(stage.input), plan.buffer_of(stage.tensors[-1])
    assert source.offset < result.offset + result.size and result.offset < source.offset + source.size  # shared
    report = validate_model(_small_mobilenet(), options=options)
    assert report.bit_exact, report.format()
    allowed = next(a.bytes for a in compiled.stage.allowances[stage.last] if a.output == stage.tensors[-1])
    further = source.offset + allowed - result.size + 16  # 16 bytes further into the input than allowed
    bad = dataclasses.replace(plan, buffers=[dataclasses.replace(b, offset=further) if b is result else b
                                             for b in plan.buffers])
    with pytest.raises(PlanError, match="overlap"):
        check_plan(bad, compiled.planned_graph, compiled.stage.allowances)


def test_auto_uses_a_stage_only_when_the_whole_plan_does_not_fit() -> None:
    graph = read_model(_small_mobilenet(), "mobilenet")
    quick = PlanningOptions(io_in_pool=False, algorithm=QUICK)
    assert compile_graph(graph, options=quick).stage is None
    whole = compile_graph(graph, options=dataclasses.replace(quick, patches="off")).plan.pool_bytes
    limited = dataclasses.replace(quick, pools=(PoolSpec("", whole - 16),))
    with pytest.raises(DoesNotFitError):
        compile_graph(graph, options=dataclasses.replace(limited, patches="off"))
    compiled = compile_graph(graph, options=limited)
    assert compiled.stage is not None and compiled.plan.pool_bytes <= whole - 16
    board_ram = compile_graph(graph, options=dataclasses.replace(quick, ram_bytes=whole - 16))
    assert board_ram.stage is not None and board_ram.plan.pool_bytes == compiled.plan.pool_bytes
    report = validate_model(_small_mobilenet(), options=limited)
    assert report.bit_exact, report.format()


@pytest.mark.parametrize(("stage", "message"), [
    ("4:1x1", "cannot end a patch stage at operator 4: operator 3 (RESHAPE) cannot run on patches"),
    ("2:5x1", "a patch grid of 5x1 does not fit the stage's output of 4x4: 5 rows of patches for 4 rows"),
    ("2x2", "--patch-stage 2x2: expected OPERATOR:ROWSxCOLUMNS"),
])
def test_an_impossible_forced_stage_is_refused_in_one_line(tmp_path, stage: str, message: str) -> None:
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(tiny_cnn())
    result = run_cli("plan", str(model), "--patch-stage", stage)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr


def test_plan_shows_the_stage_its_grid_and_its_buffers(tmp_path) -> None:
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(tiny_cnn())
    text = run_cli("plan", str(model), "--patch-stage", "2:2x2").stdout
    assert "patch stage: operators 0..2 (steps 0..2 in a 2x2 grid, 4 patches)" in text and "patch input" in text
    data = json.loads(run_cli("plan", str(model), "--patch-stage", "2:2x2", "--json").stdout)
    assert data["patch_stage"]["grid"] == [2, 2] and data["patch_stage"]["buffers"]
    assert data["patch_stage"]["mode"] == "recompute"
    text = run_cli("plan", str(model), "--patch-stage", "2:rows").stdout
    assert "in row buffers" in text and "halos kept in row buffers" in text and "rows of " in text


def test_analyze_shows_the_stage_in_text_json_and_html() -> None:
    from firmware_gen.check.analysis import analyze
    from firmware_gen.check.analysis_report import format_analysis
    from firmware_gen.check.html_report import render_html

    compiled = compile_graph(read_model(tiny_cnn(), "tiny_cnn"), options=PlanningOptions(patch_stage="2:2x2"))
    report = analyze(compiled, "tiny_cnn.tflite")
    assert report.to_json()["patch_stage"]["grid"] == [2, 2]
    assert "patch stage: operators 0..2 run patch by patch" in format_analysis(report)
    page = render_html(report, b"", None, None, "no profile")
    assert "<h2>Patch stage</h2>" in page and "patch input" in page
    assert "a 2x2 grid of 4 patches, halos recomputed" in format_analysis(report)
    rows = analyze(compile_graph(read_model(tiny_cnn(), "tiny_cnn"), options=PlanningOptions(patch_stage="2:rowsx2")),
                   "tiny_cnn.tflite")
    assert rows.to_json()["patch_stage"]["mode"] == "rows"
    assert "in row buffers in 2 column strips (rowsx2, " in format_analysis(rows)
    assert "row buffers in 2 column strips" in render_html(rows, b"", None, None, "no profile")


def test_the_packed_interface_keeps_the_model_whole() -> None:
    graph = read_model(tiny_cnn(), "tiny_cnn")
    assert compile_graph(graph, "packed", PlanningOptions(pools=(PoolSpec("", 1_000_000),))).stage is None
    with pytest.raises(UserError, match="--patches min: the packed interface calls one kernel per step"):
        compile_graph(graph, "packed", PlanningOptions(patches="min"))


def test_a_row_stage_reads_its_input_before_the_first_window_row_through_a_signed_offset(tmp_path) -> None:
    """A 5x5 first layer at stride 1: the rows of its second call start at the image's top (the window clipped), one
    row less than its row times the pitch, so the table stores a negative offset, in a signed field; in one strip
    (read in place) and in two (gathered), bit-exact with TFLM."""
    graph = CalibratedBuilder(name="wide_window", seed=2)
    x = graph.input("input", calibration_images(graph.rng, 4, 12, 12, 3), dtype="int8")
    x = graph.conv2d(x, 8, kernel=5, name="wide")
    x = graph.depthwise_conv2d(x, name="depthwise")
    graph.output(graph.conv2d(x, 4, kernel=1, name="after"))
    model = graph.build()
    for stage in ("1:rows", "1:rowsx2"):
        options = PlanningOptions(patch_stage=stage, io_in_pool=False, algorithm=QUICK)
        generate(read_model(model, "wide_window"), tmp_path / stage.replace(":", "_"), options=options)
        source = (tmp_path / stage.replace(":", "_") / "model.c").read_text()
        assert re.search(r"[^u]int(8|16)_t (read\[1\]|gather_offset);", source), stage
        report = validate_model(model, options=options)
        assert report.bit_exact, report.format()
