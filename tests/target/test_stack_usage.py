"""The worst-case stack from the compiler's call graph (target/stack_bound.py) against the high-water mark the
firmware measures (its painted stack, the STACK frame), the fit check, and the bound an application gets for the
model alone (target/model_stack.py, generate --zephyr --board)."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path

import pytest
from target_fixtures import FIXTURE_MODEL, needs_cross_gcc, needs_qemu

from firmware_gen import cli
from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.deploy import prepare
from firmware_gen.errors import DoesNotFitError
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen import zoo
from firmware_gen.resources import BOARDS_DIR
from firmware_gen.target.boards import list_boards, load_board
from firmware_gen.target.call_graph_info import INDIRECT, FunctionFrame, ObjectCallGraph, parse_call_graph
from firmware_gen.target.cross_build import build_firmware
from firmware_gen.target.model_stack import model_stack_bytes
from firmware_gen.target.stack_bound import EXCEPTION_FRAME_BYTES, stack_bound
from firmware_gen.target.thumb_code import CodeFunction, ThumbImage, read_thumb_image

from conftest import SHARED_MODEL_NAMES, run_cli, shared_model

# Each shared model on a QEMU board, every board at least once: nine runs (ad01_int8's weights do not fit
# qemu_cortex_m3's flash; the micro:bit's 16 KiB of RAM hold micro_speech). kws_ref_model's depthwise layers take
# the Armv6-M kernel with its run-time-sized arrays, bounded by the sizes the generator gives them; on
# mps2_an385_armv6m a weight once sat at the address of a debug-info relocation and was read as a function pointer.
PAIRS = [("person_detect", "mps2_an385"), ("vww_96_int8", "mps2_an386"), ("kws_ref_model", "mps2_an500"),
         ("pretrainedResnet_quant", "mps3_an547"), ("ad01_int8", "mps2_an385_armv6m"),
         ("hello_world_int8", "qemu_cortex_m3"), ("micro_speech_quantized", "microbit"),
         ("kws_ref_model", "mps2_an385_armv6m"), ("kws_ref_model", "mps2_an521")]
# Where the bound is more than 25 % above the measurement, and why.
# (None now. ad01_int8 on Cortex-M3, not among the pairs, is: its fully connected layers take
# fg_fully_connected_folded_s8's one-batch path, the bound its batched path through fg_blocked_pair_s8, chosen at run
# time by a parameter: 924 B bound, 316 B measured.)
LOOSER: dict[str, str] = {}

CALL_GRAPH = """graph: { title: "/tmp/x/kernels/a.c"
node: { title: "top" label: "top\\n/tmp/x/kernels/a.c:6:5\\n120 bytes (static)" }
node: { title: "/tmp/x/kernels/a.c:walk" label: "walk\\n/tmp/x/kernels/a.c:2:38\\n80 bytes (dynamic)" }
node: { title: "__indirect_call" label: "Indirect Call Placeholder" shape : ellipse }
edge: { sourcename: "top" targetname: "/tmp/x/kernels/a.c:walk" label: "/tmp/x/kernels/a.c:6:45" }
edge: { sourcename: "/tmp/x/kernels/a.c:walk" targetname: "__indirect_call" label: "/tmp/x/kernels/a.c:3:9" }
edge: { sourcename: "top" targetname: "memcpy" }
}"""


def test_a_call_graph_file_names_local_functions_by_file_not_folder():
    graph = parse_call_graph(CALL_GRAPH)
    assert graph.frames["top"].bytes == 120 and graph.frames["top"].bounded
    assert graph.frames["walk@a.c"].bytes == 80 and not graph.frames["walk@a.c"].bounded
    assert graph.calls == {"top": {"walk@a.c", "memcpy"}, "walk@a.c": {INDIRECT}}


@needs_cross_gcc
def test_a_recursion_is_named_not_bounded(tmp_path: Path):
    build = build_firmware(FIXTURE_MODEL, "mps2_an385", tmp_path,
                           extra_cflags=["-DFG_TEST_STACK_OVERFLOW", "-Wno-infinite-recursion"])
    assert build.stack is not None and not build.stack.exact
    assert "recursion: deep@model.c > deep@model.c" in build.stack.problems
    assert not list((tmp_path / "obj").glob("*.ci"))  # read, then removed: they name the build's folders


@needs_cross_gcc
def test_a_stack_that_does_not_fit_is_refused_before_anything_runs(tmp_path: Path):
    board = dataclasses.replace(load_board("qemu_cortex_m3"), stack_bytes=128)
    with pytest.raises(DoesNotFitError) as refused:
        build_firmware(FIXTURE_MODEL, board, tmp_path)
    message = str(refused.value)
    assert "\n" not in message
    assert re.fullmatch(r"the firmware's stack does not fit: needs [\d,]+ B, qemu_cortex_m3 has 128 B; deepest "
                        r"path: Reset_Handler \(0\) > fg_reset \(\d+\) > main .* > \(exception entry\) \(36\)", message)


def test_the_runs_cover_every_shared_model_and_qemu_board():
    assert {name for name, _ in PAIRS} == set(SHARED_MODEL_NAMES)
    assert {board for _, board in PAIRS} == set(list_boards(emulated=True))


@needs_qemu
@pytest.mark.qemu
@pytest.mark.parametrize(("name", "board"), PAIRS)
def test_the_measured_stack_never_exceeds_the_bound(name: str, board: str):
    data = shared_model(name).read_bytes()
    deployment = prepare(data, f"{name}.tflite", board)
    bound = deployment.firmware.stack
    assert bound is not None and bound.exact, bound and bound.problems
    result = run_model(deployment.firmware, random_inputs(deployment.compiled.graph, seed=0), timeout=600)
    measured = result.stack_bytes_used
    assert result.to_json()["stack_bytes_bound"] == bound.thread.bytes
    assert measured is not None and 0 < measured <= bound.thread.bytes <= deployment.firmware.board.stack_bytes
    if name not in LOOSER:
        assert bound.thread.bytes <= 1.25 * measured, f"bound {bound.thread.bytes} B, measured {measured} B"


@needs_cross_gcc
def test_a_zephyr_module_carries_the_models_stack(tmp_path: Path, capsys: pytest.CaptureFixture):
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(zoo.tiny_cnn())
    out = tmp_path / "module"
    assert cli.main(["generate", str(model), "-o", str(out), "--zephyr", "--board", "mps2_an386"]) == 0
    capsys.readouterr()
    text = (out / "zephyr" / "stack.cmake").read_text()
    needed = model_stack_bytes(out, "mps2_an386")
    assert f"set(FIRMWARE_GEN_MODEL_STACK_BYTES {needed})\n" in text
    assert "fg_model_run (" in text and "(exception entry) (108)" in text  # the FP context of an M4F


@needs_cross_gcc
def test_run_on_a_board_whose_stack_is_too_small_is_one_line_and_exit_2(tmp_path: Path):
    """Refused after the link, before QEMU starts: the bytes needed, the bytes there are, the deepest path."""
    board = tmp_path / "tiny_stack.toml"
    board.write_text((BOARDS_DIR / "qemu_cortex_m3.toml").read_text().replace("[stack]\nbytes = 4096",
                                                                             "[stack]\nbytes = 512"))
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(zoo.tiny_cnn())
    done = run_cli("run", str(model), "--board", str(board))
    assert done.returncode == 2, done.stderr
    error = done.stderr.splitlines()[-1]
    assert "Traceback" not in done.stderr and "QEMU" not in done.stderr, done.stderr
    assert re.fullmatch(r"firmware-gen: error: the firmware's stack does not fit: needs [\d,]+ B, qemu_cortex_m3 has "
                        r"512 B; deepest path: Reset_Handler \(0\) > .* > \(exception entry\) \(36\)", error), error


def test_what_inline_assembly_pushes_is_in_the_bound():
    # gcc gives a naked function (or inline assembly's pushes) no frame; the ELF's pushes are counted instead.
    graph = ObjectCallGraph(frames={"Reset_Handler": FunctionFrame("Reset_Handler", 8, True),
                                    "fg_sums": FunctionFrame("fg_sums", 0, True)},
                            calls={"Reset_Handler": {"fg_sums"}})
    image = ThumbImage(functions={"Reset_Handler": CodeFunction("Reset_Handler", 0x100, 16, 8, frozenset({"fg_sums"})),
                                  "fg_sums": CodeFunction("fg_sums", 0x200, 64, 100, frozenset())},
                       address_taken={}, entry="Reset_Handler")
    bound = stack_bound(graph, image, {}, fpu=False)
    assert bound.thread.calls[:2] == (("Reset_Handler", 8), ("fg_sums", 100))
    assert bound.thread.bytes == 8 + 100 + EXCEPTION_FRAME_BYTES


@needs_cross_gcc
def test_a_literal_that_reads_as_a_stack_reservation_is_data(tmp_path: Path):
    # The literal's low half, 0xB0F8, is the encoding of SUB SP, SP, #480; the mapping symbol $d marks it as data.
    source = tmp_path / "literal.S"
    source.write_text(".syntax unified\n.thumb\n.text\n.global reads_a_literal\n.thumb_func\n"
                      "reads_a_literal:\n    push {r4, lr}\n    ldr r4, =0x1000B0F8\n    pop {r4, pc}\n"
                      ".ltorg\n.size reads_a_literal, . - reads_a_literal\n")
    elf = tmp_path / "literal.elf"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-nostdlib", "-Wl,-ereads_a_literal", "-o",
                    str(elf), str(source)], check=True, capture_output=True)
    assert read_thumb_image(elf).functions["reads_a_literal"].frame_bytes == 8
