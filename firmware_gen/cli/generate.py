"""`firmware-gen generate`: the C sources of the model (and, with --zephyr, a Zephyr module)."""

from __future__ import annotations

import argparse
from pathlib import Path

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    board_isa,
    generation_options,
    load_graph,
    planning_options,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_interface_option,
    add_planning_options,
    add_product_options,
)
from firmware_gen.output_paths import check_output_dir


def cmd_generate(args: argparse.Namespace) -> int:
    from firmware_gen.driver.compiler import generate

    generation = generation_options(args)
    generation.check(args.interface, named_pools=bool(args.pool))  # before reading the model
    check_output_dir(args.output, "-o")
    graph = load_graph(args.model)
    compiled = generate(graph, args.output, source=Path(args.model).name, interface=args.interface,
                        options=planning_options(args), isa=board_isa(args), generation=generation)
    print(f"wrote {args.output}/model.c, model.h, model_weights.c, model_weights.h and runtime/: "
          f"{len(compiled.steps)} steps ({args.interface}), pool {compiled.plan.pool_bytes:,} B "
          f"(lower bound {compiled.plan.lower_bound_bytes:,} B)")
    print(f"wrote {args.output}/CMakeLists.txt (library {generation.name}_model), model.mk and README.txt "
          f"(how to call it, what the linker script needs)")
    if args.zephyr:
        from firmware_gen.backend.zephyr_module import write_zephyr_module

        write_zephyr_module(args.output, source=Path(args.model).name, board=args.board)
        print(f"wrote {args.output}/zephyr/: a Zephyr module; build it with the app: west build -b BOARD zephyr_app "
              f"-- -DFIRMWARE_GEN_MODEL_DIR={Path(args.output).resolve()}")
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    sub = command("generate", cmd_generate, "write the C sources of the model")
    sub.add_argument("-o", "--output", required=True, help="output directory")
    sub.add_argument("--board", help="pick the kernel variants for this board's CPU (DSP, MVE); default: portable C")
    sub.add_argument("--zephyr", action="store_true",
                     help="also make the directory a Zephyr module (zephyr/module.yml, CMakeLists.txt, pool section) "
                          "for zephyr_app/")
    add_product_options(sub)
    add_interface_option(sub)
    add_planning_options(sub)
