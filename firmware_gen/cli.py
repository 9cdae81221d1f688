"""The `firmware-gen` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from firmware_gen import __version__
from firmware_gen.backend.packed import INTERFACES
from firmware_gen.errors import UserError


def _load(path: str):
    from firmware_gen.frontend.tflite_reader import load_model

    return load_model(path)


def _print_json(data: dict) -> None:
    print(json.dumps(data, indent=2, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def _load_inputs(paths: list[str] | None, graph) -> list[np.ndarray] | None:
    if not paths:
        return None
    if len(paths) != len(graph.inputs):
        raise UserError(f"the model has {len(graph.inputs)} input(s); {len(paths)} --input file(s) given")
    arrays = []
    for path, index in zip(paths, graph.inputs, strict=True):
        tensor = graph.tensors[index]
        try:
            array = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as error:
            raise UserError(f"{path}: not a readable .npy file ({error})") from None
        if array.size != tensor.num_elements:
            raise UserError(f"{path}: holds {array.size} elements; input {tensor.describe()} needs "
                            f"{tensor.num_elements}")
        if array.dtype != tensor.dtype.numpy_type:
            raise UserError(f"{path}: dtype {array.dtype}; input {tensor.describe()} needs {tensor.dtype}")
        arrays.append(array.reshape(tensor.shape))
    return arrays


def cmd_inspect(args: argparse.Namespace) -> int:
    from firmware_gen.check.model_summary import format_summary, summarize

    summary = summarize(_load(args.model))
    if args.json:
        _print_json(summary.to_json())
    else:
        print(format_summary(summary))
    return 0


_SIZE_SUFFIXES = {"": 1, "K": 1024, "M": 1024 * 1024}


def parse_pool(text: str, priority: int):
    """--pool NAME[:SIZE], SIZE in bytes with an optional K or M suffix; no size: unlimited."""
    from firmware_gen.planner import PoolSpec

    name, _, size = text.partition(":")
    if not name.isidentifier():
        raise UserError(f"--pool {text}: the pool name must be a C identifier")
    if not size:
        return PoolSpec(name, None, priority)
    digits, suffix = size.rstrip("kKmM"), size[len(size.rstrip("kKmM")):].upper()
    if not digits.isdigit() or suffix not in _SIZE_SUFFIXES:
        raise UserError(f"--pool {text}: the size must be bytes, e.g. 65536, 64K or 1M")
    return PoolSpec(name, int(digits) * _SIZE_SUFFIXES[suffix], priority)


def _planning(args: argparse.Namespace) -> dict:
    """The planning options of a command (planning_options) as keyword arguments of compiler.generate; the
    defaults for a command without them."""
    pools = [parse_pool(text, priority) for priority, text in enumerate(getattr(args, "pool", None) or [])] or None
    if pools and len({p.name for p in pools}) != len(pools):
        raise UserError("--pool: each pool needs a distinct name")
    return {"overlap": getattr(args, "overlap", True), "pools": pools, "io_in_pool": getattr(args, "io_in_pool", True)}


def cmd_plan(args: argparse.Namespace) -> int:
    from firmware_gen.driver.compiler import lower, view_aliases
    from firmware_gen.frontend.tflite_reader import check_supported
    from firmware_gen.planner import check_plan, plan_graph
    from firmware_gen.planner.report import format_plan

    graph = _load(args.model)
    planning = _planning(args)
    check_supported(graph)
    scratch = {index: call.scratch_bytes for index, call in lower(graph).items() if call.scratch_bytes}
    outside = () if planning["io_in_pool"] else (*graph.inputs, *graph.outputs)
    plan = plan_graph(graph, aliases=view_aliases(graph), algorithm=args.algorithm, overlap=planning["overlap"],
                      scratch=scratch, pools=planning["pools"], outside=outside)
    check_plan(plan, graph, scratch=scratch)
    if args.plot:
        from firmware_gen.planner.plot import plot_plan

        plot_plan(plan, args.plot, title=graph.name)
    if args.json:
        # The plan never depends on the interface (planning precedes legalization); it is echoed for the record.
        _print_json({**plan.to_json(), "interface": args.interface})
    else:
        print(format_plan(plan, graph))
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from firmware_gen.driver.compiler import generate

    graph = _load(args.model)
    compiled = generate(graph, args.output, source=Path(args.model).name, interface=args.interface,
                        **_planning(args))
    print(f"wrote {args.output}/model.c, model.h, model_weights.c, model_weights.h and runtime/: "
          f"{len(compiled.steps)} steps ({args.interface}), pool {compiled.plan.pool_bytes:,} B "
          f"(lower bound {compiled.plan.lower_bound_bytes:,} B)")
    if args.zephyr:
        from firmware_gen.backend.zephyr_module import write_zephyr_module

        write_zephyr_module(args.output, source=Path(args.model).name)
        print(f"wrote {args.output}/zephyr/: a Zephyr module; build it with the app: west build -b BOARD zephyr_app "
              f"-- -DFIRMWARE_GEN_MODEL_DIR={Path(args.output).resolve()}")
    return 0


def _validate_on_board(args: argparse.Namespace) -> int:
    from firmware_gen.check.host_validation import random_inputs
    from firmware_gen.driver.deploy import outputs_equal_oracle, run

    data, deployment, progress = _prepare(args)
    inputs = _load_inputs(args.input, deployment.graph) or random_inputs(deployment.graph, args.seed)
    result = run(deployment, inputs, serial_url=args.port, progress=progress, baudrate=args.baud)
    progress("running the same input through TensorFlow Lite Micro")
    equal = outputs_equal_oracle(data, deployment.graph, inputs, result.outputs)
    exact = all(equal)
    if args.json:
        _print_json({"model": args.model, "board": args.board, "interface": args.interface, "bit_exact": exact,
                     "outputs_compared": len(equal), "mismatches": [i for i, ok in enumerate(equal) if not ok],
                     "instructions": result.instructions})
    else:
        verdict = "bit-exact" if exact else "MISMATCH"
        print(f"{Path(args.model).name} on {args.board}: {verdict} with TensorFlow Lite Micro "
              f"({len(equal)} output(s) compared)")
    return 0 if exact else 1


def _validate_layers_on_board(args: argparse.Namespace) -> int:
    from firmware_gen.check.host_validation import random_inputs
    from firmware_gen.check.layer_validation import validate_layers

    if not args.board:
        raise UserError("--layers runs the model step by step on a board: give --board")
    args.interface = "packed"  # the steps are called through the packed registry
    data, deployment, progress = _prepare(args)
    inputs = _load_inputs(args.input, deployment.graph) or random_inputs(deployment.graph, args.seed)
    progress(f"running {len(deployment.compiled.steps)} steps one by one on {args.board}, then TFLite Micro")
    report = validate_layers(data, deployment.compiled, deployment.firmware, inputs, source=args.model,
                             serial_url=args.port)
    if args.json:
        _print_json(report.to_json())
    else:
        print(report.format())
    return 0 if report.bit_exact else 1


def cmd_validate(args: argparse.Namespace) -> int:
    from firmware_gen.check.host_validation import validate_model

    if args.layers:
        return _validate_layers_on_board(args)
    if args.board:
        return _validate_on_board(args)
    graph = _load(args.model)
    inputs = _load_inputs(args.input, graph)
    report = validate_model(args.model, inputs=inputs, seed=args.seed, sanitize=args.sanitize,
                            interface=args.interface, **_planning(args))
    if args.json:
        _print_json(report.to_json())
    else:
        verdict = "bit-exact" if report.bit_exact else "MISMATCH"
        print(f"{Path(args.model).name}: {verdict} with TFLite Micro: {report.tensors_compared} tensors and "
              f"{report.outputs_compared} output(s) compared, {len(report.mismatches)} differ")
        for m in report.mismatches[:10]:
            where = f"operator {m.op_index} ({m.opcode})" if m.op_index >= 0 else m.opcode
            print(f"  tensor {m.tensor} '{m.name}' {m.shape} from {where}: {m.differing_elements} elements differ, "
                  f"max |diff| {m.max_abs_diff:g}")
    return 0 if report.bit_exact else 1


def cmd_boards(args: argparse.Namespace) -> int:
    from firmware_gen.target.boards import list_boards, load_board

    boards = [load_board(name) for name in list_boards()]
    if args.json:
        _print_json({"boards": [{"name": b.name, "cpu": b.core, "description": b.description,
                                 "flash_bytes": b.region_for("code").size, "ram_bytes": b.region_for("pool").size}
                                for b in boards]})
        return 0
    print(f"{'board':<16} {'cpu':<11} {'flash':>10} {'RAM':>10}  description")
    for b in boards:
        print(f"{b.name:<16} {b.core:<11} {b.region_for('code').size // 1024:>7} KiB "
              f"{b.region_for('pool').size // 1024:>6} KiB  {b.description}")
    return 0


def _prepare(args: argparse.Namespace, out_dir: Path | None = None):
    from firmware_gen.driver.deploy import prepare, quiet, stderr_progress

    model = Path(args.model)
    try:
        data = model.read_bytes()
    except OSError as error:
        raise UserError(f"{model}: cannot read ({error.strerror})") from None
    progress = quiet if getattr(args, "json", False) else stderr_progress
    port = _board_port(args)
    return data, prepare(data, str(model), args.board, interface=args.interface, out_dir=out_dir,
                         progress=progress, semihosting=None if port is None else False,
                         **_planning(args)), progress


def _board_port(args: argparse.Namespace) -> str | None:
    """The serial port the run goes through, None for QEMU's own: --port, else for a real board the port of its
    probe (list_ports by USB ids, --probe narrows by serial number). Sets args.port."""
    from firmware_gen.link.serial_ports import find_board_port
    from firmware_gen.target.boards import load_board

    if not hasattr(args, "port") or not args.board:
        return None
    board = load_board(args.board)
    if args.port is None and not board.emulated:
        args.port = find_board_port(board, getattr(args, "probe", None))
    return args.port


def cmd_flash(args: argparse.Namespace) -> int:
    from firmware_gen.link.flashing import flash, refuse_emulated
    from firmware_gen.target.boards import load_board

    refuse_emulated(load_board(args.board), args.model)  # before building anything
    _, deployment, progress = _prepare(args)
    print(deployment.firmware.summary())
    probe = flash(deployment.firmware.board, deployment.firmware.elf, args.probe, progress=progress)
    print(f"flashed {args.board} through {probe.description} {probe.unique_id}; now: "
          f"firmware-gen run {args.model} --board {args.board}")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    out_dir = Path(args.output) if args.output else Path(f"{Path(args.model).stem}-{args.board}")
    _, deployment, _ = _prepare(args, out_dir)
    firmware = deployment.firmware
    if args.json:
        _print_json({"board": firmware.board.name, "elf": str(firmware.elf), "flash_bytes": firmware.flash_bytes,
                     "ram_bytes": firmware.ram_bytes, "workspace_bytes": firmware.workspace_bytes,
                     "fits": firmware.fits, "interface": args.interface})
    else:
        print(firmware.summary())
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from firmware_gen.check.host_validation import random_inputs
    from firmware_gen.check.profile import build_profile, format_profile, plot_profile
    from firmware_gen.driver.deploy import run

    _, deployment, progress = _prepare(args)
    inputs = _load_inputs(args.input, deployment.graph) or random_inputs(deployment.graph, args.seed)
    result = run(deployment, inputs, serial_url=args.port, progress=progress, baudrate=args.baud)
    profile = build_profile(deployment.graph, result)
    if args.plot:
        plot_profile(profile, args.plot, title=f"{Path(args.model).name} on {args.board}")
    if args.json:
        _print_json({**result.to_json(), "profile": profile.to_json()["layers"], "macs": profile.macs,
                     "interface": args.interface})
    else:
        print(format_profile(profile))
        for i, output in enumerate(result.outputs):
            print(f"output {i} {list(output.shape)}: {np.array2string(output.ravel()[:16], separator=', ')}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from firmware_gen.driver.deploy import run_demo

    return run_demo(board=args.board, seed=args.seed, overlap=args.overlap)


def _planning_algorithms() -> list[str]:
    from firmware_gen.planner import ALGORITHMS

    return list(ALGORITHMS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="firmware-gen", description=__doc__)
    parser.add_argument("--version", action="version", version=f"firmware-gen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, handler: Callable[[argparse.Namespace], int], help_text: str,
                model: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if model:
            sub.add_argument("model", help="a quantized .tflite file")
        sub.set_defaults(handler=handler)
        return sub

    def overlap_option(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--overlap", action=argparse.BooleanOptionalAction, default=True,
                         help="let outputs overlap inputs where the kernels allow it (default: on)")

    def planning_options(sub: argparse.ArgumentParser) -> None:
        overlap_option(sub)
        sub.add_argument("--pool", action="append", metavar="NAME[:SIZE]",
                         help="a RAM pool, e.g. dtcm:64K (repeat, fastest first; the last may have no size); on a "
                              "board each pool goes to the memory region of its name")
        sub.add_argument("--io-in-pool", action=argparse.BooleanOptionalAction, default=True,
                         help="plan the model's inputs and outputs in the pool (default); --no-io-in-pool leaves "
                              "them in the caller's buffers, which fg_model_run reads and writes in place")

    def board_link_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--baud", type=int, help="baud rate of the serial port (default: the board file's)")
        sub.add_argument("--probe", help="a real board without --port: the serial number of its probe, to pick its "
                                         "port among several boards")

    def interface_option(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--interface", choices=INTERFACES, default="unpacked",
                         help="how the schedule calls kernels: direct C calls (default) or TVM's packed ABI")

    sub = command("inspect", cmd_inspect, "operators, tensors, MACs, weight bytes, activation lower bound")
    sub.add_argument("--json", action="store_true")
    sub = command("plan", cmd_plan, "the static memory plan of the workspace pool")
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--algorithm", choices=_planning_algorithms(),
                     help="one planning algorithm (default: run them all, keep the smallest pool)")
    planning_options(sub)
    sub.add_argument("--plot", metavar="PNG", help="draw the memory timeline (needs matplotlib)")
    interface_option(sub)
    sub = command("generate", cmd_generate, "write the C sources of the model")
    sub.add_argument("-o", "--output", required=True, help="output directory")
    sub.add_argument("--zephyr", action="store_true",
                     help="also make the directory a Zephyr module (zephyr/module.yml, CMakeLists.txt, pool section) "
                          "for zephyr_app/")
    interface_option(sub)
    planning_options(sub)
    sub = command("validate", cmd_validate, "compare every tensor of the generated C with TFLite Micro")
    sub.add_argument("--input", action="append", help="input tensor as .npy (once per model input)")
    sub.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    sub.add_argument("--sanitize", action="store_true", help="host build with AddressSanitizer and UBSan")
    sub.add_argument("--board", help="run on this board (QEMU, or a real board with --port) instead of the host")
    sub.add_argument("--port", help="serial port of a real board (e.g. /dev/ttyACM0); default: QEMU")
    board_link_options(sub)
    sub.add_argument("--layers", action="store_true",
                     help="with --board: run the schedule step by step on the board and compare every layer with "
                          "TFLite Micro, naming the first that differs (implies --interface packed)")
    interface_option(sub)
    planning_options(sub)
    sub.add_argument("--json", action="store_true")

    sub = command("boards", cmd_boards, "the boards firmware-gen knows (one file each in boards/)", model=False)
    sub.add_argument("--json", action="store_true")
    sub = command("build", cmd_build, "cross-compile the model's firmware for a board")
    sub.add_argument("--board", required=True)
    sub.add_argument("-o", "--output", help="output directory (default: MODEL-BOARD)")
    sub.add_argument("--json", action="store_true")
    interface_option(sub)
    planning_options(sub)
    sub = command("run", cmd_run, "run the model on a board and show the per-layer profile")
    sub.add_argument("--board", required=True)
    sub.add_argument("--input", action="append", help="input tensor as .npy (once per model input)")
    sub.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    sub.add_argument("--port", help="serial port of a real board (e.g. /dev/ttyACM0); default: QEMU")
    board_link_options(sub)
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--plot", help="write a bar chart of the profile to this PNG")
    interface_option(sub)
    planning_options(sub)
    sub = command("flash", cmd_flash, "build the model's firmware for a real board and flash it with pyOCD")
    sub.add_argument("--board", required=True)
    sub.add_argument("--probe", help="unique id (or part of it) of the debug probe, when several are connected")
    interface_option(sub)
    planning_options(sub)
    sub = command("demo", cmd_demo, "MobileNetV1 0.25 on an emulated Cortex-M3, checked against TFLM", model=False)
    overlap_option(sub)
    sub.add_argument("--board", default="qemu_cortex_m3")
    sub.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except UserError as error:
        print(f"firmware-gen: error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        print("firmware-gen: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
