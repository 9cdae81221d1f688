"""`firmware-gen inspect`: operators, tensors, MACs, weight bytes, the activation lower bound."""

from __future__ import annotations

import argparse

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    load_graph,
    show,
)
from firmware_gen.cli.options import (
    CommandAdder,
)
from firmware_gen.errors import UnsupportedModelError


def cmd_inspect(args: argparse.Namespace) -> int:
    from firmware_gen.check.model_summary import format_summary, summarize

    summary = summarize(load_graph(args.model), unsupported_too=True)
    show(args, summary.to_json(), format_summary(summary))
    if len(summary.unsupported) == 1:
        raise UnsupportedModelError(summary.unsupported[0].unsupported)
    if summary.unsupported:
        raise UnsupportedModelError(f"{summary.name}: {len(summary.unsupported)} operators cannot be compiled "
                                    f"({', '.join(str(op.index) for op in summary.unsupported)}; listed above)")
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    sub = command("inspect", cmd_inspect, "operators, tensors, MACs, weight bytes, activation lower bound")
    sub.add_argument("--json", action="store_true")
