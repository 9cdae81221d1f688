"""The `firmware-gen` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from firmware_gen import __version__
from firmware_gen.errors import UserError
from firmware_gen.packed import INTERFACES


def _load(path: str):
    from firmware_gen.importer import load_model

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
    from firmware_gen.inspect_model import format_summary, summarize

    summary = summarize(_load(args.model))
    if args.json:
        _print_json(summary.to_json())
    else:
        print(format_summary(summary))
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from firmware_gen.compiler import view_aliases
    from firmware_gen.planner import check_plan, plan_graph
    from firmware_gen.planner.report import format_plan

    graph = _load(args.model)
    plan = plan_graph(graph, aliases=view_aliases(graph))
    check_plan(plan, graph)
    if args.json:
        # The plan never depends on the interface (planning precedes legalization); it is echoed for the record.
        _print_json({**plan.to_json(), "interface": args.interface})
    else:
        print(format_plan(plan, graph))
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from firmware_gen.compiler import generate

    graph = _load(args.model)
    compiled = generate(graph, args.output, source=Path(args.model).name, interface=args.interface)
    print(f"wrote {args.output}/model.c, model.h, model_weights.c, model_weights.h and runtime/: "
          f"{len(compiled.steps)} steps ({args.interface}), pool {compiled.plan.pool_bytes:,} B "
          f"(lower bound {compiled.plan.lower_bound_bytes:,} B)")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from firmware_gen.validate import validate_model

    graph = _load(args.model)
    inputs = _load_inputs(args.input, graph)
    report = validate_model(args.model, inputs=inputs, seed=args.seed, sanitize=args.sanitize,
                            interface=args.interface)
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

    def interface_option(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--interface", choices=INTERFACES, default="unpacked",
                         help="how the schedule calls kernels: direct C calls (default) or TVM's packed ABI")

    sub = command("inspect", cmd_inspect, "operators, tensors, MACs, weight bytes, activation lower bound")
    sub.add_argument("--json", action="store_true")
    sub = command("plan", cmd_plan, "the static memory plan of the workspace pool")
    sub.add_argument("--json", action="store_true")
    interface_option(sub)
    sub = command("generate", cmd_generate, "write the C sources of the model")
    sub.add_argument("-o", "--output", required=True, help="output directory")
    interface_option(sub)
    sub = command("validate", cmd_validate, "compare every tensor of the generated C with TFLite Micro")
    sub.add_argument("--input", action="append", help="input tensor as .npy (once per model input)")
    sub.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    sub.add_argument("--sanitize", action="store_true", help="host build with AddressSanitizer and UBSan")
    interface_option(sub)
    sub.add_argument("--json", action="store_true")
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
