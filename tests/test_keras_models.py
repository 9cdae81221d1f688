"""Models the TFLite converter exported from standard Keras layers (tests/fixtures/keras/, written by
scripts/export_keras_models.py): each compiles and is bit-exact with TFLite Micro on the host (every tensor,
sanitizers on) and on mps2_an386 (their outputs, in one firmware); Keras 3's UpSampling2D (TILE) is refused as
TFLM refuses it; the export script, where TensorFlow is at hand, writes models that compile."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from target.batched import assert_batch_bit_exact, merge_models
from target.target_fixtures import needs_qemu

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import compile_graph
from firmware_gen.errors import UnsupportedModelError, UserError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.ops import check_supported

from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "keras"
EXPORT_SCRIPT = REPO / "scripts" / "export_keras_models.py"

# What each model is there for: the operators the converter made of its Keras layers (Keras 3, then Keras 2).
_CNN = {"CONV_2D", "DEPTHWISE_CONV_2D", "HARD_SWISH", "LOGISTIC", "MUL", "LEAKY_RELU", "PRELU", "ADD", "SUB",
        "MAX_POOL_2D", "AVERAGE_POOL_2D", "CONCATENATION", "MEAN", "RESHAPE", "FULLY_CONNECTED", "SOFTMAX"}
_UNET = {"CONV_2D", "MAX_POOL_2D", "TRANSPOSE_CONV", "RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR", "CONCATENATION",
         "RESHAPE"}
# MultiHeadAttention, LayerNormalization and the unrolled GRU; Keras 3's LayerNormalization leaves its -mean in
# float (DEQUANTIZE, NEG, QUANTIZE).
_SEQUENCE = {"FULLY_CONNECTED", "BATCH_MATMUL", "TRANSPOSE", "SOFTMAX", "MEAN", "SQUARED_DIFFERENCE", "RSQRT",
             "UNPACK", "SPLIT", "LOGISTIC", "TANH", "SUB", "MUL", "ADD"}
# Operators of the float islands, which the converter does not always leave in the same places.
_FLOAT_ISLAND = {"DEQUANTIZE", "NEG", "QUANTIZE"}
EXPECTED_OPERATORS = {
    "keras_cnn": _CNN, "keras_unet": _UNET, "keras_sequence": _SEQUENCE | _FLOAT_ISLAND,
    "tf_keras_cnn": _CNN, "tf_keras_unet": _UNET, "tf_keras_sequence": _SEQUENCE | {"SPLIT_V"},
    "tf_keras_upsampling": {"CONV_2D", "RESIZE_NEAREST_NEIGHBOR"},
}
MODELS = list(EXPECTED_OPERATORS)
REFUSED = "keras_upsampling"  # Keras 3's UpSampling2D: TILE


def _fixture(name: str) -> bytes:
    return (FIXTURES / f"{name}.tflite").read_bytes()


@pytest.mark.parametrize("name", MODELS)
def test_converter_output_holds_the_operators_of_its_layers(name):
    assert EXPECTED_OPERATORS[name] <= {op.opcode for op in read_model(_fixture(name)).operators}


@pytest.mark.parametrize("name", MODELS)
def test_keras_model_is_bit_exact_on_the_host(name):
    report = validate_model(_fixture(name), seed=3, sanitize=True)
    assert report.bit_exact, report.format()
    assert report.tensors_compared >= len(read_model(_fixture(name)).operators)


@needs_qemu
@pytest.mark.qemu
def test_keras_models_are_bit_exact_on_mps2_an386(tmp_path):
    """All of them side by side in one firmware (one build instead of seven); the merged model keeps every
    operator and option of the converter's (the writer only adds RESHAPE's new_shape, equal to the output's
    shape)."""
    models = [_fixture(name) for name in MODELS]
    merged, _ = merge_models(models)
    ours = [(op.opcode, {k: v for k, v in op.options.items() if k != "new_shape"})
            for op in read_model(merged).operators]
    assert ours == [(op.opcode, dict(op.options)) for model in models for op in read_model(model).operators]
    assert_batch_bit_exact(models, "mps2_an386", tmp_path, seed=4)


def test_upsampling2d_is_refused_as_tflite_micro_refuses_it():
    """Keras 3's UpSampling2D converts to TILE: no kernel in TFLite Micro, so none here; the refusal says what to
    use instead."""
    data = _fixture(REFUSED)
    graph = read_model(data, REFUSED)
    assert "TILE" in {op.opcode for op in graph.operators}
    with pytest.raises(UnsupportedModelError, match=r"TILE, which TensorFlow Lite Micro has no kernel for .*"
                                                    r"Resizing\(interpolation=\"nearest\"\)"):
        check_supported(graph)
    with pytest.raises(UserError, match="TensorFlow Lite Micro failed on this model"):
        run_tflm(data, random_inputs(graph, seed=0), len(graph.tensors))


def _python_with_tensorflow() -> str | None:
    """This interpreter if it has TensorFlow, else the one FG_TENSORFLOW_PYTHON names (e.g. /work/tfvenv/bin/python)."""
    if importlib.util.find_spec("tensorflow") is not None:
        return sys.executable
    return os.environ.get("FG_TENSORFLOW_PYTHON") or None


def test_export_script_writes_models_that_compile(tmp_path):
    python = _python_with_tensorflow()
    if python is None:
        pytest.skip("TensorFlow is not installed here (it is too big for the project's test install); set "
                    "FG_TENSORFLOW_PYTHON to a Python that has it (see scripts/export_keras_models.py)")
    for legacy in ("0", "1"):  # Keras 3, then Keras 2 where tf_keras is installed beside TensorFlow
        environment = {**os.environ, "TF_USE_LEGACY_KERAS": legacy}
        done = subprocess.run([python, str(EXPORT_SCRIPT), str(tmp_path)], capture_output=True, text=True,
                              timeout=600, env=environment)
        assert done.returncode == 0 or (legacy == "1" and "tf_keras" in done.stderr), done.stderr[-2000:]
    written = {path.stem: path.read_bytes() for path in tmp_path.glob("*.tflite")}
    assert set(written) >= {name for name in MODELS if not name.startswith("tf_")} | {REFUSED}
    with pytest.raises(UnsupportedModelError, match="TILE"):
        check_supported(read_model(written.pop(REFUSED), REFUSED))
    for name, data in written.items():
        graph = read_model(data, name)
        compile_graph(graph)
        assert EXPECTED_OPERATORS[name] - _FLOAT_ISLAND <= {op.opcode for op in graph.operators}
