"""bench/reference_kernels.py's argument handling, without TFLM sources (the benchmark itself needs them and QEMU)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import reference_kernels  # noqa: E402


def test_without_tflm_sources_it_says_what_it_needs_and_exits_2():
    done = subprocess.run([sys.executable, str(BENCH / "reference_kernels.py")], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "needs --tflm-src DIR" in lines[0]


def test_a_directory_without_tflm_sources_is_named(tmp_path, capsys):
    assert reference_kernels.main(["--tflm-src", str(tmp_path)]) == 2
    message = capsys.readouterr().err.strip()
    assert str(tmp_path) in message and "common.h" in message and "\n" not in message


def test_options_are_parsed():
    args = reference_kernels.parse_args(["--tflm-src", "/x", "--board", "mps2_an386", "--only", "SUB,TANH"])
    assert (args.tflm_src, args.board, args.only) == (Path("/x"), "mps2_an386", "SUB,TANH")
