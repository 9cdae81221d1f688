"""On-target layer validation: the schedule run step by step on QEMU through the packed registry, every layer
compared with TFLite Micro; a corrupted layer is named; a bad packed call from the host becomes a message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from target_fixtures import needs_qemu

from firmware_gen.abi import constant_symbol as constant_name
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.layer_validation import validate_layers
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.framing import LinkError
from firmware_gen.link.step_session import PackedCallRefused, step_session
from firmware_gen.modelgen import zoo
from firmware_gen.target.cross_build import build_firmware

from conftest import run_cli, shared_model

pytestmark = [needs_qemu, pytest.mark.qemu]


def packed_firmware(data: bytes, name: str, board: str, out: Path, patch=None):
    graph = read_model(data, name)
    compiled = generate(graph, out / "model", source=name, interface="packed")
    if patch is not None:
        patch(graph, out / "model")
    return compiled, build_firmware(out / "model", board, out / "fw")


def test_every_op_model_is_bit_exact_layer_by_layer_on_mps2_an385(tmp_path: Path) -> None:
    data = zoo.every_op()
    compiled, firmware = packed_firmware(data, "every_op", "mps2_an385", tmp_path)
    report = validate_layers(data, compiled, firmware, random_inputs(compiled.graph, seed=1), source="every_op")
    assert report.bit_exact, report.format()
    assert report.tensors_compared == sum(len(op.outputs) for op in compiled.graph.operators)
    assert report.steps_run == sum(1 for step in compiled.steps if step.call is not None) > 10
    assert report.first_difference is None


def _corrupt_first_weight(op_index: int):
    """A patch that changes one weight byte of an operator: in its constant in model_weights.c, or, when the lowering
    rearranged the weights into a table of the step (a folded variant's taps), in that int8 table in model.c."""
    def patch(graph, model_dir: Path) -> None:
        name = constant_name(graph.operators[op_index].inputs[1])
        for path, pattern in ((model_dir / "model_weights.c", rf"{name}\[\d+\][^=]*= {{\s*(-?\d+)"),
                              (model_dir / "model.c", rf"int8_t step{op_index}_\w+\[\d+\][^=]*= {{\s*(-?\d+)")):
            text = path.read_text()
            match = re.search(pattern, text)
            if match:
                value = int(match[1])
                path.write_text(text[:match.start(1)] + str(value - 100 if value > 0 else value + 100)
                                + text[match.end(1):])
                return
        raise AssertionError(f"no weights of operator {op_index} found to corrupt")
    return patch


def test_a_corrupted_layer_is_named_as_the_first_that_differs(tmp_path: Path) -> None:
    data = zoo.tiny_cnn()
    graph = read_model(data, "tiny_cnn")
    depthwise = next(op for op in graph.operators if op.opcode == "DEPTHWISE_CONV_2D")
    assert depthwise.index > 0  # the layers before it must still be equal
    compiled, firmware = packed_firmware(data, "tiny_cnn", "mps2_an385", tmp_path, _corrupt_first_weight(
        depthwise.index))
    report = validate_layers(data, compiled, firmware, random_inputs(graph, seed=0), source="tiny_cnn")
    assert not report.bit_exact
    first = report.first_difference
    assert (first.op_index, first.opcode, first.tensor) == (depthwise.index, "DEPTHWISE_CONV_2D", depthwise.outputs[0])
    assert first.shape == list(graph.tensors[depthwise.outputs[0]].shape)
    assert first.differing_elements > 0 and first.max_abs_diff > 0
    assert all(m.op_index >= depthwise.index for m in report.mismatches)
    assert f"first differing layer: operator {depthwise.index} (DEPTHWISE_CONV_2D)" in report.format()
    assert report.to_json()["first_difference"]["op_index"] == depthwise.index


def test_bad_packed_calls_from_the_host_become_readable_messages(tmp_path: Path) -> None:
    data = zoo.tiny_cnn()
    compiled, firmware = packed_firmware(data, "tiny_cnn", "mps2_an385", tmp_path)
    graph = compiled.graph
    with step_session(firmware, graph, timeout=60) as session:
        with pytest.raises(PackedCallRefused, match=r"^packed call of step 99 refused: no such step$"):
            session.call_step(99)
        with pytest.raises(PackedCallRefused, match=r"argument 9 of step 0 refused: no such tensor argument"):
            session.read_tensor(0, 9)
        # The session goes on after a refusal: the step runs and its output comes back.
        session.call_step(0)
        output = session.read_tensor(0, len(compiled.steps[0].inputs))
        assert len(output) == graph.tensors[graph.operators[0].outputs[0]].nbytes


def test_the_firmware_refuses_a_call_with_the_wrong_argument_count_and_runs_no_kernel(tmp_path: Path) -> None:
    """The registry entry of step 1 is patched to pass one argument too few: its shim must refuse on the board."""
    def patch(graph, model_dir: Path) -> None:
        model_c = model_dir / "model.c"
        text, count = re.subn(r'(\{ "step1_\w+", [^}]*?), (\d+), (&fg_signature_\d+ \})',
                              lambda m: f"{m[1]}, {int(m[2]) - 1}, {m[3]}", model_c.read_text())
        assert count == 1
        model_c.write_text(text)

    data = zoo.tiny_cnn()
    compiled, firmware = packed_firmware(data, "tiny_cnn", "mps2_an385", tmp_path, patch)
    # Step 1's output, read as step 2's input (the patched entry has lost step 1's last argument).
    assert compiled.steps[2].inputs[0].index == compiled.steps[1].outputs[0].index
    with step_session(firmware, compiled.graph, timeout=60) as session:
        before = session.read_tensor(2, 0)
        with pytest.raises(PackedCallRefused, match=r"^packed call of step 1 \(DEPTHWISE_CONV_2D\) refused its "
                                                    r"arguments: wrong argument count$") as refused:
            session.call_step(1)
        assert refused.value.code == -1
        assert session.read_tensor(2, 0) == before
        session.call_step(2)  # the other steps still run


def test_an_unpacked_firmware_refuses_the_step_session_by_name(tmp_path: Path) -> None:
    data = zoo.tiny_cnn()
    graph = read_model(data, "tiny_cnn")
    generate(graph, tmp_path / "model", interface="unpacked")
    firmware = build_firmware(tmp_path / "model", "mps2_an385", tmp_path / "fw")
    with pytest.raises(LinkError, match="built without --interface packed"), \
            step_session(firmware, graph, timeout=60) as session:
        session.call_step(0)


def test_layers_needs_a_board(tmp_path: Path) -> None:
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(zoo.tiny_cnn())
    done = run_cli("validate", str(model), "--layers")
    assert done.returncode == 2 and "--layers" in done.stderr and "--board" in done.stderr


@pytest.mark.slow
def test_person_detect_is_bit_exact_layer_by_layer_on_qemu_cortex_m3() -> None:
    done = run_cli("validate", str(shared_model("person_detect")), "--board", "qemu_cortex_m3", "--layers", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["bit_exact"] is True and report["mismatches"] == [] and report["first_difference"] is None
    assert report["interface"] == "packed" and report["tensors_compared"] == 31 and report["steps_run"] == 30


@pytest.mark.slow
def test_kws_is_bit_exact_layer_by_layer_on_the_cortex_m33() -> None:
    """mps2_an521: the DSP variants as Armv8-M Mainline builds them, every tensor against TFLM."""
    done = run_cli("validate", str(shared_model("kws_ref_model")), "--board", "mps2_an521", "--layers", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["bit_exact"] is True and report["tensors_compared"] == 13 and report["steps_run"] == 12
