"""The `firmware-gen` command line: it parses the arguments and wires the stages together; the work is theirs."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from firmware_gen import __version__
from firmware_gen.abi import CALLING_CONVENTIONS, ExitStatus
from firmware_gen.errors import UnsupportedModelError, UserError
from firmware_gen.output_paths import check_output_dir, check_output_file

# Settings of the project file a command does not take from it: validate and demo run where the command line says.
_NOT_FROM_CONFIG = {("validate", "board"), ("demo", "board")}


def _print_json(data: dict) -> None:
    print(json.dumps(data, indent=2, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def _show(args: argparse.Namespace, data: dict, text: str) -> None:
    """The result of a command: JSON with --json, else the text."""
    if args.json:
        _print_json(data)
    else:
        print(text)


def _read_model(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror})") from None


def _load_graph(path: str):
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
                           algorithm=getattr(args, "algorithm", None))


def generation_options(args: argparse.Namespace):
    """The GenerationOptions of a command (--name, --pool-from-app, --weights-section); defaults without them."""
    from firmware_gen.backend.options import GenerationOptions

    defaults = GenerationOptions()
    return GenerationOptions(name=getattr(args, "name", None) or defaults.name,
                             pool_from_app=getattr(args, "pool_from_app", False),
                             weights_section=getattr(args, "weights_section", None))


def _inputs(args: argparse.Namespace, graph) -> list[np.ndarray]:
    from firmware_gen.check.inputs import load_inputs, random_inputs

    return load_inputs(args.input, graph) or random_inputs(graph, args.seed)


def cmd_inspect(args: argparse.Namespace) -> int:
    from firmware_gen.check.model_summary import format_summary, summarize

    summary = summarize(_load_graph(args.model), unsupported_too=True)
    _show(args, summary.to_json(), format_summary(summary))
    if len(summary.unsupported) == 1:
        raise UnsupportedModelError(summary.unsupported[0].unsupported)
    if summary.unsupported:
        raise UnsupportedModelError(f"{summary.name}: {len(summary.unsupported)} operators cannot be compiled "
                                    f"({', '.join(str(op.index) for op in summary.unsupported)}; listed above)")
    return ExitStatus.OK


def cmd_plan(args: argparse.Namespace) -> int:
    from firmware_gen.abi import pool_symbol
    from firmware_gen.driver.compiler import compile_graph, plan_model
    from firmware_gen.ops import check_supported
    from firmware_gen.planner.report import format_plan

    if args.plot:
        check_output_file(args.plot, "--plot")  # before the work
    graph = _load_graph(args.model)
    check_supported(graph)
    if args.board:  # as the firmware plans it: a kernel variant of the board's CPU may allow less overlap
        compiled = compile_graph(graph, options=planning_options(args), isa=_isa(args))
        graph, plan = compiled.graph, compiled.plan
    else:
        plan = plan_model(graph, planning_options(args))
    if args.plot:
        from firmware_gen.planner.plot import plot_plan

        plot_plan(plan, args.plot, title=graph.name)
    if args.json:
        data = plan.to_json()
        for pool in data["pools"]:
            pool["symbol"] = pool_symbol(pool["name"])
        # The plan never depends on the interface (planning precedes legalization); it is echoed for the record.
        _print_json({**data, "interface": args.interface})
    else:
        print(format_plan(plan, graph))
    return ExitStatus.OK


def cmd_generate(args: argparse.Namespace) -> int:
    from firmware_gen.driver.compiler import generate

    generation = generation_options(args)
    generation.check(args.interface, named_pools=bool(args.pool))  # before reading the model
    check_output_dir(args.output, "-o")
    graph = _load_graph(args.model)
    compiled = generate(graph, args.output, source=Path(args.model).name, interface=args.interface,
                        options=planning_options(args), isa=_isa(args), generation=generation)
    print(f"wrote {args.output}/model.c, model.h, model_weights.c, model_weights.h and runtime/: "
          f"{len(compiled.steps)} steps ({args.interface}), pool {compiled.plan.pool_bytes:,} B "
          f"(lower bound {compiled.plan.lower_bound_bytes:,} B)")
    print(f"wrote {args.output}/CMakeLists.txt (library {generation.name}_model), model.mk and README.txt "
          f"(how to call it, what the linker script needs)")
    if args.zephyr:
        from firmware_gen.backend.zephyr_module import write_zephyr_module

        write_zephyr_module(args.output, source=Path(args.model).name)
        print(f"wrote {args.output}/zephyr/: a Zephyr module; build it with the app: west build -b BOARD zephyr_app "
              f"-- -DFIRMWARE_GEN_MODEL_DIR={Path(args.output).resolve()}")
    return ExitStatus.OK


def _isa(args: argparse.Namespace):
    """The instruction set the kernels may use: the board's (--board), else portable C."""
    from firmware_gen.isa import PORTABLE
    from firmware_gen.target.boards import load_board

    return load_board(args.board).isa if getattr(args, "board", None) else PORTABLE


def _board_port(args: argparse.Namespace) -> str | None:
    """The serial port the run goes through, None for QEMU's own: --port, else for a real board the port of its
    probe (list_ports by USB ids, --probe narrows by serial number)."""
    from firmware_gen.link.serial_ports import find_board_port
    from firmware_gen.target.boards import load_board

    port = getattr(args, "port", None)
    if not hasattr(args, "port") or not args.board or port is not None:
        return port
    board = load_board(args.board)
    return None if board.emulated else find_board_port(board, getattr(args, "probe", None))


def _deploy(args: argparse.Namespace, port: str | None, interface: str | None = None, out_dir: Path | None = None):
    """(model bytes, the deployment: generated and cross-compiled, progress reporter)."""
    from firmware_gen.driver.deploy import prepare, quiet, stderr_progress

    data = _read_model(args.model)
    progress = quiet if getattr(args, "json", False) else stderr_progress
    deployment = prepare(data, args.model, args.board, interface=interface or args.interface, out_dir=out_dir,
                         progress=progress, semihosting=None if port is None else False,
                         options=planning_options(args), generation=generation_options(args),
                         zephyr=_zephyr_tree(args, port))
    return data, deployment, progress


def _zephyr_tree(args: argparse.Namespace, port: str | None):
    """The Zephyr tree of --zephyr (--zephyr-base, else ZEPHYR_BASE); None without --zephyr."""
    if not getattr(args, "zephyr", False):
        return None
    from firmware_gen.target.zephyr_tree import find_tree

    if port is not None or getattr(args, "dataset", None):
        raise UserError("--zephyr runs zephyr_app under QEMU: it takes no --port and no --dataset")
    return find_tree(args.zephyr_base)


def _validate_on_board(args: argparse.Namespace) -> int:
    from firmware_gen.check.board_validation import validate_on_board

    port = _board_port(args)
    data, deployment, progress = _deploy(args, port)
    report = validate_on_board(data, args.model, deployment, _inputs(args, deployment.graph), serial_url=port,
                               baudrate=args.baud, progress=progress)
    _show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def _validate_layers_on_board(args: argparse.Namespace, frames: list | None = None) -> int:
    from firmware_gen.check.layer_validation import validate_layers_over_sequence

    if not args.board:
        raise UserError("--layers runs the model step by step on a board: give --board")
    port = _board_port(args)
    data, deployment, progress = _deploy(args, port, interface="packed")  # steps run through the packed registry
    progress(f"running {len(deployment.compiled.steps)} steps one by one on {args.board}, then TFLite Micro")
    frames = frames or [_inputs(args, deployment.graph)]
    report = validate_layers_over_sequence(data, deployment.compiled, deployment.firmware, frames,
                                           source=args.model, serial_url=port, baudrate=args.baud)
    _show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def _validate_dataset(args: argparse.Namespace) -> int:
    from firmware_gen.check.dataset import load_dataset, load_labels
    from firmware_gen.check.dataset_validation import no_progress, stderr_bar, validate_dataset

    graph = _load_graph(args.model)
    samples = load_dataset(args.dataset, graph)
    labels = load_labels(args.labels, len(samples))
    reference, float_samples = _reference(args, graph)
    bar = no_progress if args.json else stderr_bar
    if args.board:  # QEMU only: the samples are built into the firmware's flash
        from firmware_gen.check.dataset_board import validate_dataset_on_board
        from firmware_gen.driver.dataset_deploy import check_emulated

        check_emulated(args.board, args.port)
        data, deployment, progress = _deploy(args, None)
        report = validate_dataset_on_board(data, args.model, deployment, samples, labels, progress=bar,
                                           message=progress, reference=reference, float_samples=float_samples)
    else:
        report = validate_dataset(graph, _read_model(args.model), args.model, samples, labels, progress=bar,
                                  options=planning_options(args), reference=reference, float_samples=float_samples)
    _show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def _reference(args: argparse.Namespace, graph) -> tuple:
    """(the float model of --reference, checked against the quantized one; the dataset as floats), or Nones."""
    if not args.reference:
        return None, None
    from firmware_gen.check.dataset import load_float_dataset
    from firmware_gen.check.reference_model import load_reference

    return load_reference(args.reference, graph), load_float_dataset(args.dataset, graph)


def _validate_sequence(args: argparse.Namespace, frames: list) -> int:
    from firmware_gen.check.sequence_validation import validate_sequence

    if args.layers:
        return _validate_layers_on_board(args, frames)
    if args.board:  # QEMU only: the frames are built into the firmware's flash and run in order
        from firmware_gen.check.sequence_board import validate_sequence_on_board

        if args.zephyr:
            raise UserError("--zephyr validates one invocation; a sequence's frames go into a bare-metal firmware's "
                            "flash (run a sequence with `run --zephyr`)")
        from firmware_gen.driver.dataset_deploy import check_emulated

        check_emulated(args.board, args.port)
        data, deployment, progress = _deploy(args, None)
        report = validate_sequence_on_board(data, args.model, deployment, frames, message=progress)
        _show(args, report.to_json(), report.format())
        return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH
    report = validate_sequence(args.model, frames, sanitize=args.sanitize, interface=args.interface,
                               options=planning_options(args))
    _show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def cmd_validate(args: argparse.Namespace) -> int:
    from firmware_gen.check.host_validation import validate_model
    from firmware_gen.check.inputs import load_inputs, load_sequence

    if args.reference and not args.dataset:
        raise UserError("--reference compares with a float model on a dataset: give --dataset FILE.npz too")
    if args.dataset:
        return _validate_dataset(args)
    graph = _load_graph(args.model)
    frames = load_sequence(args.input, graph)
    if frames is not None:
        return _validate_sequence(args, frames)
    if args.layers:
        return _validate_layers_on_board(args)
    if args.board:
        return _validate_on_board(args)
    inputs = load_inputs(args.input, graph)
    report = validate_model(args.model, inputs=inputs, seed=args.seed, sanitize=args.sanitize,
                            interface=args.interface, options=planning_options(args))
    _show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def cmd_cache(args: argparse.Namespace) -> int:
    from firmware_gen.target import cache_limit

    root, limit = cache_limit.cache_root(), cache_limit.limit_bytes()
    items = cache_limit.clear(root) if args.clear else cache_limit.cache_items(root)
    kinds: dict[str, list[int]] = {}
    for item in items:
        count_size = kinds.setdefault(item.path.parent.name, [0, 0])
        count_size[0] += 1
        count_size[1] += item.size
    total = sum(size for _, size in kinds.values())
    verb = "removed" if args.clear else "holds"
    lines = [f"{root} {verb} {total / 2**20:.1f} MiB (limit {limit / 2**20:.0f} MiB, "
             f"{cache_limit.LIMIT_ENV}; least recently used first)"]
    lines += [f"  {kind:<14} {count:>6} items {size / 2**20:>9.1f} MiB"
              for kind, (count, size) in sorted(kinds.items())]
    _show(args, {"root": str(root), "limit_bytes": limit, "cleared": args.clear, "total_bytes": total,
                 "kinds": {kind: {"items": c, "bytes": b} for kind, (c, b) in kinds.items()}}, "\n".join(lines))
    return ExitStatus.OK


def cmd_boards(args: argparse.Namespace) -> int:
    from firmware_gen.target.boards import list_boards, load_board

    boards = [load_board(name) for name in list_boards()]
    if args.json:
        _print_json({"boards": [{"name": b.name, "cpu": b.core, "description": b.description,
                                 "flash_bytes": b.region_for("code").size, "ram_bytes": b.region_for("pool").size}
                                for b in boards]})
        return ExitStatus.OK
    print(f"{'board':<16} {'cpu':<11} {'flash':>10} {'RAM':>10}  description")
    for b in boards:
        print(f"{b.name:<16} {b.core:<11} {b.region_for('code').size // 1024:>7} KiB "
              f"{b.region_for('pool').size // 1024:>6} KiB  {b.description}")
    return ExitStatus.OK


def cmd_flash(args: argparse.Namespace) -> int:
    from firmware_gen.link.flashing import flash, refuse_emulated
    from firmware_gen.target.boards import load_board

    refuse_emulated(load_board(args.board), args.model)  # before building anything
    _, deployment, progress = _deploy(args, port=None)
    print(deployment.firmware.summary())
    probe = flash(deployment.firmware.board, deployment.firmware.elf, args.probe, progress=progress)
    print(f"flashed {args.board} through {probe.description} {probe.unique_id}; now: "
          f"firmware-gen run {args.model} --board {args.board}")
    return ExitStatus.OK


def cmd_build(args: argparse.Namespace) -> int:
    from firmware_gen.check.analysis import memory_split
    from firmware_gen.check.analysis_report import format_memory

    out_dir = Path(args.output) if args.output else Path(f"{Path(args.model).stem}-{args.board}")
    check_output_dir(out_dir, "-o")  # before the cross build
    _, deployment, _ = _deploy(args, port=None, out_dir=out_dir)
    firmware = deployment.firmware
    if firmware.system:  # Zephyr's image: its own memory report, no split by the board file's regions
        _show(args, {"board": firmware.board.name, "system": firmware.system, "elf": str(firmware.elf),
                     "flash_bytes": firmware.flash_bytes, "ram_bytes": firmware.ram_bytes,
                     "workspace_bytes": firmware.workspace_bytes, "main_stack_bytes": firmware.stack_bytes,
                     "interface": args.interface}, firmware.summary())
        return ExitStatus.OK
    split = memory_split(firmware, deployment.compiled)
    if args.json:
        _print_json({"board": firmware.board.name, "elf": str(firmware.elf), "flash_bytes": firmware.flash_bytes,
                     "ram_bytes": firmware.ram_bytes, "workspace_bytes": firmware.workspace_bytes,
                     "fits": firmware.fits, "interface": args.interface, "memory": split.to_json()})
    else:
        print(firmware.summary())
        print("\n".join(format_memory(split)))
    return ExitStatus.OK


def cmd_analyze(args: argparse.Namespace) -> int:
    from firmware_gen.check.analysis import analyze
    from firmware_gen.check.analysis_report import format_analysis

    if args.html:
        from firmware_gen.figures import pyplot

        check_output_file(args.html, "--html")  # before the work
        pyplot("--html")
    deployment, progress = None, None
    if args.board:
        _, deployment, progress = _deploy(args, port=None)
        compiled = deployment.compiled
        report = analyze(compiled, args.model, deployment.firmware)
    else:
        from firmware_gen.driver.compiler import compile_graph

        compiled = compile_graph(_load_graph(args.model), args.interface, planning_options(args),
                                 generation=generation_options(args))
        report = analyze(compiled, args.model)
    if args.html:
        from firmware_gen.check.html_report import write_html_report

        write_html_report(args.html, report, compiled.plan, deployment, progress)
    _show(args, report.to_json(), format_analysis(report))
    if args.html:
        print(f"wrote {args.html}: the report as one self-contained page", file=sys.stderr if args.json else sys.stdout)
    return ExitStatus.OK


def _run_sequence(args: argparse.Namespace, deployment, frames: list, port: str | None, progress) -> int:
    from firmware_gen.check.profile import build_profile, format_profile, plot_profile
    from firmware_gen.check.run_report import save_outputs
    from firmware_gen.check.sequence_run import format_sequence, sequence_json, sequence_reports, stacked_outputs
    from firmware_gen.driver.deploy import run_frames

    results = run_frames(deployment, frames, serial_url=port, progress=progress, baudrate=args.baud)
    profile = build_profile(deployment.graph, results[0], deployment.compiled.calls)
    reports = sequence_reports(deployment.graph, results, deployment.firmware.board)
    if args.save_outputs:
        save_outputs(args.save_outputs, stacked_outputs(results))
    if args.plot:
        plot_profile(profile, args.plot, title=f"{Path(args.model).name} on {args.board}, invocation 0")
    if args.json:
        _print_json({"invocations": sequence_json(reports, results), "profile": profile.to_json()["layers"],
                     "macs": profile.macs, "interface": args.interface})
        return ExitStatus.OK
    print(f"profile of invocation 0 of {len(frames)}:")
    print(format_profile(profile))
    print(format_sequence(reports))
    if args.save_outputs:
        print(f"wrote {args.save_outputs}: the raw outputs, frames x each output's shape")
    return ExitStatus.OK


def cmd_run(args: argparse.Namespace) -> int:
    from firmware_gen.check.inputs import load_sequence
    from firmware_gen.check.profile import build_profile, format_profile, plot_profile
    from firmware_gen.check.run_report import build_run_report, check_save_path, run_json, save_outputs
    from firmware_gen.driver.deploy import run

    if args.plot:
        check_output_file(args.plot, "--plot")  # before the build and the run
    if args.save_outputs:
        check_save_path(args.save_outputs)
    port = _board_port(args)
    _, deployment, progress = _deploy(args, port)
    if args.save_outputs:
        check_save_path(args.save_outputs, outputs=len(deployment.graph.outputs))
    frames = load_sequence(args.input, deployment.graph)
    if frames is not None:
        return _run_sequence(args, deployment, frames, port, progress)
    result = run(deployment, _inputs(args, deployment.graph), serial_url=port, progress=progress,
                 baudrate=args.baud)
    profile = build_profile(deployment.graph, result, deployment.compiled.calls)
    report = build_run_report(deployment.graph, result, deployment.firmware.board)
    if args.save_outputs:
        save_outputs(args.save_outputs, result.outputs)
    if args.plot:
        plot_profile(profile, args.plot, title=f"{Path(args.model).name} on {args.board}")
    if args.json:
        _print_json({**run_json(report, result), "profile": profile.to_json()["layers"], "macs": profile.macs,
                     "interface": args.interface})
        return ExitStatus.OK
    print(format_profile(profile))
    print(report.format())
    if args.save_outputs:
        print(f"wrote {args.save_outputs}: the raw outputs")
    return ExitStatus.OK


def cmd_selftest(args: argparse.Namespace) -> int:
    from firmware_gen.check.selftest import selftest

    def progress(message: str) -> None:
        if not args.json:
            print(f"firmware-gen: {message}", file=sys.stderr, flush=True)

    report = selftest(args.board, port=_board_port(args), baudrate=args.baud, probe=args.probe,
                      flash_first=not args.no_flash, progress=progress)
    _show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.passed else ExitStatus.MISMATCH


def cmd_demo(args: argparse.Namespace) -> int:
    from firmware_gen.check.demo import run_demo

    return run_demo(board=args.board, seed=args.seed, options=planning_options(args))


def _add_planning_options(sub: argparse.ArgumentParser, overlap_only: bool = False) -> None:
    from firmware_gen.planner import PlanningOptions

    defaults = PlanningOptions()
    sub.add_argument("--overlap", action=argparse.BooleanOptionalAction, default=defaults.overlap,
                     help="let outputs overlap inputs where the kernels allow it (default: on)")
    if overlap_only:
        return
    sub.add_argument("--pool", action=_Repeated, metavar="NAME[:SIZE]",
                     help="a RAM pool, e.g. dtcm:64K (repeat, fastest first; the last may have no size); on a "
                          "board each pool goes to the memory region of its name")
    sub.add_argument("--io-in-pool", action=argparse.BooleanOptionalAction, default=defaults.io_in_pool,
                     help="plan the model's inputs and outputs in the pool (default); --no-io-in-pool leaves "
                          "them in the caller's buffers, which fg_model_run reads and writes in place")


def _add_product_options(sub: argparse.ArgumentParser, pool_from_app: bool = True) -> None:
    sub.add_argument("--name", help="prefix of every external symbol (NAME_model_run, NAME_pool, NAME_const_*) and, "
                                    "upper-cased, every macro of the model (default: fg)")
    sub.add_argument("--weights-section", metavar="SECTION",
                     help="put the weights in this linker section (e.g. .ext_flash), for external flash or a bank")
    if pool_from_app:
        sub.add_argument("--pool-from-app", action="store_true",
                         help="the application supplies the workspace pool through NAME_model_set_pool()")


def _add_interface_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--interface", choices=CALLING_CONVENTIONS, default="unpacked",
                     help="how the schedule calls kernels: direct C calls (default) or TVM's packed ABI")


def _add_input_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--input", action="append", help="input tensor as .npy (once per model input); validate and run: "
                     "an array with one more leading axis (frames) is a sequence, run in order, state carried")
    sub.add_argument("--seed", type=int, default=0, help="seed of the random inputs")


def _add_zephyr_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--zephyr", action="store_true", help="build zephyr_app/ with the model as a Zephyr module, for "
                     "Zephyr's board of the --board name, and run it under QEMU as Zephyr's board does")
    sub.add_argument("--zephyr-base", metavar="DIR", help="with --zephyr: the zephyr/ folder of a Zephyr workspace "
                     "(default: $ZEPHYR_BASE)")


def _add_link_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--port", help="serial port of a real board (e.g. /dev/ttyACM0); default: QEMU")
    sub.add_argument("--baud", type=int, help="baud rate of the serial port (default: the board file's)")
    sub.add_argument("--probe", help="a real board without --port: the serial number of its probe, to pick its "
                                     "port among several boards")


Command = Callable[[argparse.Namespace], int]


def _add_compile_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    from firmware_gen.planner import ALGORITHMS

    sub = command("inspect", cmd_inspect, "operators, tensors, MACs, weight bytes, activation lower bound")
    sub.add_argument("--json", action="store_true")
    sub = command("plan", cmd_plan, "the static memory plan of the workspace pool")
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--board", help="plan as the firmware for this board does, with its CPU's kernel variants "
                                     "(default: the portable kernels)")
    sub.add_argument("--algorithm", choices=list(ALGORITHMS),
                     help="one planning algorithm (default: run them all, keep the smallest pool)")
    _add_planning_options(sub)
    sub.add_argument("--plot", metavar="PNG", help="draw the memory timeline (needs matplotlib)")
    _add_interface_option(sub)
    sub = command("analyze", cmd_analyze, "per layer: kernel, MACs, weights, activations, buffers; with --board the "
                                          "firmware's flash and RAM split from its ELF and the fit with margins")
    sub.add_argument("--board", help="build the firmware for this board and split its memory")
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--html", metavar="FILE", help="also write one self-contained HTML page: the tables, the memory "
                     "timeline and, with a QEMU board, the per-layer profile of one run (needs matplotlib)")
    _add_product_options(sub, pool_from_app=False)
    _add_interface_option(sub)
    _add_planning_options(sub)
    sub = command("generate", cmd_generate, "write the C sources of the model")
    sub.add_argument("-o", "--output", required=True, help="output directory")
    sub.add_argument("--board", help="pick the kernel variants for this board's CPU (DSP, MVE); default: portable C")
    sub.add_argument("--zephyr", action="store_true",
                     help="also make the directory a Zephyr module (zephyr/module.yml, CMakeLists.txt, pool section) "
                          "for zephyr_app/")
    _add_product_options(sub)
    _add_interface_option(sub)
    _add_planning_options(sub)
    sub = command("validate", cmd_validate, "compare every tensor of the generated C with TFLite Micro")
    _add_input_options(sub)
    sub.add_argument("--sanitize", action="store_true", help="host build with AddressSanitizer and UBSan")
    sub.add_argument("--dataset", metavar="FILE.npz", help="validate on these samples (one array per input, "
                     "float samples quantized with the input's parameters): error metrics per output")
    sub.add_argument("--labels", metavar="FILE.npy", help="with --dataset: class labels, for top-1 accuracy")
    sub.add_argument("--reference", metavar="FLOAT.tflite", help="with --dataset: also compare with this float "
                     "model run by LiteRT (the quantization error; pip install 'firmware-gen[reference]')")
    sub.add_argument("--board", help="run on this board (QEMU, or a real board with --port) instead of the host; "
                                     "with --dataset a QEMU board, the samples built into its flash")
    _add_link_options(sub)
    _add_zephyr_options(sub)
    sub.add_argument("--layers", action="store_true",
                     help="with --board: run the schedule step by step on the board and compare every layer with "
                          "TFLite Micro, naming the first that differs (implies --interface packed)")
    _add_interface_option(sub)
    _add_planning_options(sub)
    sub.add_argument("--json", action="store_true")


def _add_board_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    sub = command("boards", cmd_boards, "the boards firmware-gen knows (one file each in boards/)", model=False)
    sub.add_argument("--json", action="store_true")
    sub = command("cache", cmd_cache, "the size of the build cache (firmware and objects), or --clear it",
                  model=False)
    sub.add_argument("--clear", action="store_true", help="remove every cached build and object")
    sub.add_argument("--json", action="store_true")
    sub = command("build", cmd_build, "cross-compile the model's firmware for a board")
    sub.add_argument("--board", required=True)
    sub.add_argument("-o", "--output", help="output directory (default: MODEL-BOARD)")
    sub.add_argument("--json", action="store_true")
    _add_zephyr_options(sub)
    _add_product_options(sub, pool_from_app=False)
    _add_interface_option(sub)
    _add_planning_options(sub)
    sub = command("run", cmd_run, "run the model on a board and show the per-layer profile")
    sub.add_argument("--board", required=True)
    _add_input_options(sub)
    _add_link_options(sub)
    _add_zephyr_options(sub)
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--plot", help="write a bar chart of the profile to this PNG")
    sub.add_argument("--save-outputs", metavar="FILE.npy", help="write the raw outputs (the model's dtype and "
                     "shape) to FILE.npy, or to FILE.npz (output_0, output_1, ...) for a model of several outputs")
    _add_interface_option(sub)
    _add_planning_options(sub)
    sub = command("flash", cmd_flash, "build the model's firmware for a real board and flash it with pyOCD")
    sub.add_argument("--board", required=True)
    sub.add_argument("--probe", help="unique id (or part of it) of the debug probe, when several are connected")
    _add_interface_option(sub)
    _add_planning_options(sub)
    sub = command("selftest", cmd_selftest, "check a board before trusting it: UART both ways, cycle counter and "
                  "clock, every RAM region, the CPU features its file claims, the end of run", model=False)
    sub.add_argument("--board", required=True, help="a board name or the path of a board file")
    _add_link_options(sub)
    sub.add_argument("--no-flash", action="store_true", help="a real board already flashed with the self-test")
    sub.add_argument("--json", action="store_true")
    sub = command("demo", cmd_demo, "MobileNetV1 0.25 on an emulated Cortex-M3, checked against TFLM", model=False)
    _add_planning_options(sub, overlap_only=True)
    sub.add_argument("--board", default="qemu_cortex_m3")
    sub.add_argument("--seed", type=int, default=0)


class _Repeated(argparse.Action):
    """action="append", except that the first use on the command line replaces a default of the project file."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        given = f"_{self.dest}_on_command_line"
        items = list(getattr(namespace, self.dest) or []) if getattr(namespace, given, False) else []
        setattr(namespace, given, True)
        setattr(namespace, self.dest, [*items, values])


def _apply_config(commands: argparse._SubParsersAction, settings: dict[str, object]) -> None:
    """The project file's settings become the defaults of the commands that take them (a required option it
    gives is no longer required); the command line overrides them."""
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.dest in settings and (name, action.dest) not in _NOT_FROM_CONFIG:
                sub.set_defaults(**{action.dest: settings[action.dest]})
                action.required = False


def _project_settings(argv: list[str]) -> dict[str, object]:
    """The settings of --config FILE, else of ./firmware-gen.toml, else none."""
    from firmware_gen.project_config import find_config, read_config

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config")
    known, _ = pre.parse_known_args(argv)
    path = find_config(known.config)
    return read_config(path) if path else {}


def build_parser(settings: dict[str, object] | None = None) -> argparse.ArgumentParser:
    """settings: the project file's, as argparse destinations and values."""
    parser = argparse.ArgumentParser(prog="firmware-gen", description=__doc__)
    parser.add_argument("--version", action="version", version=f"firmware-gen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, handler: Command, help_text: str, model: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if model:
            sub.add_argument("model", help="a quantized .tflite file")
        sub.set_defaults(handler=handler)
        sub.add_argument("--config", metavar="FILE", help="the project file (default: ./firmware-gen.toml if "
                                                          "there); the command line overrides its settings")
        return sub

    _add_compile_commands(command)
    _add_board_commands(command)
    _apply_config(commands, settings or {})
    return parser


class Signalled(KeyboardInterrupt):
    """SIGTERM, SIGHUP or SIGINT arrived: unwinds like Ctrl-C, so every `finally` runs (QEMU's process group is
    killed, temporary and half-built directories removed), then the command exits with 128 + the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _stop(signum: int, frame: object) -> None:
    for stop in _STOP_SIGNALS:  # a second signal must not interrupt the clean-up of the first
        signal.signal(stop, signal.SIG_IGN)
    raise Signalled(signum)


def _quiet_stdout() -> None:
    """The reader of stdout went away (`firmware-gen plan MODEL | head`): drop whatever is still buffered."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        settings = _project_settings(argv)
    except UserError as error:
        print(f"firmware-gen: error: {error}", file=sys.stderr)
        return error.exit_status
    args = build_parser(settings).parse_args(argv)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = {s: signal.signal(s, _stop) for s in _STOP_SIGNALS} if in_main_thread else {}
    try:
        status = args.handler(args)
        sys.stdout.flush()
        return status
    except UserError as error:
        print(f"firmware-gen: error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt as error:
        signum = getattr(error, "signum", signal.SIGINT)
        print(f"firmware-gen: interrupted ({signal.Signals(signum).name})", file=sys.stderr)
        return 128 + signum
    except BrokenPipeError:
        _quiet_stdout()
        return 128 + signal.SIGPIPE
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)


if __name__ == "__main__":
    sys.exit(main())
