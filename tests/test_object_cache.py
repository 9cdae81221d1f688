"""The object cache's key (firmware_gen/target/object_cache.py) is content only: two copies of the runtime in
different directories share their objects, and any change of a flag, a header or a force-included file makes a
new one."""

from __future__ import annotations

import shutil
from pathlib import Path

from firmware_gen.target.object_cache import cached_object, flags_key


def _runtime_copy(where: Path) -> Path:
    (where / "include" / "fg").mkdir(parents=True)
    (where / "include" / "fg" / "kernel.h").write_text("int fg_kernel(int x);\n")
    (where / "kernels").mkdir()
    (where / "kernels" / "kernel.c").write_text('#include "fg/kernel.h"\nint fg_kernel(int x) { return x; }\n')
    (where / "alias.h").write_text("#define A 1\n")
    return where


def _key(runtime: Path, *flags: str) -> str:
    return flags_key(["cc", "-O1", *flags, f"-I{runtime / 'include'}", "-include", str(runtime / "alias.h")]
                     ).hexdigest()


def test_copies_in_different_directories_share_a_key_and_any_change_makes_a_new_one(tmp_path: Path):
    first, second = _runtime_copy(tmp_path / "a"), _runtime_copy(tmp_path / "b")
    assert _key(first) == _key(second)
    assert _key(first) != _key(first, "-DFG_ENABLE_HOOKS")
    (second / "alias.h").write_text("#define A 2\n")
    assert _key(first) != _key(second)
    shutil.copy(first / "alias.h", second / "alias.h")
    (second / "include" / "fg" / "kernel.h").write_text("int fg_kernel(int y);\n")
    assert _key(first) != _key(second)


def test_an_object_is_compiled_once_per_content(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first, second = _runtime_copy(tmp_path / "a"), _runtime_copy(tmp_path / "b")
    compiled = []

    def compile_to(path: Path) -> None:
        compiled.append(path)
        path.write_bytes(b"object")

    key = flags_key(["cc"])
    one = cached_object("test-objects", key, first / "kernels" / "kernel.c", compile_to)
    assert cached_object("test-objects", key, second / "kernels" / "kernel.c", compile_to) == one
    (second / "kernels" / "kernel.c").write_text("int fg_kernel(int x) { return -x; }\n")
    assert cached_object("test-objects", key, second / "kernels" / "kernel.c", compile_to) != one
    assert len(compiled) == 2 and one.read_bytes() == b"object"
    assert not [p for p in one.parent.iterdir() if p.name.startswith(".")], "a partial file was left"


def test_a_prefix_map_counts_by_its_new_name_only(tmp_path: Path):
    runtime = _runtime_copy(tmp_path / "a")
    assert _key(runtime, f"-ffile-prefix-map={tmp_path / 'a'}=model") == _key(runtime, "-ffile-prefix-map=/x=model")
    assert _key(runtime, "-ffile-prefix-map=/x=model") != _key(runtime, "-ffile-prefix-map=/x=build")


def test_a_companion_file_is_cached_with_its_object_and_its_loss_rebuilds_both(tmp_path: Path, monkeypatch):
    """The call-graph file gcc writes beside an object (.ci) is published with it; the cache's size limit may
    remove one file of the pair, and then the pair is made again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = _runtime_copy(tmp_path / "a") / "kernels" / "kernel.c"
    compiled = []

    def compile_to(path: Path) -> None:
        compiled.append(path)
        path.write_bytes(b"object")
        path.with_suffix(".ci").write_text("graph")

    key = flags_key(["cc"])
    one = cached_object("test-objects", key, source, compile_to, companions=(".ci",))
    assert one.with_suffix(".ci").read_text() == "graph" and len(compiled) == 1
    assert cached_object("test-objects", key, source, compile_to, companions=(".ci",)) == one and len(compiled) == 1
    one.with_suffix(".ci").unlink()
    cached_object("test-objects", key, source, compile_to, companions=(".ci",))
    assert one.with_suffix(".ci").exists() and len(compiled) == 2
    assert not [p for p in one.parent.iterdir() if p.name.startswith(".")], "a partial file was left"
