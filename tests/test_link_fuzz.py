"""The firmware's frame parser (runtime_c/firmware/fg_link.c and main.c's session loop) built for the host under
ASan and UBSan and fed 100,000 random and mutated frame streams (tests/link_fuzz/harness.c): no sanitizer report,
every frame the firmware sends back whole and CRC-correct, every bad stream ends in a protocol error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_gen.resources import RUNTIME_DIR

HARNESS = Path(__file__).resolve().parent / "link_fuzz"
FLAGS = ["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-DFG_ENABLE_HOOKS", f"-I{HARNESS}",
         f"-I{RUNTIME_DIR / 'firmware'}", f"-I{RUNTIME_DIR / 'ports'}", f"-I{RUNTIME_DIR / 'include'}"]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc missing")
def test_frame_parser_under_sanitizers(tmp_path: Path):
    firmware_main = tmp_path / "main.o"
    subprocess.run(["gcc", *FLAGS, "-Dmain=fg_firmware_main", "-c", str(RUNTIME_DIR / "firmware" / "main.c"),
                    "-o", str(firmware_main)], check=True, capture_output=True, text=True)
    harness = tmp_path / "harness"
    subprocess.run(["gcc", *FLAGS, str(HARNESS / "harness.c"), str(RUNTIME_DIR / "firmware" / "fg_link.c"),
                    str(RUNTIME_DIR / "firmware" / "fg_frames.c"), str(firmware_main), "-o", str(harness)],
                   check=True, capture_output=True, text=True)
    done = subprocess.run([str(harness), "100000", "10"], capture_output=True, text=True, timeout=120,
                          env={"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
                               "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"})
    assert done.returncode == 0 and not done.stderr, done.stdout + done.stderr
    result = dict(zip(done.stdout.split()[::2], map(int, done.stdout.split()[1::2]), strict=True))
    assert result["cases"] == 100_000 and result["malformed_frames"] == 0 and result["other_exits"] == 0
    # The streams reach every ending: a whole run, a protocol error, the end of the bytes mid-frame.
    assert min(result["ran"], result["protocol_errors"], result["end_of_stream"]) > 1000, result
