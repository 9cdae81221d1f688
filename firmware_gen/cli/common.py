"""What the commands share: reading the model, the options every command turns into the stages' settings, the
board a command runs on, and the deployment (generated and cross-compiled) that build, run, flash and validate use."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from firmware_gen.errors import UserError


def print_json(data: dict) -> None:
    print(json.dumps(data, indent=2, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def show(args: argparse.Namespace, data: dict, text: str) -> None:
    """The result of a command: JSON with --json, else the text."""
    if args.json:
        print_json(data)
    else:
        print(text)


def read_model(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror})") from None


def load_graph(path: str):
    from firmware_gen.frontend.tflite_reader import load_model

    return load_model(path)


def parse_pool(text: str, priority: int):
    """--pool NAME[:SIZE], SIZE in bytes with an optional K or M suffix; no size: unlimited."""
    from firmware_gen.planner import PoolSpec
    from firmware_gen.project_config import split_pool

    try:
        name, size = split_pool(text)
    except ValueError as error:
        raise UserError(f"--pool {text}: {error}") from None
    return PoolSpec(name, size, priority)


def planning_options(args: argparse.Namespace):
    """The PlanningOptions of a command; its defaults for a command without planning options."""
    from firmware_gen.planner import PlanningOptions

    pools = tuple(parse_pool(text, priority) for priority, text in enumerate(getattr(args, "pool", None) or []))
    if len({p.name for p in pools}) != len(pools):
        raise UserError("--pool: each pool needs a distinct name")
    defaults = PlanningOptions()
    return PlanningOptions(overlap=getattr(args, "overlap", defaults.overlap), pools=pools,
                           io_in_pool=getattr(args, "io_in_pool", defaults.io_in_pool),
                           algorithm=getattr(args, "algorithm", None),
                           patches=getattr(args, "patches", defaults.patches),
                           patch_stage=getattr(args, "patch_stage", None))


def generation_options(args: argparse.Namespace):
    """The GenerationOptions of a command (--name, --pool-from-app, --weights-section); defaults without them."""
    from firmware_gen.backend.options import GenerationOptions

    defaults = GenerationOptions()
    return GenerationOptions(name=getattr(args, "name", None) or defaults.name,
                             pool_from_app=getattr(args, "pool_from_app", False),
                             weights_section=getattr(args, "weights_section", None))


def model_inputs(args: argparse.Namespace, graph) -> list[np.ndarray]:
    from firmware_gen.check.inputs import load_inputs, random_inputs

    return load_inputs(args.input, graph) or random_inputs(graph, args.seed)


def board_isa(args: argparse.Namespace):
    """The instruction set the kernels may use: the board's (--board), else portable C."""
    from firmware_gen.isa import PORTABLE
    from firmware_gen.target.boards import load_board

    return load_board(args.board).isa if getattr(args, "board", None) else PORTABLE


def check_cycles_board(args: argparse.Namespace) -> None:
    """--cycles needs QEMU's trace, and a core the timing model knows: refused before the build."""
    from firmware_gen.link.cycle_run import check_timing
    from firmware_gen.target.boards import load_board

    board = load_board(args.board)
    if args.port or not board.emulated:
        raise UserError("--cycles estimates cycles from QEMU's execution trace: it needs a QEMU board, without "
                        "--port (a real board's run reports measured cycles already)")
    check_timing(board)


def board_port(args: argparse.Namespace) -> str | None:
    """The serial port the run goes through, None for QEMU's own: --port, else for a real board the port of its
    probe (list_ports by USB ids, --probe narrows by serial number)."""
    from firmware_gen.link.serial_ports import find_board_port
    from firmware_gen.target.boards import load_board

    port = getattr(args, "port", None)
    if not hasattr(args, "port") or not args.board or port is not None:
        return port
    board = load_board(args.board)
    return None if board.emulated else find_board_port(board, getattr(args, "probe", None))


def deploy(args: argparse.Namespace, port: str | None, interface: str | None = None, out_dir: Path | None = None):
    """(model bytes, the deployment: generated and cross-compiled, progress reporter)."""
    from firmware_gen.driver.deploy import prepare, quiet, stderr_progress

    data = read_model(args.model)
    progress = quiet if getattr(args, "json", False) else stderr_progress
    arguments = {"interface": interface or args.interface, "out_dir": out_dir, "progress": progress,
                 "semihosting": None if port is None else False, "options": planning_options(args),
                 "generation": generation_options(args), "zephyr": zephyr_tree(args, port)}
    if getattr(args, "weights_in_ram", None):
        from firmware_gen.driver.ram_weights import parse_budget, prepare_with_ram_weights

        budget = parse_budget(args.weights_in_ram)
        return data, prepare_with_ram_weights(data, args.model, args.board, budget, **arguments)[0], progress
    return data, prepare(data, args.model, args.board, **arguments), progress


def zephyr_tree(args: argparse.Namespace, port: str | None):
    """The Zephyr tree of --zephyr (--zephyr-base, else ZEPHYR_BASE); None without --zephyr."""
    if not getattr(args, "zephyr", False):
        return None
    from firmware_gen.target.zephyr_tree import find_tree

    if port is not None or getattr(args, "dataset", None):
        raise UserError("--zephyr runs zephyr_app under QEMU: it takes no --port and no --dataset")
    return find_tree(args.zephyr_base)
