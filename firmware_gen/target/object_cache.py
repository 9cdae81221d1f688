"""Objects of the runtime (kernels, board ports, the host driver) cached by content, for the host and the cross
build alike: they are the same for every model, so a process that builds many models (a test suite, `run` on
several models) compiles each once per set of flags.

The key is content only, never the temporary directory a model's runtime copy sits in: the compiler and its
flags with every include directory replaced by the headers under it (by relative name and bytes), and a
force-included header (`-include FILE`) by its bytes; then the source by its name relative to its own folder's
parent and its bytes, and the headers it includes from its own folder. A `-ffile-prefix-map=OLD=NEW` counts by
NEW only: the folders of a build are mapped to fixed names, so its objects are the same wherever it is built.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from firmware_gen.target.cache_limit import cache_root, mark_used


def cache_dir(kind: str) -> Path:
    return cache_root() / kind


def _update(digest: hashlib._Hash, name: str, data: bytes) -> None:
    digest.update(f"\0{name}\0{len(data)}\0".encode())
    digest.update(data)


def flags_key(command: Sequence[str]) -> hashlib._Hash:
    """The key shared by every source compiled with command (the compiler and its flags, without -c SOURCE -o
    OUTPUT)."""
    digest = hashlib.sha256()
    forced = False
    for flag in command:
        if forced:
            _update(digest, "forced header", Path(flag).read_bytes())
        elif flag.startswith("-I"):
            include_dir = Path(flag[2:])
            _update(digest, "include dir", b"")
            for header in sorted(include_dir.rglob("*.h")):
                _update(digest, header.relative_to(include_dir).as_posix(), header.read_bytes())
        elif flag.startswith("-ffile-prefix-map="):  # the folder mapped is gone from the object: its new name only
            _update(digest, "prefix map", flag.rsplit("=", 1)[1].encode())
        else:
            _update(digest, "flag", flag.encode())
        forced = flag == "-include"
    return digest


def cached_object(kind: str, shared_key: hashlib._Hash, source: Path, compile_to: Callable[[Path], None],
                  local_headers: Sequence[Path] = (), companions: Sequence[str] = ()) -> Path:
    """The object of source under shared_key (flags_key), from the cache of `kind` or made by compile_to(path)
    and published there. companions: suffixes of the files the compiler writes beside the object (".ci"),
    cached with it."""
    digest = shared_key.copy()
    for path in (source, *local_headers):
        _update(digest, f"{path.parent.name}/{path.name}", path.read_bytes())
    return cached_file(cache_dir(kind) / f"{source.stem}-{digest.hexdigest()[:24]}.o", compile_to, companions)


def cached_file(cached: Path, build: Callable[[Path], None], companions: Sequence[str] = ()) -> Path:
    """cached (and its companions: the same name with those suffixes), made by build(path) and published if it is
    not there yet, or a companion is missing (the cache's size limit removes files one by one)."""
    if cached.exists() and all(cached.with_suffix(suffix).exists() for suffix in companions):
        mark_used(cached)
        for suffix in companions:
            mark_used(cached.with_suffix(suffix))
    else:
        publish(cached, build, companions)
    return cached


def publish(cached: Path, build: Callable[[Path], None], companions: Sequence[str] = ()) -> None:
    """build(partial) writes a file (and its companions beside it) that then becomes cached. A name of its own for
    every build, then atomic renames, the companions first: concurrent builds of the same file (test workers)
    each publish a whole, identical file, and nobody ever sees half of one; an interrupted build leaves
    nothing."""
    cached.parent.mkdir(parents=True, exist_ok=True)
    handle, partial_name = tempfile.mkstemp(prefix=f".{cached.stem}.", suffix=".tmp", dir=cached.parent)
    os.close(handle)
    partial = Path(partial_name)
    try:
        build(partial)
        for suffix in companions:
            partial.with_suffix(suffix).replace(cached.with_suffix(suffix))
        partial.replace(cached)
    finally:
        partial.unlink(missing_ok=True)
        for suffix in companions:
            partial.with_suffix(suffix).unlink(missing_ok=True)
