"""`firmware-gen flash`: build the firmware for a real board and flash it."""

from __future__ import annotations

import argparse

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    deploy,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_interface_option,
    add_planning_options,
)


def cmd_flash(args: argparse.Namespace) -> int:
    from firmware_gen.link.flashing import flash, refuse_before_building
    from firmware_gen.target.boards import load_board

    refuse_before_building(load_board(args.board), args.model)
    _, deployment, progress = deploy(args, port=None)
    print(deployment.firmware.summary())
    probe = flash(deployment.firmware.board, deployment.firmware.elf, args.probe, progress=progress)
    print(f"flashed {args.board} through {probe.description} {probe.unique_id}; now: "
          f"firmware-gen run {args.model} --board {args.board}")
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    sub = command("flash", cmd_flash,
                  "build the model's firmware for a real board and flash it (pyOCD, or UF2 for the Pico)")
    sub.add_argument("--board", required=True)
    sub.add_argument("--probe", help="unique id (or part of it) of the debug probe, when several are connected")
    add_interface_option(sub)
    add_planning_options(sub)
