"""Per-element speed of firmware-gen's kernels against TFLM's reference kernels on one QEMU board.

Both sides run the same operators on the same tensors (int8 1x16x16x16 and the shapes each case names; NEG, which
TFLM has for float32 only, on float32) and are counted in guest instructions (QEMU -icount shift=0: deterministic
counts, not timings, to the board counter's tick of 40 instructions on mps2). Our side is one model
built through the project's pipeline (one step per operator); the TFLM side is a C++ harness that calls, per
operator, the reference function TFLM Micro's Eval calls (or, where that code is in the micro kernel's .cc, its
helper or its registered invoke), with its parameters set as its Prepare sets them, compiled from the TFLM
sources in --tflm-src (tensorflow/lite/kernels/internal/..., tensorflow/lite/micro/kernels/*.cc,
third_party/gemmlowp; not part of firmware-gen; framework headers shimmed in tflm_reference/shim) and linked
with firmware-gen's board port; arm-none-eabi-g++ needs the C++ headers of Debian's
libstdc++-arm-none-eabi-dev. The last column says whether both outputs are byte-equal.

    python bench/reference_kernels.py --tflm-src /work/tflm-src [--board mps2_an385] [--only SUB,TANH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from firmware_gen.cli.stop_signals import run_script

NEEDS = ("needs --tflm-src DIR: a directory holding TFLM's tensorflow/lite/kernels/internal sources "
         "(common.h, types.h, reference/...), tensorflow/lite/micro/kernels (activations_common.cc, gather.cc, ...) "
         "and third_party/gemmlowp/fixedpoint")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tflm-src", type=Path, help="the TFLM source tree (see the module docstring)")
    parser.add_argument("--board", default="mps2_an385")
    parser.add_argument("--only", default="", help="comma-separated case labels (prefixes) to run")
    return parser.parse_args(argv)


def tflm_src_problem(tflm_src: Path | None) -> str | None:
    """Why the TFLM sources cannot be used, or None."""
    if tflm_src is None:
        return NEEDS
    if not (tflm_src / "tensorflow/lite/kernels/internal/common.h").is_file():
        return f"--tflm-src {tflm_src}: no tensorflow/lite/kernels/internal/common.h there; {NEEDS}"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    problem = tflm_src_problem(args.tflm_src)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from tflm_reference.compare import compare, print_table

    with tempfile.TemporaryDirectory(prefix="fg-refbench-") as scratch:
        rows = compare(args.tflm_src.resolve(), args.board, Path(scratch), [s for s in args.only.split(",") if s])
    print_table(args.board, rows)
    return 0 if all(row.equal for row in rows) else 1


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/reference_kernels.py"))
