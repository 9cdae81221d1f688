"""`firmware-gen plan`: the static memory plan of the workspace pool."""

from __future__ import annotations

import argparse

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    board_isa,
    load_graph,
    planning_options,
    print_json,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_interface_option,
    add_planning_options,
)
from firmware_gen.output_paths import check_output_file


def cmd_plan(args: argparse.Namespace) -> int:
    from firmware_gen.abi import pool_symbol
    from firmware_gen.driver.compiler import compile_graph, plan_model
    from firmware_gen.ops import check_supported
    from firmware_gen.planner.report import format_plan

    if args.plot:
        check_output_file(args.plot, "--plot")  # before the work
    graph = load_graph(args.model)
    check_supported(graph)
    options, stage = planning_options(args), None
    # A board's kernel variants may allow less overlap; a patch stage is chosen on the kernel calls: both as the
    # firmware plans them.
    if args.board or options.patch_stage or options.patches == "min" or any(p.size_limit for p in options.pools):
        compiled = compile_graph(graph, options=options, isa=board_isa(args))
        graph, plan, stage = compiled.planned_graph, compiled.plan, compiled.stage
    else:
        plan = plan_model(graph, options)
    if args.plot:
        from firmware_gen.planner.plot import plot_plan

        plot_plan(plan, args.plot, title=graph.name)
    if args.json:
        data = plan.to_json()
        for pool in data["pools"]:
            pool["symbol"] = pool_symbol(pool["name"])
        # The plan never depends on the interface (planning precedes legalization); it is echoed for the record.
        patches = {"patch_stage": stage.to_json(graph)} if stage else {}
        print_json({**data, **patches, "interface": args.interface})
    else:
        print(format_plan(plan, graph) + (f"\n{stage.describe(graph)}" if stage else ""))
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    from firmware_gen.planner import ALGORITHMS

    sub = command("plan", cmd_plan, "the static memory plan of the workspace pool")
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--board", help="plan as the firmware for this board does, with its CPU's kernel variants "
                                     "(default: the portable kernels)")
    sub.add_argument("--algorithm", choices=list(ALGORITHMS),
                     help="one planning algorithm (default: run them all, keep the smallest pool)")
    add_planning_options(sub)
    sub.add_argument("--plot", metavar="PNG", help="draw the memory timeline (needs matplotlib)")
    add_interface_option(sub)
