"""`firmware-gen selftest`: check a board before trusting it."""

from __future__ import annotations

import argparse
import sys

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    board_port,
    show,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_link_options,
)


def cmd_selftest(args: argparse.Namespace) -> int:
    from firmware_gen.check.selftest import selftest

    def progress(message: str) -> None:
        if not args.json:
            print(f"firmware-gen: {message}", file=sys.stderr, flush=True)

    report = selftest(args.board, port=board_port(args), baudrate=args.baud, probe=args.probe,
                      flash_first=not args.no_flash, progress=progress)
    show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.passed else ExitStatus.MISMATCH


def register(command: CommandAdder) -> None:
    sub = command("selftest", cmd_selftest, "check a board before trusting it: UART both ways, cycle counter and "
                  "clock, every RAM region, the CPU features its file claims, the end of run", model=False)
    sub.add_argument("--board", required=True, help="a board name or the path of a board file")
    add_link_options(sub)
    sub.add_argument("--no-flash", action="store_true", help="a real board already flashed with the self-test")
    sub.add_argument("--json", action="store_true")
