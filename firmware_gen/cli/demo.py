"""`firmware-gen demo`: MobileNetV1 0.25 on an emulated Cortex-M3, checked against TFLM."""

from __future__ import annotations

import argparse

from firmware_gen.cli.common import (
    planning_options,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_planning_options,
)


def cmd_demo(args: argparse.Namespace) -> int:
    from firmware_gen.check.demo import run_demo

    return run_demo(board=args.board, seed=args.seed, options=planning_options(args))


def register(command: CommandAdder) -> None:
    sub = command("demo", cmd_demo, "MobileNetV1 0.25 on an emulated Cortex-M3, checked against TFLM", model=False)
    add_planning_options(sub, overlap_only=True)
    sub.add_argument("--board", default="qemu_cortex_m3")
    sub.add_argument("--seed", type=int, default=0)
