"""`validate MODEL --dataset FILE.npz --reference FLOAT.tflite` (issue 11): our dequantized outputs against the
float model run by LiteRT (the quantization error, as stedgeai validate reports it), on the synthetic pair
tiny_cnn int8 / its float twin (the shared models have no float twins); a reference that does not match, or no
LiteRT, refused in one line with exit status 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from firmware_gen.check.dataset import load_dataset, load_float_dataset
from firmware_gen.check.dataset_validation import compare_dataset
from firmware_gen.cli import main
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.modelgen.zoo import tiny_cnn_pair

from conftest import run_cli

pytest.importorskip("ai_edge_litert")
SAMPLES = 20


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("reference")
    quantized, reference = tiny_cnn_pair()
    (root / "tiny_cnn.tflite").write_bytes(quantized)
    (root / "tiny_cnn_float.tflite").write_bytes(reference)
    rng = np.random.default_rng(5)
    np.savez(root / "samples.npz", images=rng.uniform(-1, 1, (SAMPLES, 16, 16, 3)).astype(np.float32))
    np.save(root / "labels.npy", rng.integers(0, 4, SAMPLES))
    return {"model": root / "tiny_cnn.tflite", "reference": root / "tiny_cnn_float.tflite",
            "samples": root / "samples.npz", "labels": root / "labels.npy", "root": root}


def test_the_quantization_error_against_the_float_twin(pair: dict[str, Path]) -> None:
    done = run_cli("validate", str(pair["model"]), "--dataset", str(pair["samples"]), "--labels", str(pair["labels"]),
                   "--reference", str(pair["reference"]), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["bit_exact"] and report["reference"] == str(pair["reference"])
    (error,) = report["reference_outputs"]
    # Softmax outputs (probabilities) of a calibrated int8 graph: close to the float model's, yet not equal
    # (weights, activations and the output itself are quantized; the output's step is 1/256). Measured: max abs
    # error 0.47 (a sample whose two top logits nearly tie), RMSE 0.099, MAE 0.043, cosine 0.974.
    assert 0 < error["mae"] <= error["rmse"] <= error["max_abs_error"] <= 1
    assert 0.95 < error["cosine"] < 1.0
    assert set(report["accuracy"]) == {"ours", "tflm", "float"}
    assert report["accuracy"]["ours"] == report["accuracy"]["tflm"]


def test_the_reference_metrics_on_known_values() -> None:
    graph = read_model(tiny_cnn_pair()[0])
    q = graph.tensors[graph.outputs[0]].quantization  # scale 1/256, zero point -128
    ours = [[np.array([[-128, -128, 127, -128]], np.int8)], [np.array([[127, -128, -128, -128]], np.int8)]]
    floats = [[np.array([[0.0, 0.0, 1.0, 0.0]])], [np.array([[0.0, 1.0, 0.0, 0.0]])]]
    report = compare_dataset(graph, "m", ours, ours, np.array([2, 1]), floats, "f.tflite")
    (metrics,) = report.reference_outputs
    top = 255 * q.scale
    assert metrics.max_abs_error == pytest.approx(1.0)  # sample 1: class 1 is 1.0 in the float model, 0 in ours
    assert metrics.mae == pytest.approx((1 - top + top + 1) / 8)
    assert metrics.rmse == pytest.approx(np.sqrt(((1 - top) ** 2 + top ** 2 + 1) / 8))
    assert metrics.cosine == pytest.approx(0.5)  # 1 and 0
    assert report.accuracy == {"ours": 0.5, "tflm": 0.5, "float": 1.0}
    assert "top-1 accuracy: ours 50.00%, TFLM 50.00%, float model 100.00%" in report.format()


def test_the_float_model_gets_float_samples(tmp_path: Path) -> None:
    """Float samples as they are (ours gets them quantized), int8 samples dequantized with the input's parameters."""
    graph = read_model(tiny_cnn_pair()[0])
    q = graph.tensors[graph.inputs[0]].quantization
    floats = np.linspace(-1, 1, 2 * 16 * 16 * 3, dtype=np.float32).reshape(2, 16, 16, 3)
    np.savez(tmp_path / "f.npz", x=floats)
    quantized = load_dataset(str(tmp_path / "f.npz"), graph)[1][0]  # sample 1, (1, 16, 16, 3) int8
    np.savez(tmp_path / "q.npz", x=np.concatenate([quantized, quantized]))
    assert np.array_equal(load_float_dataset(str(tmp_path / "f.npz"), graph)[1][0], floats[1][None])
    dequantized = load_float_dataset(str(tmp_path / "q.npz"), graph)[0][0]
    assert dequantized.dtype == np.float32 and np.max(np.abs(dequantized - floats[1][None])) <= q.scale / 2 + 1e-6


def _refused(pair: dict[str, Path], reference: Path | str, capsys: pytest.CaptureFixture) -> str:
    status = main(["validate", str(pair["model"]), "--dataset", str(pair["samples"]), "--reference", str(reference)])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    return err


def _float_model(path: Path, input_shape: tuple[int, ...], output_shape: tuple[int, ...], dtype: str) -> Path:
    """input -> RESHAPE -> output."""
    model = ModelBuilder("mismatch")
    x = model.input("x", input_shape, dtype, scale=0.1 if dtype == "int8" else None)
    y = model.tensor("y", output_shape, dtype, scale=0.1 if dtype == "int8" else None)
    model.operator("RESHAPE", [x], [y])
    model.output(y)
    path.write_bytes(model.build())
    return path


def test_a_reference_that_does_not_match_is_refused(pair: dict[str, Path], capsys: pytest.CaptureFixture) -> None:
    root = pair["root"]
    (root / "other_float.tflite").write_bytes(_other_float_model())
    err = _refused(pair, root / "other_float.tflite", capsys)
    assert "input 0 ('input') has shape [1, 12, 12, 4]; the quantized model's input 0" in err
    assert "has [1, 16, 16, 3]" in err
    err = _refused(pair, _float_model(root / "wide.tflite", (1, 16, 16, 3), (1, 768), "float32"), capsys)
    assert "output 0 ('y') has shape [1, 768]" in err and "has [1, 4]" in err
    err = _refused(pair, _float_model(root / "int8.tflite", (1, 16, 16, 3), (1, 768), "int8"), capsys)
    assert "input 0 ('x') is int8; a float reference takes float32 inputs" in err
    (root / "not_a_model.tflite").write_bytes(b"not a flatbuffer")
    assert "LiteRT cannot load it" in _refused(pair, root / "not_a_model.tflite", capsys)
    assert "LiteRT cannot load it" in _refused(pair, root / "missing.tflite", capsys)


def _other_float_model() -> bytes:
    """The float twin of another model: a 12x12x4 input."""
    graph = CalibratedBuilder("other")
    x = graph.input("input", calibration_images(graph.rng, 4, 12, 12, 4))
    graph.output(graph.conv2d(x, 8, kernel=1, name="conv"))
    return graph.build_float_twin()


def test_without_litert_or_without_a_dataset(pair: dict[str, Path], capsys: pytest.CaptureFixture,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    status = main(["validate", str(pair["model"]), "--reference", str(pair["reference"])])
    assert status == 2 and "give --dataset FILE.npz too" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)
    monkeypatch.setitem(sys.modules, "ai_edge_litert.interpreter", None)
    assert "pip install 'firmware-gen[reference]'" in _refused(pair, pair["reference"], capsys)
