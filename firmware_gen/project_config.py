"""The project file: `firmware-gen.toml` in the current directory, or `--config FILE`, holds the settings a team
keeps in version control (board, pools, interface, name, planning options); the command line overrides them.

    board = "mps2_an386"          # a board name, or a board file's path relative to this file
    interface = "unpacked"        # or "packed"
    name = "kws"                  # prefix of the generated symbols
    pools = ["dtcm:64K", "sram"]  # as --pool, fastest first

    [planning]
    overlap = true
    io_in_pool = false
    patches = "auto"              # or "off", "min" (--patches)

This module owns reading it: `read_config` gives argparse destinations and their values, checked; an unknown key or
a bad value is a `ConfigError` naming the key, the file and the line (tomllib gives no line numbers: the key is
found in the text). `split_pool` is the one parser of the `NAME[:SIZE]` pool syntax, for the file and `--pool`.
A leaf: imports only the shared vocabulary and the board list.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path

import tomllib

from firmware_gen.abi import CALLING_CONVENTIONS, is_c_identifier
from firmware_gen.errors import UserError

CONFIG_NAME = "firmware-gen.toml"
_SIZE_SUFFIXES = {"": 1, "K": 1024, "M": 1024 * 1024}


class ConfigError(UserError):
    """A project file that cannot be read, an unknown key or a bad value."""


def split_pool(text: str) -> tuple[str, int | None]:
    """`NAME[:SIZE]`, SIZE in bytes with an optional K or M suffix (no size: unlimited); ValueError says why not."""
    name, _, size = text.partition(":")
    if not name.isidentifier():
        raise ValueError("the pool name must be a C identifier")
    if not size:
        return name, None
    digits, suffix = size.rstrip("kKmM"), size[len(size.rstrip("kKmM")):].upper()
    if not digits.isdigit() or suffix not in _SIZE_SUFFIXES:
        raise ValueError("the size must be bytes, e.g. 65536, 64K or 1M")
    return name, int(digits) * _SIZE_SUFFIXES[suffix]


def _board(value: object, base: Path) -> str:
    from firmware_gen.target.boards import list_boards

    if not isinstance(value, str):
        raise ValueError("must be a string: a board name or the path of a board file")
    if value.endswith(".toml"):
        path = str((base / value).resolve())  # relative to the project file
        if not Path(path).is_file():
            raise ValueError(f"no board file {path}")
        return path
    if value not in list_boards():
        raise ValueError(f"unknown board '{value}' (known: {', '.join(list_boards())})")
    return value


def _interface(value: object, base: Path) -> str:
    if value not in CALLING_CONVENTIONS:
        raise ValueError(f"must be one of {', '.join(repr(c) for c in CALLING_CONVENTIONS)}")
    return str(value)


def _name(value: object, base: Path) -> str:
    if not isinstance(value, str) or not is_c_identifier(value):
        raise ValueError("must be a C identifier (letters, digits and _, not starting with a digit)")
    return value


def _pools(value: object, base: Path) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(p, str) for p in value):
        raise ValueError('must be a list of "NAME[:SIZE]" strings, e.g. ["dtcm:64K", "sram"]')
    for text in value:
        try:
            split_pool(text)
        except ValueError as error:
            raise ValueError(f"'{text}': {error}") from None
    if len({split_pool(text)[0] for text in value}) != len(value):
        raise ValueError("each pool needs a distinct name")
    return list(value)


PATCH_MODES = ("off", "auto", "min")  # driver/patch_choice.py


def _patches(value: object, base: Path) -> str:
    if value not in PATCH_MODES:
        raise ValueError(f"must be one of {', '.join(repr(m) for m in PATCH_MODES)}")
    return str(value)


def _boolean(value: object, base: Path) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


# key in the file -> (argparse destination, check and conversion of the value)
SETTINGS: dict[str, tuple[str, Callable[[object, Path], object]]] = {
    "board": ("board", _board),
    "interface": ("interface", _interface),
    "name": ("name", _name),
    "pools": ("pool", _pools),
    "planning.overlap": ("overlap", _boolean),
    "planning.io_in_pool": ("io_in_pool", _boolean),
    "planning.patches": ("patches", _patches),
}
_TABLES = {key.split(".")[0] for key in SETTINGS if "." in key}


def find_config(explicit: str | None, directory: Path | None = None) -> Path | None:
    """--config FILE (which must exist), else firmware-gen.toml in the directory (default: the current one)."""
    if explicit is not None:
        if not Path(explicit).is_file():
            raise ConfigError(f"--config {explicit}: no such file")
        return Path(explicit)
    path = (directory or Path()) / CONFIG_NAME  # relative: errors name it as the user sees it
    return path if path.is_file() else None


def read_config(path: Path) -> dict[str, object]:
    """The file's settings as {argparse destination: value}, every key known and every value checked."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read ({error.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    values = {}
    for key, value in _flatten(data):
        line = line_of(text, key)
        where = f"{path}:{line}" if line else str(path)
        if key not in SETTINGS:
            near = difflib.get_close_matches(key, SETTINGS, n=1)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise ConfigError(f"{where}: unknown key '{key}' ({hint}known: {', '.join(SETTINGS)})")
        dest, check = SETTINGS[key]
        try:
            values[dest] = check(value, path.parent)
        except ValueError as error:
            raise ConfigError(f"{where}: {key} = {_short(value)}: {error}") from None
    return values


def _flatten(data: dict, prefix: str = "") -> list[tuple[str, object]]:
    items: list[tuple[str, object]] = []
    for key, value in data.items():
        if not prefix and key in _TABLES and isinstance(value, dict):
            items += _flatten(value, f"{key}.")
        else:
            items.append((f"{prefix}{key}", value))
    return items


def _short(value: object) -> str:
    text = repr(value).replace("'", '"') if not isinstance(value, bool) else str(value).lower()
    return text if len(text) <= 40 else text[:37] + "..."


_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_ASSIGNMENT = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")


def _key_parts(text: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in text.split("."))


def line_of(text: str, key: str) -> int | None:
    """The line (from 1) where the dotted key is assigned, or its table opened; None if not found (e.g. inside an
    inline table)."""
    wanted = tuple(key.split("."))
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        if header := _HEADER.match(line):
            table = _key_parts(header.group(1))
            if table == wanted:
                return number
        elif assignment := _ASSIGNMENT.match(line):
            if (*table, *_key_parts(assignment.group(1))) == wanted:
                return number
    return None
