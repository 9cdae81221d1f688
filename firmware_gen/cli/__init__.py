"""The command line: `main` (cli/entry.py) parses the arguments and hands them to one module per command."""

from firmware_gen.cli.entry import build_parser, main

__all__ = ["build_parser", "main"]
