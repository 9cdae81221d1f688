"""`firmware-gen sweep`: models x boards x options from a spec file, on local workers or a Ray cluster."""

from __future__ import annotations

import argparse

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import show
from firmware_gen.cli.options import CommandAdder, add_parallel_options


def cmd_sweep(args: argparse.Namespace) -> int:
    from firmware_gen.sweep.run import run_sweep

    summary = run_sweep(args.spec, args.output, jobs=args.jobs, ray=args.ray, progress=not args.json)
    show(args, summary.to_json(), summary.format())
    return ExitStatus.OK if summary.all_passed else ExitStatus.MISMATCH


def register(command: CommandAdder) -> None:
    sub = command("sweep", cmd_sweep, "models x boards x options from a spec file: every job generated, built, run "
                  "and checked against TFLM, on local workers or a Ray cluster; JSON lines, CSV and a page",
                  model=False)
    sub.add_argument("spec", help="the sweep's TOML file (models, boards, [options])")
    sub.add_argument("-o", "--output", help="results folder (default: SPEC-results); run again to resume")
    add_parallel_options(sub)
    sub.add_argument("--json", action="store_true")
