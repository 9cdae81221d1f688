"""Two `build -o` of one model for one board, from different working directories, temporary folders, output names
and firmware caches, write byte-identical files: the generated C, the runtime copy, the objects, the map and the
ELF (gcc runs from the build folder with its folders mapped, the linker with relative names)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from target_fixtures import needs_cross_gcc

from firmware_gen import cli
from firmware_gen.modelgen import zoo

from conftest import shared_model

pytestmark = needs_cross_gcc

# (model, board, interface): the seeded models and a shared one, portable C, DSP and Helium kernels.
CASES = [("tiny_cnn", "mps2_an385", "unpacked"), ("residual_block", "mps3_an547", "packed"),
         ("kws_ref_model", "mps2_an386", "packed"), ("hello_world_int8", "qemu_cortex_m3", "unpacked")]


def _model(name: str, folder: Path) -> Path:
    if not hasattr(zoo, name):
        return shared_model(name)
    path = folder / f"{name}.tflite"
    path.write_bytes(getattr(zoo, name)())
    return path


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _build(model: Path, board: str, interface: str, where: Path, out: str, cache: Path,
           monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> dict[str, bytes]:
    (where / "tmp").mkdir(parents=True)
    monkeypatch.chdir(where)
    monkeypatch.setenv("TMPDIR", str(where / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    assert cli.main(["build", str(model), "--board", board, "--interface", interface, "-o", out]) == 0, \
        capsys.readouterr().err
    capsys.readouterr()
    return _files(where / out)


@pytest.mark.parametrize(("name", "board", "interface"), CASES)
def test_two_builds_in_different_folders_are_byte_identical(name: str, board: str, interface: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture):
    model = _model(name, tmp_path)
    # The second build's own firmware cache (no copy of the first build), sharing the compiled runtime objects.
    shared = Path(os.environ["XDG_CACHE_HOME"]) / "firmware-gen" / "cross-objects"
    shared.mkdir(parents=True, exist_ok=True)
    caches = []
    for label in ("first", "second"):
        cache = tmp_path / f"cache-{label}"
        (cache / "firmware-gen").mkdir(parents=True)
        (cache / "firmware-gen" / "cross-objects").symlink_to(shared.resolve(), target_is_directory=True)
        caches.append(cache)
    first = _build(model, board, interface, tmp_path / "a", "out", caches[0], monkeypatch, capsys)
    second = _build(model, board, interface, tmp_path / "b" / "deeper", "firmware-second", caches[1], monkeypatch,
                    capsys)
    assert sorted(first) == sorted(second) and len(first) > 20
    assert [name for name in first if first[name] != second[name]] == []
