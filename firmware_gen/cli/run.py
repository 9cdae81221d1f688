"""`firmware-gen run`: the model on a board (QEMU or real), its per-layer profile and outputs."""

from __future__ import annotations

import argparse
from pathlib import Path

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    board_port,
    check_cycles_board,
    deploy,
    model_inputs,
    print_json,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_input_options,
    add_interface_option,
    add_link_options,
    add_planning_options,
    add_ram_weights_option,
    add_zephyr_options,
)
from firmware_gen.output_paths import check_output_file


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
        print_json({"invocations": sequence_json(reports, results), "profile": profile.to_json()["layers"],
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
    if args.cycles:
        check_cycles_board(args)
    port = board_port(args)
    _, deployment, progress = deploy(args, port)
    if args.save_outputs:
        check_save_path(args.save_outputs, outputs=len(deployment.graph.outputs))
    frames = load_sequence(args.input, deployment.graph)
    if frames is not None:
        return _run_sequence(args, deployment, frames, port, progress)
    result = run(deployment, model_inputs(args, deployment.graph), serial_url=port, progress=progress,
                 baudrate=args.baud, cycles=args.cycles)
    profile = build_profile(deployment.graph, result, deployment.compiled.calls, deployment.firmware.board.core_hz)
    report = build_run_report(deployment.graph, result, deployment.firmware.board)
    if args.save_outputs:
        save_outputs(args.save_outputs, result.outputs)
    if args.plot:
        plot_profile(profile, args.plot, title=f"{Path(args.model).name} on {args.board}")
    if args.json:
        print_json({**run_json(report, result), "profile": profile.to_json()["layers"], "macs": profile.macs,
                     "interface": args.interface})
        return ExitStatus.OK
    print(format_profile(profile))
    print(report.format())
    if args.save_outputs:
        print(f"wrote {args.save_outputs}: the raw outputs")
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    sub = command("run", cmd_run, "run the model on a board and show the per-layer profile")
    sub.add_argument("--board", required=True)
    add_input_options(sub)
    add_link_options(sub)
    add_zephyr_options(sub)
    sub.add_argument("--json", action="store_true")
    sub.add_argument("--plot", help="write a bar chart of the profile to this PNG")
    sub.add_argument("--cycles", action="store_true", help="under QEMU, also estimate core cycles and ms per step "
                     "from the execution trace and the core's timing model (an estimate; docs/cycle_model.md)")
    sub.add_argument("--save-outputs", metavar="FILE.npy", help="write the raw outputs (the model's dtype and "
                     "shape) to FILE.npy, or to FILE.npz (output_0, output_1, ...) for a model of several outputs")
    add_interface_option(sub)
    add_planning_options(sub)
    add_ram_weights_option(sub)

