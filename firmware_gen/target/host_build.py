"""Build a generated model for the host with the system's C compiler (validation, sanitizers).

The runtime kernels are the same for every model, so their object files come from the object cache
(object_cache.py), and so does the static archive of all of them: a test suite that validates hundreds of small
models compiles each kernel once per set of flags, and each link takes from the archive only the kernels its model
calls (with gold, where it is installed: a fifth of the CPU time of ld.bfd on these links).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from firmware_gen.errors import ToolchainError
from firmware_gen.manifest import read_manifest
from firmware_gen.resources import RUNTIME_DIR
from firmware_gen.target.object_cache import cache_dir, cached_file, cached_object, flags_key

WARNINGS = ["-Wall", "-Wextra", "-Werror"]
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
_HOST_DIR = RUNTIME_DIR / "host"
_CACHE = "host-objects"


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


def _compile(command: list[str], source: Path, output: Path) -> None:
    done = subprocess.run([*command, "-c", str(source), "-o", str(output)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"host build of {source} failed:\n{done.stderr[-4000:]}")


def _runtime_archive(command: list[str], shared_key: hashlib._Hash, sources: list[Path]) -> Path:
    """A static archive of every runtime object (each from the object cache), itself cached under a key made of
    the objects' keys."""
    objects = [cached_object(_CACHE, shared_key, source, lambda path, s=source: _compile(command, s, path))
               for source in sources]
    digest = hashlib.sha256("\0".join(path.name for path in objects).encode())
    return cached_file(cache_dir(_CACHE) / f"libfg_runtime-{digest.hexdigest()[:24]}.a",
                       lambda partial: _archive(objects, partial))


def _archive(objects: list[Path], output: Path) -> None:
    output.unlink()  # ar adds to an archive that exists
    done = subprocess.run(["ar", "rcs", str(output), *map(str, objects)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"ar failed on the runtime objects:\n{done.stderr[-4000:]}")


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
    driver, shared_key = _HOST_DIR / "trace_run.c", flags_key(command)
    objects.append(cached_object(_CACHE, shared_key, driver, lambda path: _compile(command, driver, path),
                                 local_headers=(_HOST_DIR / "trace_run.h",)))
    objects.append(_runtime_archive(command, shared_key, runtime_sources(model_dir)))
    executable = build_dir / "fg_trace"
    done = subprocess.run([compiler, *flags, *_linker_flags(), *map(str, objects), "-o", str(executable), "-lm"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"host link of {model_dir} failed:\n{done.stderr[-4000:]}")
    return executable
