"""Shared test fixtures: where the reference models are, and how to run the CLI as a user does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_MODELS_DIR = REPO.parent / "shared" / "models"
SHARED_MODEL_NAMES = [
    "person_detect",
    "vww_96_int8",
    "kws_ref_model",
    "pretrainedResnet_quant",
    "ad01_int8",
    "hello_world_int8",
    "micro_speech_quantized",
]


def shared_model(name: str) -> Path:
    path = SHARED_MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"{path} is not here (the shared reference models are optional)")
    return path


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`firmware-gen ARGS` in a child process, as a user would run it."""
    return subprocess.run([sys.executable, "-m", "firmware_gen", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)
