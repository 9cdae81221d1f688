"""`firmware-gen validate`: the generated C against TFLite Micro, on the host or a board, one input, a sequence,
a dataset or layer by layer."""

from __future__ import annotations

import argparse

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    board_port,
    deploy,
    generation_options,
    load_graph,
    model_inputs,
    planning_options,
    read_model,
    show,
)
from firmware_gen.cli.options import (
    CommandAdder,
    add_input_options,
    add_interface_option,
    add_link_options,
    add_parallel_options,
    add_planning_options,
    add_zephyr_options,
)
from firmware_gen.errors import UserError


def _validate_on_board(args: argparse.Namespace) -> int:
    from firmware_gen.check.board_validation import validate_on_board

    port = board_port(args)
    data, deployment, progress = deploy(args, port)
    report = validate_on_board(data, args.model, deployment, model_inputs(args, deployment.graph), serial_url=port,
                               baudrate=args.baud, progress=progress)
    show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def _validate_layers_on_board(args: argparse.Namespace, frames: list | None = None) -> int:
    from firmware_gen.check.layer_validation import validate_layers_over_sequence

    if not args.board:
        raise UserError("--layers runs the model step by step on a board: give --board")
    port = board_port(args)
    data, deployment, progress = deploy(args, port, interface="packed")  # steps run through the packed registry
    progress(f"running {len(deployment.compiled.steps)} steps one by one on {args.board}, then TFLite Micro")
    frames = frames or [model_inputs(args, deployment.graph)]
    report = validate_layers_over_sequence(data, deployment.compiled, deployment.firmware, frames,
                                           source=args.model, serial_url=port, baudrate=args.baud)
    show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def _validate_dataset(args: argparse.Namespace) -> int:
    from firmware_gen.check.dataset import load_dataset, load_labels
    from firmware_gen.check.dataset_validation import no_progress, stderr_bar, validate_dataset

    graph = load_graph(args.model)
    samples = load_dataset(args.dataset, graph)
    labels = load_labels(args.labels, len(samples))
    reference, float_samples = _reference(args, graph)
    bar = no_progress if args.json else stderr_bar
    if args.jobs is not None or args.ray is not None:  # the samples in chunks across workers
        from firmware_gen.sweep.dataset_chunks import validate_dataset_chunked

        report = validate_dataset_chunked(graph, read_model(args.model), args.model, samples, labels, jobs=args.jobs,
                                          ray=args.ray, board=args.board, interface=args.interface,
                                          options=planning_options(args), generation=generation_options(args),
                                          progress=bar, reference=reference, float_samples=float_samples)
    elif args.board:  # QEMU only: the samples are built into the firmware's flash
        from firmware_gen.check.dataset_board import validate_dataset_on_board
        from firmware_gen.driver.dataset_deploy import check_emulated

        check_emulated(args.board, args.port)
        data, deployment, progress = deploy(args, None)
        report = validate_dataset_on_board(data, args.model, deployment, samples, labels, progress=bar,
                                           message=progress, reference=reference, float_samples=float_samples)
    else:
        report = validate_dataset(graph, read_model(args.model), args.model, samples, labels, progress=bar,
                                  options=planning_options(args), reference=reference, float_samples=float_samples)
    show(args, report.to_json(), report.format())
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
        data, deployment, progress = deploy(args, None)
        report = validate_sequence_on_board(data, args.model, deployment, frames, message=progress)
        show(args, report.to_json(), report.format())
        return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH
    report = validate_sequence(args.model, frames, sanitize=args.sanitize, interface=args.interface,
                               options=planning_options(args))
    show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def cmd_validate(args: argparse.Namespace) -> int:
    from firmware_gen.check.host_validation import validate_model
    from firmware_gen.check.inputs import load_inputs, load_sequence

    if args.reference and not args.dataset:
        raise UserError("--reference compares with a float model on a dataset: give --dataset FILE.npz too")
    if (args.jobs is not None or args.ray is not None) and (not args.dataset or args.port):
        raise UserError("--jobs and --ray split a dataset across workers, on the host or a QEMU board: give "
                        "--dataset FILE.npz (and no --port)")
    if args.dataset:
        return _validate_dataset(args)
    graph = load_graph(args.model)
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
    show(args, report.to_json(), report.format())
    return ExitStatus.OK if report.bit_exact else ExitStatus.MISMATCH


def register(command: CommandAdder) -> None:
    sub = command("validate", cmd_validate, "compare every tensor of the generated C with TFLite Micro")
    add_input_options(sub)
    sub.add_argument("--sanitize", action="store_true", help="host build with AddressSanitizer and UBSan")
    sub.add_argument("--dataset", metavar="FILE.npz", help="validate on these samples (one array per input, "
                     "float samples quantized with the input's parameters): error metrics per output")
    sub.add_argument("--labels", metavar="FILE.npy", help="with --dataset: class labels, for top-1 accuracy")
    add_parallel_options(sub, "with --dataset: ")
    sub.add_argument("--reference", metavar="FLOAT.tflite", help="with --dataset: also compare with this float "
                     "model run by LiteRT (the quantization error; pip install 'firmware-gen[reference]')")
    sub.add_argument("--board", help="run on this board (QEMU, or a real board with --port) instead of the host; "
                                     "with --dataset a QEMU board, the samples built into its flash")
    add_link_options(sub)
    add_zephyr_options(sub)
    sub.add_argument("--layers", action="store_true",
                     help="with --board: run the schedule step by step on the board and compare every layer with "
                          "TFLite Micro, naming the first that differs (implies --interface packed)")
    add_interface_option(sub)
    add_planning_options(sub)
    sub.add_argument("--json", action="store_true")
