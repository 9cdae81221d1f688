"""The importer: real models read into the IR, and every kind of bad file refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from firmware_gen.errors import ModelFormatError, UnsupportedModelError, UserError
from firmware_gen.frontend.ir import DType
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder

from conftest import SHARED_MODEL_NAMES, run_cli, shared_model

WEIGHT_BYTES = {  # ../shared/models/README.md
    "person_detect": 218928, "vww_96_int8": 219072, "kws_ref_model": 24376, "pretrainedResnet_quant": 78752,
    "ad01_int8": 270880, "hello_world_int8": 420, "micro_speech_quantized": 16704,
}


def small_fc_model(dtype: str = "int8", opcode: str = "FULLY_CONNECTED") -> bytes:
    b = ModelBuilder("small_fc")
    quantized = dtype != "float32"
    x = b.input("x", (1, 8), dtype, scale=0.1 if quantized else None, zero_point=3 if quantized else 0)
    weights = np.arange(-16, 16, dtype=np.int8 if quantized else np.float32).reshape(4, 8)
    w = b.constant("w", weights, scale=[0.02] if quantized else None, zero_point=[0] if quantized else 0)
    y = b.tensor("y", (1, 4), dtype, scale=0.2 if quantized else None, zero_point=-1 if quantized else 0)
    b.operator(opcode, inputs=[x, w, -1], outputs=[y], options={"activation": "RELU"})
    b.output(y)
    return b.build()


@pytest.mark.parametrize("name", SHARED_MODEL_NAMES)
def test_reads_shared_models(name: str) -> None:
    path = shared_model(name)
    graph = read_model(path.read_bytes(), str(path))
    assert sum(t.nbytes for t in graph.tensors if t.is_constant) == WEIGHT_BYTES[name]
    assert all(graph.tensors[i].dtype is DType.INT8 for i in graph.inputs)


def test_accepts_rank1_bias_with_quantized_dimension_3() -> None:
    path = shared_model("person_detect")
    graph = read_model(path.read_bytes(), str(path))
    biases = [t for t in graph.tensors if t.is_constant and t.dtype is DType.INT32 and t.quantization
              and len(t.shape) == 1]
    assert len(biases) >= 14
    assert all(t.quantization.axis == 0 for t in biases if not t.quantization.per_channel)


def test_reads_a_written_model() -> None:
    graph = read_model(small_fc_model())
    assert [op.opcode for op in graph.operators] == ["FULLY_CONNECTED"]
    assert graph.operators[0].inputs == (0, 1, -1)
    assert graph.operators[0].options["activation"] == "RELU"
    assert graph.tensors[0].quantization.zero_point == 3


def test_every_truncation_is_a_format_error() -> None:
    data = small_fc_model()
    for length in range(0, len(data) - 8, 7):
        with pytest.raises(UserError):
            read_model(data[:length], "truncated.tflite")


def test_random_bytes_are_refused() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        junk = bytearray(rng.integers(0, 256, int(rng.integers(0, 4096)), dtype=np.uint8).tobytes())
        if len(junk) >= 8 and rng.random() < 0.5:
            junk[4:8] = b"TFL3"  # get past the identifier check
        with pytest.raises(UserError):
            read_model(bytes(junk), "junk.tflite")


def test_flipped_bytes_never_escape_as_other_exceptions() -> None:
    data = small_fc_model()
    rng = np.random.default_rng(1)
    for _ in range(200):
        corrupt = bytearray(data)
        for position in rng.integers(8, len(data), 4):
            corrupt[position] = int(rng.integers(0, 256))
        try:
            read_model(bytes(corrupt), "flipped.tflite")
        except UserError:
            pass


def test_out_of_range_tensor_index() -> None:
    b = ModelBuilder("bad_index")
    x = b.input("x", (1, 4), "int8", scale=0.1)
    y = b.tensor("y", (1, 4), "int8", scale=0.1)
    b.operator("ADD", inputs=[x, 99], outputs=[y])
    b.output(y)
    with pytest.raises(ModelFormatError, match="tensor 99"):
        read_model(b.build(), "bad.tflite")


def test_unsupported_operator_names_itself_and_the_supported_ones() -> None:
    b = ModelBuilder("relu_n1_to_1")  # TFLite Micro has no RELU_N1_TO_1 kernel, so neither do we (issue 15)
    x = b.input("x", (1, 4), "int8", scale=0.1)
    y = b.tensor("y", (1, 4), "int8", scale=1 / 128)
    b.operator("RELU_N1_TO_1", inputs=[x], outputs=[y])
    b.output(y)
    from firmware_gen.ops import check_supported

    with pytest.raises(UnsupportedModelError, match=r"operator 0 is RELU_N1_TO_1.*supported: .*CONV_2D"):
        check_supported(read_model(b.build(), "relu_n1_to_1.tflite"))


@pytest.mark.parametrize("case", ["not_tflite", "truncated", "float_model", "missing"])
def test_cli_prints_one_line_and_exits_2(case: str, tmp_path) -> None:
    path = tmp_path / f"{case}.tflite"
    if case == "not_tflite":
        path.write_text("this is not a model\n")
    elif case == "truncated":
        path.write_bytes(small_fc_model()[:200])
    elif case == "float_model":
        path.write_bytes(small_fc_model(dtype="float32"))
    done = run_cli("inspect", str(path))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("firmware-gen: error:"), done.stderr
