"""Build a generated model for the host with the system's C compiler (validation, sanitizers)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from firmware_gen.codegen import RUNTIME_DIR
from firmware_gen.errors import ToolchainError

WARNINGS = ["-Wall", "-Wextra", "-Werror"]
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


def host_compiler() -> str:
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    raise ToolchainError("no host C compiler found: apt-get install --no-install-recommends gcc")


def c_sources(model_dir: Path) -> list[Path]:
    """The generated model and the runtime copy that came with it."""
    return sorted(model_dir.glob("*.c")) + sorted((model_dir / "runtime" / "kernels").glob("*.c"))


def build_trace_executable(model_dir: str | Path, build_dir: str | Path, sanitize: bool = False) -> Path:
    """The model linked with runtime_c/host/trace_main.c: runs once and records every tensor."""
    model_dir, build_dir = Path(model_dir), Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    executable = build_dir / "fg_trace"
    command = [host_compiler(), "-std=c99", "-O1", "-g", *WARNINGS, "-DFG_ENABLE_HOOKS",
               *(SANITIZERS if sanitize else []),
               f"-I{model_dir}", f"-I{model_dir / 'runtime' / 'include'}",
               *map(str, c_sources(model_dir)), str(RUNTIME_DIR / "host" / "trace_main.c"),
               "-o", str(executable), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"host build of {model_dir} failed:\n{done.stderr[-4000:]}")
    return executable
