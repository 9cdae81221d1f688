"""Runs a small C program against the runtime headers: compiled for the host with the sanitizers, fed `stdin`, its
output lines returned (and nothing on stderr)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from firmware_gen.backend.codegen import RUNTIME_DIR
from firmware_gen.target.host_build import SANITIZERS, WARNINGS, host_compiler


def run_c_harness(work: Path, source: str, stdin: str) -> list[str]:
    (work / "harness.c").write_text(source)
    exe = work / "harness"
    subprocess.run([host_compiler(), "-std=c99", "-O1", *WARNINGS, *SANITIZERS, f"-I{RUNTIME_DIR / 'include'}",
                    str(work / "harness.c"), "-o", str(exe)], check=True)
    done = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True, check=True)
    assert not done.stderr
    return done.stdout.splitlines()
