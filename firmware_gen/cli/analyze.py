"""`firmware-gen analyze`: per layer kernel, MACs, weights, activations, buffers; with --board the firmware's
memory split and fit."""

from __future__ import annotations

import argparse
import sys

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    deploy,
    generation_options,
    load_graph,
    planning_options,
    show,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_interface_option,
    add_planning_options,
    add_product_options,
)
from firmware_gen.output_paths import check_output_file


def cmd_analyze(args: argparse.Namespace) -> int:
    from firmware_gen.check.analysis import analyze
    from firmware_gen.check.analysis_report import format_analysis

    if args.html:
        from firmware_gen.figures import pyplot

        check_output_file(args.html, "--html")  # before the work
        pyplot("--html")
    deployment, progress = None, None
    if args.board:
        _, deployment, progress = deploy(args, port=None)
        compiled = deployment.compiled
        report = analyze(compiled, args.model, deployment.firmware)
    else:
        from firmware_gen.driver.compiler import compile_graph

        compiled = compile_graph(load_graph(args.model), args.interface, planning_options(args),
                                 generation=generation_options(args))
        report = analyze(compiled, args.model)
    if args.html:
        from firmware_gen.check.html_report import write_html_report

        write_html_report(args.html, report, compiled.plan, deployment, progress, cycles=args.cycles)
    show(args, report.to_json(), format_analysis(report))
    if args.html:
        print(f"wrote {args.html}: the report as one self-contained page", file=sys.stderr if args.json else sys.stdout)
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    sub = command("analyze", cmd_analyze, "per layer: kernel, MACs, weights, activations, buffers; with --board the "
                                          "firmware's flash and RAM split from its ELF and the fit with margins")
    sub.add_argument("--board", help="build the firmware for this board and split its memory")
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--html", metavar="FILE", help="also write one self-contained HTML page: the tables, the memory "
                     "timeline and, with a QEMU board, the per-layer profile of one run (needs matplotlib)")
    sub.add_argument("--cycles", action="store_true", help="with --html and a QEMU board: the profile run also "
                     "estimates core cycles per layer (an estimate; docs/cycle_model.md)")
    add_product_options(sub, pool_from_app=False)
    add_interface_option(sub)
    add_planning_options(sub)
