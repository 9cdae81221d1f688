"""Shared test fixtures: where the reference models are, and how to run the CLI as a user does.

Every test process (each pytest-xdist worker, or the one process of a serial run) gets a cache directory of its
own under pytest's temporary directory (XDG_CACHE_HOME, inherited by the CLI child processes): the firmware cache
builds into a fixed directory per model, which two processes must not do at once, and the tests leave the user's
~/.cache alone. The object caches (target/object_cache.py) are shared by the workers of a run: a fresh one costs
one compile of the runtime kernels per set of flags, about 1.5 s on the host, about 5 s per board's flags for the
cross build. The oracle's fork server (check/fork_server.py) is started once per process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The shared, read-only test data (../shared beside the checkout; FIRMWARE_GEN_SHARED for a checkout elsewhere).
SHARED_DIR = Path(os.environ.get("FIRMWARE_GEN_SHARED", REPO.parent / "shared"))
SHARED_MODELS_DIR = SHARED_DIR / "models"
ZEPHYR_TARBALL = SHARED_DIR / "zephyr" / "zephyr-3.4.99-arm-qemu.tar.gz"
SHARED_MODEL_NAMES = [
    "person_detect",
    "vww_96_int8",
    "kws_ref_model",
    "pretrainedResnet_quant",
    "ad01_int8",
    "hello_world_int8",
    "micro_speech_quantized",
]


# The object caches, content-addressed and published atomically (target/object_cache.py), are the one part of
# the cache the workers of a run share: each kernel is then compiled once per set of flags in the whole run.
SHARED_OBJECT_CACHES = ("host-objects", "cross-objects")


@pytest.fixture(scope="session", autouse=True)
def _cache_home_of_this_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    cache_home = tmp_path_factory.mktemp("xdg-cache")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # A worker's base temporary directory is popen-gwN in the run's own directory.
        shared = tmp_path_factory.getbasetemp().parent / "shared-object-cache"
        (cache_home / "firmware-gen").mkdir()
        for kind in SHARED_OBJECT_CACHES:
            (shared / kind).mkdir(parents=True, exist_ok=True)
            (cache_home / "firmware-gen" / kind).symlink_to(shared / kind, target_is_directory=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache_home))
        yield


SHARED_SCOPES = ("module", "class", "package")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist's loadgroup each test is a unit of work of its own, so tests sharing a module-scoped fixture
    could run on both workers, each making the fixture (the eight self-test runs were made sixteen times, the Ray
    cluster twice). A test that uses one goes to the xdist group of its module (and of the fixture's parameter, for
    a parametrized one), so that the fixture is made once per run; a group a test names itself is kept."""
    for item in items:
        definitions = getattr(item, "_fixtureinfo", None)
        if definitions is None or item.get_closest_marker("xdist_group") is not None:
            continue
        shared = sorted(name for name, defs in definitions.name2fixturedefs.items() if defs[-1].scope in SHARED_SCOPES)
        if not shared:
            continue
        params = getattr(item, "callspec", None)
        values = [f"{name}={params.params[name]}" for name in shared if params is not None and name in params.params]
        group = " ".join([item.nodeid.split("::")[0], *values])
        item.add_marker(pytest.mark.xdist_group(group.translate(str.maketrans("[]@", "()_"))))


def shared_model(name: str) -> Path:
    path = SHARED_MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"{path} is not here (the shared reference models are optional)")
    return path


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`firmware-gen ARGS` in a child process, as a user would run it."""
    return subprocess.run([sys.executable, "-m", "firmware_gen", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)
