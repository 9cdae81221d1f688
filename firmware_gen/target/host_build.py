"""Build a generated model for the host with the system's C compiler (validation, sanitizers).

The runtime kernels are the same for every model, so their object files are cached by the hash of their
source, the runtime headers and the flags: a test suite that validates hundreds of small models compiles
each kernel once per set of flags.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from firmware_gen.errors import ToolchainError
from firmware_gen.resources import RUNTIME_DIR

WARNINGS = ["-Wall", "-Wextra", "-Werror"]
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


def host_compiler() -> str:
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    raise ToolchainError("no host C compiler found: apt-get install --no-install-recommends gcc")


def c_sources(model_dir: Path) -> list[Path]:
    """The generated model and the runtime copy that came with it."""
    return sorted(model_dir.glob("*.c")) + runtime_sources(model_dir)


def runtime_sources(model_dir: Path) -> list[Path]:
    """The runtime copied beside a generated model: kernels, and the packed-call support if it was generated."""
    runtime = model_dir / "runtime"
    return sorted((runtime / "kernels").glob("*.c")) + sorted((runtime / "packed").glob("*.c"))


def _cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "firmware-gen" / "host-objects"


def _compile(command: list[str], source: Path, output: Path) -> None:
    done = subprocess.run([*command, "-c", str(source), "-o", str(output)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"host build of {source} failed:\n{done.stderr[-4000:]}")


def _runtime_object(command: list[str], source: Path, include_dir: Path) -> Path:
    digest = hashlib.sha256(" ".join(command).encode())
    for path in [source, *sorted(include_dir.rglob("*.h"))]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    cached = _cache_dir() / f"{source.stem}-{digest.hexdigest()[:24]}.o"
    if not cached.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        _compile(command, source, partial)
        partial.replace(cached)  # atomic: concurrent builds never see half an object
    return cached


def build_trace_executable(model_dir: str | Path, build_dir: str | Path, sanitize: bool = False) -> Path:
    """The model linked with runtime_c/host/trace_main.c: runs once and records every tensor."""
    model_dir, build_dir = Path(model_dir), Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    include_dir = model_dir / "runtime" / "include"
    compiler = host_compiler()
    flags = ["-std=c99", "-O1", "-g", *WARNINGS, "-DFG_ENABLE_HOOKS", *(SANITIZERS if sanitize else [])]
    command = [compiler, *flags, f"-I{include_dir}"]
    objects = [_runtime_object(command, source, include_dir)
               for source in runtime_sources(model_dir)]
    model_command = [*command, f"-I{model_dir}"]
    for source in [*sorted(model_dir.glob("*.c")), RUNTIME_DIR / "host" / "trace_main.c"]:
        objects.append(build_dir / f"{source.stem}.o")
        _compile(model_command, source, objects[-1])
    executable = build_dir / "fg_trace"
    done = subprocess.run([compiler, *flags, *map(str, objects), "-o", str(executable), "-lm"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"host link of {model_dir} failed:\n{done.stderr[-4000:]}")
    return executable
