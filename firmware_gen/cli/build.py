"""`firmware-gen build`: the model's firmware for a board, with its flash and RAM split."""

from __future__ import annotations

import argparse
from pathlib import Path

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    deploy,
    print_json,
    show,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_interface_option,
    add_planning_options,
    add_product_options,
    add_ram_weights_option,
    add_zephyr_options,
)
from firmware_gen.output_paths import check_output_dir


def cmd_build(args: argparse.Namespace) -> int:
    from firmware_gen.check.analysis import memory_split
    from firmware_gen.check.analysis_report import format_memory

    out_dir = Path(args.output) if args.output else Path(f"{Path(args.model).stem}-{args.board}")
    check_output_dir(out_dir, "-o")  # before the cross build
    _, deployment, _ = deploy(args, port=None, out_dir=out_dir)
    firmware = deployment.firmware
    if firmware.system:  # Zephyr's image: its own memory report, no split by the board file's regions
        show(args, {"board": firmware.board.name, "system": firmware.system, "elf": str(firmware.elf),
                    "flash_bytes": firmware.flash_bytes, "ram_bytes": firmware.ram_bytes,
                    "workspace_bytes": firmware.workspace_bytes, "main_stack_bytes": firmware.stack_bytes,
                    "interface": args.interface}, firmware.summary())
        return ExitStatus.OK
    split = memory_split(firmware, deployment.compiled)
    if args.json:
        print_json({"board": firmware.board.name, "elf": str(firmware.elf), "flash_bytes": firmware.flash_bytes,
                     "ram_bytes": firmware.ram_bytes, "workspace_bytes": firmware.workspace_bytes,
                     "fits": firmware.fits, "interface": args.interface, "memory": split.to_json()})
    else:
        print(firmware.summary())
        print("\n".join(format_memory(split)))
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    sub = command("build", cmd_build, "cross-compile the model's firmware for a board")
    sub.add_argument("--board", required=True)
    sub.add_argument("-o", "--output", help="output directory (default: MODEL-BOARD)")
    sub.add_argument("--json", action="store_true")
    add_zephyr_options(sub)
    add_product_options(sub, pool_from_app=False)
    add_ram_weights_option(sub)
    add_interface_option(sub)
    add_planning_options(sub)
