"""Shared test fixtures: where the reference models are, and how to run the CLI as a user does.

Every test process (each pytest-xdist worker, or the one process of a serial run) gets a cache directory of its
own under pytest's temporary directory (XDG_CACHE_HOME, inherited by the CLI child processes): the firmware cache
builds into a fixed directory per model, which two processes must not do at once, and the tests leave the user's
~/.cache alone. A fresh object cache (target/object_cache.py) costs one compile of the runtime kernels per set of
flags, per process: about 1.5 s on the host, about 5 s per board's flags for the cross build. The oracle's fork
server (check/fork_server.py) is started once per process too.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
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


@pytest.fixture(scope="session", autouse=True)
def _cache_home_of_this_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
        yield


def shared_model(name: str) -> Path:
    path = SHARED_MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"{path} is not here (the shared reference models are optional)")
    return path


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`firmware-gen ARGS` in a child process, as a user would run it."""
    return subprocess.run([sys.executable, "-m", "firmware_gen", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)
