"""Build a generated model for the host with the system's C compiler (validation, sanitizers).

The runtime kernels are the same for every model, so their object files are cached by the hash of their
source, the runtime headers and the flags (never by the temporary directory they were copied to), and so is the
static archive of all of them: a test suite that validates hundreds of small models compiles each kernel once
per set of flags, and each link takes from the archive only the kernels its model calls (with gold, where it is
installed: a fifth of the CPU time of ld.bfd on these links).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from firmware_gen.errors import ToolchainError
from firmware_gen.manifest import read_manifest
from firmware_gen.resources import RUNTIME_DIR

WARNINGS = ["-Wall", "-Wextra", "-Werror"]
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
_HOST_DIR = RUNTIME_DIR / "host"


def host_compiler() -> str:
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    raise ToolchainError("no host C compiler found: apt-get install --no-install-recommends gcc")


def c_sources(model_dir: Path) -> list[Path]:
    """The generated model and the runtime copy that came with it, as its manifest lists them."""
    return [model_dir / name for name in read_manifest(model_dir).sources]


def runtime_sources(model_dir: Path) -> list[Path]:
    """The runtime copied beside a generated model: kernels, and the packed-call support if it was generated."""
    return [path for path in c_sources(model_dir) if _in_runtime(model_dir, path)]


def _model_sources(model_dir: Path) -> list[Path]:
    return [path for path in c_sources(model_dir) if not _in_runtime(model_dir, path)]


def _in_runtime(model_dir: Path, path: Path) -> bool:
    return path.is_relative_to(model_dir / "runtime")


def _cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "firmware-gen" / "host-objects"


def _compile(command: list[str], source: Path, output: Path) -> None:
    done = subprocess.run([*command, "-c", str(source), "-o", str(output)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"host build of {source} failed:\n{done.stderr[-4000:]}")


def _update(digest: hashlib._Hash, name: str, data: bytes) -> None:
    digest.update(f"\0{name}\0{len(data)}\0".encode())
    digest.update(data)


def _shared_key(command: list[str], include_dir: Path) -> hashlib._Hash:
    """The part of the runtime objects' cache key they all share: the flags without the include path (a
    temporary directory that differs on every call), and every runtime header by its name relative to
    include_dir and its bytes."""
    digest = hashlib.sha256()
    include_flag = f"-I{include_dir}"
    for flag in command:
        if flag != include_flag:
            _update(digest, "flag", flag.encode())
    for header in sorted(include_dir.rglob("*.h")):
        _update(digest, header.relative_to(include_dir).as_posix(), header.read_bytes())
    return digest


def _runtime_object(command: list[str], source: Path, include_dir: Path,
                    shared_key: hashlib._Hash | None = None, local_headers: tuple[Path, ...] = ()) -> Path:
    """The object of one runtime source, from the cache when it was built before with the same content: the
    key is content only (_shared_key, then the source by its name relative to the runtime and its bytes, then
    the headers it includes from its own folder)."""
    digest = (shared_key or _shared_key(command, include_dir)).copy()
    runtime = include_dir.parent
    for path in (source, *local_headers):
        name = path.relative_to(runtime) if path.is_relative_to(runtime) else Path(path.name)
        _update(digest, name.as_posix(), path.read_bytes())
    cached = _cache_dir() / f"{source.stem}-{digest.hexdigest()[:24]}.o"
    if not cached.exists():
        _publish(cached, lambda partial: _compile(command, source, partial))
    return cached


def _runtime_archive(command: list[str], sources: list[Path], include_dir: Path) -> Path:
    """A static archive of every runtime object (each from the cache), itself cached under a key made of the
    objects' keys."""
    shared_key = _shared_key(command, include_dir)
    objects = [_runtime_object(command, source, include_dir, shared_key) for source in sources]
    digest = hashlib.sha256("\0".join(path.name for path in objects).encode())
    cached = _cache_dir() / f"libfg_runtime-{digest.hexdigest()[:24]}.a"
    if not cached.exists():
        _publish(cached, lambda partial: _archive(objects, partial))
    return cached


def _archive(objects: list[Path], output: Path) -> None:
    output.unlink()  # ar adds to an archive that exists
    done = subprocess.run(["ar", "rcs", str(output), *map(str, objects)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"ar failed on the runtime objects:\n{done.stderr[-4000:]}")


def _publish(cached: Path, build: Callable[[Path], None]) -> None:
    """build(partial) writes a file that then becomes cached. A name of its own for every build, then an atomic
    rename: concurrent builds of the same file (test workers) each publish a whole, identical file, and nobody
    ever sees half of one."""
    cached.parent.mkdir(parents=True, exist_ok=True)
    handle, partial_name = tempfile.mkstemp(prefix=f".{cached.stem}.", suffix=".tmp", dir=cached.parent)
    os.close(handle)
    partial = Path(partial_name)
    try:
        build(partial)
        partial.replace(cached)
    finally:
        partial.unlink(missing_ok=True)


def _linker_flags() -> list[str]:
    return ["-fuse-ld=gold"] if shutil.which("ld.gold") else []


def build_trace_executable(model_dir: str | Path, build_dir: str | Path, sanitize: bool = False) -> Path:
    """The model linked with the host driver (runtime_c/host/trace_main.c, for this model, and trace_run.c,
    cached): runs once per frame and records every tensor."""
    model_dir, build_dir = Path(model_dir), Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    include_dir = model_dir / "runtime" / "include"
    compiler = host_compiler()
    flags = ["-std=c99", "-O1", "-g", *WARNINGS, "-DFG_ENABLE_HOOKS", *(SANITIZERS if sanitize else [])]
    command = [compiler, *flags, f"-I{include_dir}"]
    objects = []
    model_command = [*command, f"-I{model_dir}"]
    for source in [*_model_sources(model_dir), _HOST_DIR / "trace_main.c"]:
        objects.append(build_dir / f"{source.stem}.o")
        _compile(model_command, source, objects[-1])
    objects.append(_runtime_object(command, _HOST_DIR / "trace_run.c", include_dir,
                                   local_headers=(_HOST_DIR / "trace_run.h",)))
    objects.append(_runtime_archive(command, runtime_sources(model_dir), include_dir))
    executable = build_dir / "fg_trace"
    done = subprocess.run([compiler, *flags, *_linker_flags(), *map(str, objects), "-o", str(executable), "-lm"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"host link of {model_dir} failed:\n{done.stderr[-4000:]}")
    return executable
