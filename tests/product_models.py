"""The two models of the product application (tests/fixtures/product_app), generated as a user would, and what
TensorFlow Lite Micro computes for the inputs the application writes. Shared by the host and the QEMU tests."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import load_model
from firmware_gen.isa import PORTABLE, Isa

APP_DIR = Path(__file__).resolve().parent / "fixtures" / "product_app"
# name -> (shared model, its generation options, the app's input pattern: byte i = i * step + start)
MODELS = {
    "kws": ("kws_ref_model", GenerationOptions(name="kws"), (29, 5)),
    "speech": ("micro_speech_quantized", GenerationOptions(name="speech", pool_from_app=True,
                                                            weights_section=".ext_flash"), (37, 11)),
}
EXPECTED_POOL_STATUS = [-16, -17, -18, 0]  # no pool, too small, misaligned, accepted (abi.ModelStatus)


def generate_models(models_dir: Path, model_path, isa: Isa = PORTABLE) -> dict[str, Path]:
    """Generate both models into models_dir/<name>; model_path(shared name) -> the .tflite path."""
    dirs = {}
    for name, (shared, options, _) in MODELS.items():
        graph = load_model(model_path(shared))
        generate(graph, models_dir / name, source=f"{shared}.tflite", isa=isa, generation=options)
        dirs[name] = models_dir / name
    return dirs


def app_input(graph_input_shape: tuple[int, ...], dtype: np.dtype, pattern: tuple[int, int]) -> np.ndarray:
    count = int(np.prod(graph_input_shape))
    data = ((np.arange(count, dtype=np.int64) * pattern[0] + pattern[1]) & 0xFF).astype(np.uint8)
    return data.view(dtype).reshape(graph_input_shape)


def tflm_outputs(model_path) -> dict[str, bytes]:
    """Each model's output for the application's input, as TFLM computes it."""
    expected = {}
    for name, (shared, _, pattern) in MODELS.items():
        path = model_path(shared)
        graph = load_model(path)
        tensor = graph.tensors[graph.inputs[0]]
        inputs = [app_input(tuple(tensor.shape), tensor.dtype.numpy_type, pattern)]
        expected[name] = run_tflm(Path(path).read_bytes(), inputs, len(graph.tensors)).outputs[0].tobytes()
    return expected


def parse_app_output(text: str) -> tuple[list[int], list[int], dict[str, bytes]]:
    """(pool statuses, invoke statuses, name -> output bytes) from the application's lines."""
    pool = [int(v) for v in re.search(r"^pool: (.*)$", text, re.MULTILINE)[1].split()]
    status = [int(v) for v in re.search(r"^status: (.*)$", text, re.MULTILINE)[1].split()]
    outputs = {name: bytes.fromhex(re.search(rf"^{name}: ([0-9a-f]*)$", text, re.MULTILINE)[1]) for name in MODELS}
    return pool, status, outputs
