"""`firmware-gen run`'s outputs: raw and dequantized side by side, the top-5 of a classifier, --save-outputs, and
the inference time in milliseconds at the board's clock (instructions at the nominal clock under QEMU)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from target.target_fixtures import needs_qemu

from firmware_gen import cli
from firmware_gen.check.run_report import build_run_report, check_save_path, is_classifier, run_json, save_outputs
from firmware_gen.errors import UserError
from firmware_gen.frontend.tflite_reader import load_model
from firmware_gen.link.runner import RunResult
from firmware_gen.modelgen import zoo
from firmware_gen.target.boards import list_boards, load_board

NOMINAL_HZ = {"qemu_cortex_m3": 50_000_000, "mps2_an385": 25_000_000, "mps2_an386": 25_000_000,
              "mps2_an500": 25_000_000, "mps2_an521": 20_000_000, "mps3_an547": 32_000_000, "microbit": 16_000_000,
              "mps2_an385_armv6m": 25_000_000}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("run-output") / "tiny_cnn.tflite"
    path.write_bytes(zoo.tiny_cnn())
    return path


def _result(raw: list[int], board: str, counter: str = "systick") -> RunResult:
    emulated = load_board(board).emulated
    return RunResult(outputs=[np.array([raw], dtype=np.int8)], step_cycles=[10] * 6,
                     instructions=2_500_000 if emulated else None, exit_code=0 if emulated else None,
                     step_instructions=[400] * 6 if emulated else None, total_cycles=62_500 if emulated else 160_000,
                     counter=counter, board=board)


def test_every_qemu_board_states_its_nominal_clock() -> None:
    assert {name: load_board(name).core_hz for name in list_boards(emulated=True)} == NOMINAL_HZ
    assert all(load_board(name).uart_clock_hz == 0 for name in NOMINAL_HZ)  # QEMU builds keep no baud divisor


def test_dequantized_beside_raw_and_the_top_of_a_classifier(tiny) -> None:
    graph = load_model(tiny)
    q = graph.tensors[graph.outputs[0]].quantization
    report = build_run_report(graph, _result([-128, 100, 5, 100], "mps2_an385"), load_board("mps2_an385"))
    output = report.outputs[0]
    assert output.top == [1, 3, 2, 0]  # best first, ties by class index
    assert np.allclose(output.dequantized, q.scale * (np.array([[-128, 100, 5, 100]]) - q.zero_points[0]))
    text = report.format()
    raw_line, real_line = (line.split() for line in text.splitlines()[1:3])
    assert raw_line == ["raw", "-128", "100", "5", "100"]
    assert real_line[0] == "dequantized" and float(real_line[2]) == pytest.approx(output.dequantized[0, 1], 1e-3)
    assert "top-4:" in text
    assert "inference: 100 ms on mps2_an385 (QEMU: 2,500,000 instructions at the board's nominal 25 MHz" in text
    assert "an estimate, not a measurement" in text


def test_classifier_outputs_are_rank_2_of_two_or_more_scores() -> None:
    assert is_classifier((1, 2)) and is_classifier((1, 1000))
    assert not is_classifier((1, 1)) and not is_classifier((1, 4, 4)) and not is_classifier((2, 10))


def test_qemu_json_drops_systick_ticks_and_labels_the_time(tiny) -> None:
    graph = load_model(tiny)
    result = _result([0, 1, 2, 3], "qemu_cortex_m3")
    data = run_json(build_run_report(graph, result, load_board("qemu_cortex_m3")), result)
    assert not {"total_cycles", "step_cycles", "counter"} & set(data)
    assert data["time"] == {"milliseconds": 50.0, "count": 2_500_000, "unit": "instructions",
                            "clock_hz": 50_000_000, "estimated_from_instructions": True}
    assert data["outputs"][0]["top5"][0] == {"class": 3, "raw": 3, "value": pytest.approx(
        data["outputs"][0]["dequantized"][0][3])}


def test_a_real_board_converts_its_cycles_at_its_core_clock(tiny) -> None:
    graph = load_model(tiny)
    result = _result([0, 1, 2, 3], "nucleo_f746zg", counter="dwt")
    report = build_run_report(graph, result, load_board("nucleo_f746zg"))
    data = run_json(report, result)
    assert data["time"]["milliseconds"] == 10.0 and data["count_unit"] == "cycles"
    assert data["total_cycles"] == 160_000 and data["counter"] == "dwt"
    assert "inference: 10 ms on nucleo_f746zg (160,000 cycles at 16 MHz)" in report.format()


def test_save_outputs_npy_and_npz(tmp_path) -> None:
    outputs = [np.arange(4, dtype=np.int8).reshape(1, 4), np.array([[-3]], dtype=np.int8)]
    save_outputs(str(tmp_path / "one.npy"), outputs[:1])
    assert np.array_equal(np.load(tmp_path / "one.npy"), outputs[0])
    save_outputs(str(tmp_path / "all.npz"), outputs)
    with np.load(tmp_path / "all.npz") as saved:
        assert [saved["output_0"].tolist(), saved["output_1"].tolist()] == [o.tolist() for o in outputs]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.npz", "one.npy"]  # no temporary left


@pytest.mark.parametrize(("name", "outputs", "message"), [
    ("out.txt", None, "give a .npy file (one output) or a .npz file"),
    ("missing/out.npy", None, "no such directory"),
    ("out.npy", 2, "the model has 2 outputs and a .npy holds one array: give a .npz file"),
])
def test_a_bad_save_path_is_one_line(tmp_path, name: str, outputs: int | None, message: str) -> None:
    with pytest.raises(UserError) as error:
        check_save_path(str(tmp_path / name), outputs)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_bad_save_path_fails_before_the_build(tmp_path, capsys) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(b"never read")
    assert cli.main(["run", str(model), "--board", "mps2_an385", "--save-outputs", str(tmp_path / "o.csv")]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "--save-outputs" in error


@needs_qemu
def test_run_on_qemu_text_json_and_saved_outputs(tiny, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    saved = tmp_path / "out.npy"
    argv = ["run", str(tiny), "--board", "mps2_an385"]
    assert cli.main([*argv, "--save-outputs", str(saved)]) == 0
    text = capsys.readouterr().out
    assert "dequantized" in text and "top-4:" in text and f"wrote {saved}" in text
    assert "ms on mps2_an385 (QEMU:" in text
    assert cli.main([*argv, "--json"]) == 0  # the cached firmware
    data = json.loads(capsys.readouterr().out)
    assert np.array_equal(np.load(saved), np.array(data["outputs"][0]["raw"], dtype=np.int8))
    assert data["time"]["milliseconds"] == pytest.approx(data["instructions"] / 25_000)
    assert "step_cycles" not in data and len(data["outputs"][0]["top5"]) == 4
    assert cli.main([*argv, "--cycles"]) == 0  # the estimate: labelled, per step, beside the exact count
    text = capsys.readouterr().out
    assert "est. cycles" in text and "an ESTIMATE, not a measurement (cortex-m3 timing model" in text
    assert "memory assumed: Arm MPS2 FPGA image AN385" in text
    assert cli.main([*argv, "--cycles", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    estimate = data["cycle_estimate"]
    assert estimate["estimate"] is True and estimate["core"] == "cortex-m3"
    assert len(estimate["step_cycles"]) == len(data["profile"]) and sum(estimate["step_cycles"]) < estimate["cycles"]
    assert abs(estimate["trace_instructions"] - data["instructions"]) < 200  # SysTick: 40-instruction ticks
    assert [layer["estimated_cycles"] for layer in data["profile"]] == estimate["step_cycles"]


def test_cycles_refuse_a_core_without_timing_model_in_one_line(tmp_path, capsys) -> None:
    from firmware_gen.resources import BOARDS_DIR

    board = tmp_path / "m23.toml"
    board.write_text((BOARDS_DIR / "mps2_an385.toml").read_text().replace('core = "cortex-m3"', 'core = "cortex-m23"'))
    model = tmp_path / "tiny.tflite"
    model.write_bytes(zoo.tiny_cnn())
    assert cli.main(["run", str(model), "--board", str(board), "--cycles"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and str(board) in error and "core 'cortex-m23'" in error
