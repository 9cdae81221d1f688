"""A patch stage on QEMU boards: one model whose stage holds every kind of layer a stage takes (3x3
convolutions of 3 and 8 input channels, 3x3 depthwise layers of 8 and 6 channels, of stride 1 and 2 and of
multiplier 2, 1x1 convolutions, average and max pools, a
residual ADD whose block input is also read through a 3x3 window),
forced to run in a 2x3 grid (uneven columns: regions gathered and scattered) and in row buffers (the halos kept,
one full-width row a call; and up to the multiplier-2 depthwise in two column strips, two rows a call), built for
the Cortex-M3 (Armv7-M variants) and the Cortex-M4 (DSP variants); the outputs must equal TFLM's. One firmware
per board and stage."""

from __future__ import annotations

import pytest
from batched import assert_batch_bit_exact
from target_fixtures import needs_cross_gcc, needs_qemu, with_flash_wait_states

from firmware_gen.driver.compiler import compile_graph
from firmware_gen.driver.deploy import prepare
from firmware_gen.driver.patch_choice import call_count
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.boards import load_board
from firmware_gen.target.elf_image import read_elf

from conftest import shared_model


def stage_model() -> bytes:
    graph = CalibratedBuilder(name="patch_stage_layers", seed=5)
    x = graph.input("input", calibration_images(graph.rng, 4, 48, 48, 3), dtype="int8")
    x = graph.conv2d(x, 8, kernel=3, stride=2, name="stem")  # 24x24x8
    x = graph.depthwise_conv2d(x, name="depthwise")
    x = graph.conv2d(x, 6, kernel=3, name="conv6")  # 24x24x6: eight input channels, not for the DSP ring kernels
    x = graph.depthwise_conv2d(x, name="depthwise6")  # six channels: not for the DSP ring kernel either
    x = graph.conv2d(x, 16, kernel=1, name="pointwise")
    x = graph.depthwise_conv2d(x, stride=2, name="depthwise_s2")  # 12x12x16
    x = graph.average_pool(x, 3, stride=1, padding="SAME", name="average")
    x = graph.depthwise_conv2d(x, multiplier=2, name="depthwise_m2")  # 12x12x32
    x = graph.add(x, graph.depthwise_conv2d(x, name="branch"), name="residual")  # reads a rectangle of x: gathered
    x = graph.max_pool(x, 2, name="max")  # 6x6x32, the stage's output
    graph.output(graph.conv2d(x, 4, kernel=1, name="after"))
    return graph.build()


# mps2_an385: the planar depthwise on the grid's patches and one strip's rows, its portable kernel on column strips'
# thin calls.
EXPECTED = {"mps2_an385": ["fg_conv2d_pointwise_fused_floor_s8"],
            "mps2_an386": ["fg_conv2d_3x3_ring_dsp", "fg_depthwise_conv2d_3x3_ring_dsp", "fg_conv2d_folded_dsp",
                           "fg_depthwise_conv2d_planar_dsp", "fg_conv2d_pointwise_dsp", "fg_avg_pool2d_dsp",
                           "fg_add_dsp", "fg_depthwise_conv2d_3x3_taps_dsp"]}


@needs_qemu
@pytest.mark.parametrize("stage", ["10:2x3", "10:rows", "7:rowsx2/2"])
@pytest.mark.parametrize("board", sorted(EXPECTED))
def test_a_stage_of_every_layer_kind_is_bit_exact_on_the_board(board: str, stage: str, tmp_path) -> None:
    options = PlanningOptions(algorithm="greedy_by_conflicts", patch_stage=stage)
    thin = {"mps2_an385": ["fg_depthwise_conv2d_3x3_s8" if "rowsx" in stage else "fg_depthwise_conv2d_3x3_planar_s8"]}
    functions = assert_batch_bit_exact([stage_model()], board, tmp_path / "build", options=options,
                                       expect_functions=EXPECTED[board] + thin.get(board, []))
    assert "fg_max_pool2d_s8" in functions


@needs_qemu
def test_a_stage_of_staged_weights_is_bit_exact(tmp_path) -> None:
    """On a board whose flash has wait states (mps2_an386 timed as an STM32L4R5's), the stage's convolutions read their
    weights staged in RAM (ops/variants/dsp_staged.py), each patch's call staging them again."""
    options = PlanningOptions(algorithm="greedy_by_conflicts", patch_stage="10:2x3")
    assert_batch_bit_exact([stage_model()], with_flash_wait_states("mps2_an386"), tmp_path / "build", options=options,
                           expect_functions=["fg_conv2d_folded_staged_dsp", "fg_conv2d_pointwise_staged_dsp"])


@needs_cross_gcc
def test_a_row_stage_takes_a_few_bytes_of_flash_a_call(tmp_path) -> None:
    """A row stage's table of kernel calls is in flash, which qemu_cortex_m3 has 256 KiB of: a call is two bytes
    (which distinct call, its first row), a distinct call its geometry and offsets in narrow fields, each layer one
    params struct (the call's geometry set on a copy). Counted from the ELF's symbols: the stage's tables and its
    layers' params structs, per call (66.9 B when a call was a pointer to one of the params structs of every distinct
    geometry and five int32 offsets and a region)."""
    options = PlanningOptions(algorithm="greedy_by_conflicts", patch_stage="7:rowsx2/2")
    deployment = prepare(stage_model(), "patch_stage_layers.tflite", "qemu_cortex_m3", out_dir=tmp_path / "build",
                         options=options)
    stage = deployment.compiled.stage.stage
    params = [f"step{deployment.graph.operators[p].index}_params" for p in stage.positions]
    tables = [s for s in read_elf(deployment.firmware.elf).symbols
              if s.name.startswith("fg_stage_") or any(s.name == n or s.name.startswith(n + "_") for n in params)]
    assert sum(s.size for s in tables) <= 16 * len(stage.calls), tables
    assert {"fg_stage_calls", "fg_stage_kinds"} <= {s.name for s in tables}


@needs_cross_gcc
def test_min_takes_a_stage_of_fewer_calls_when_the_chosen_one_overflows_the_flash(tmp_path) -> None:
    """person_detect on qemu_cortex_m3 (256 KiB of flash), --patches min --no-io-in-pool: the smallest pool's stage,
    two column strips, leaves a firmware a few hundred bytes over the flash once the 1x1 layers after it run their
    expanded kernel (the chooser does not weigh flash); the build takes a stage of fewer calls that fits."""
    messages: list[str] = []
    options = PlanningOptions(patches="min", io_in_pool=False)
    model = shared_model("person_detect").read_bytes()
    planned = compile_graph(read_model(model, "person_detect.tflite"), options=options,
                            isa=load_board("qemu_cortex_m3").isa)
    deployment = prepare(model, "person_detect.tflite", "qemu_cortex_m3", out_dir=tmp_path / "build",
                         progress=messages.append, options=options)
    first = call_count(planned.stage.stage)
    assert any(f"trying a patch stage of fewer than {first} kernel calls" in m for m in messages), messages
    stage = deployment.compiled.stage
    assert stage is not None and call_count(stage.stage) < first
    assert planned.plan.pool_bytes < deployment.compiled.plan.pool_bytes <= 14_208
