"""The `firmware-gen` command line: it parses the arguments and wires the stages together; the work is theirs.
One module per command (its handler and its arguments); `common` and `options` hold what several share."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from firmware_gen import __version__
from firmware_gen.cli import (
    analyze,
    boards,
    build,
    demo,
    flash,
    generate,
    inspect,
    plan,
    run,
    selftest,
    sweep,
    validate,
)
from firmware_gen.cli.options import Command
from firmware_gen.cli.stop_signals import interrupted_status, unwind_on_stop_signals
from firmware_gen.errors import UserError

COMMANDS = (inspect, plan, analyze, generate, validate, boards, build, run, flash, selftest, sweep, demo)

# Settings of the project file a command does not take from it: validate and demo run where the command line says.
_NOT_FROM_CONFIG = {("validate", "board"), ("demo", "board")}


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
    parser = argparse.ArgumentParser(prog="firmware-gen", description=__doc__.split("\n")[0])
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

    for module in COMMANDS:
        module.register(command)
    _apply_config(commands, settings or {})
    return parser


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
    try:
        with unwind_on_stop_signals():
            status = args.handler(args)
            sys.stdout.flush()
        return status
    except UserError as error:
        print(f"firmware-gen: error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt as error:
        return interrupted_status(error, "firmware-gen")
    except BrokenPipeError:
        _quiet_stdout()
        return 128 + signal.SIGPIPE
