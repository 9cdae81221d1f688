"""The spec of a sweep (a TOML file): models (files or globs, relative to the spec), boards, and per option a value or
a list of values; the jobs are their cross product. Everything is checked before any job runs: an unknown key, a
glob matching nothing, an unknown board or a bad option value is one line naming it.

    models = ["models/*.tflite"]
    boards = ["mps2_an385", "qemu_cortex_m3"]
    validate = true            # compare every job's outputs with TFLM (default)
    seed = 0                   # of the random inputs

    [options]                  # a value, or a list of values to sweep
    algorithm = ["greedy_by_size", "exact"]   # "best": all of them, the smallest pool (default)
    overlap = [true, false]
    interface = "unpacked"
    io_in_pool = true
    pools = [["sram"], ["dtcm:64K", "sram"]]  # a list of pool lists; each pool NAME[:SIZE]
    name = "fg"
    variants = [true, false]   # the board's kernel variants (Armv7-M, DSP, MVE) or the portable C kernels only
    cycles = true              # also estimate each QEMU job's cycles (docs/cycle_model.md; default false: slower)
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import tomllib

from firmware_gen.abi import CALLING_CONVENTIONS, DEFAULT_PREFIX
from firmware_gen.backend.options import GenerationOptions
from firmware_gen.errors import UserError
from firmware_gen.planner import ALGORITHMS, PlanningOptions, PoolSpec
from firmware_gen.project_config import split_pool
from firmware_gen.target.boards import Board, load_board


class SpecError(UserError):
    """A sweep spec that cannot be run as written."""


_TOP_KEYS = {"models", "boards", "options", "validate", "seed"}
BEST = "best"  # algorithm: run them all, keep the smallest pool
OPTION_DEFAULTS: dict[str, object] = {"algorithm": BEST, "overlap": True, "interface": "unpacked", "io_in_pool": True,
                                      "pools": [], "name": DEFAULT_PREFIX, "variants": True,
                                      "cycles": False}


@dataclass(frozen=True)
class Job:
    """One generate + build + run: the model (as the spec names it, and where it is), the board, the options."""

    model: str  # relative to the spec's folder, as the rows show it
    path: str  # absolute
    board: str
    options: dict
    validate: bool
    seed: int

    @property
    def key(self) -> str:
        text = json.dumps([self.model, self.board, self.options, self.validate, self.seed], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def planning(self) -> PlanningOptions:
        algorithm = self.options["algorithm"]
        pools = tuple(PoolSpec(*split_pool(text), priority) for priority, text in enumerate(self.options["pools"]))
        return PlanningOptions(overlap=self.options["overlap"], pools=pools, io_in_pool=self.options["io_in_pool"],
                               algorithm=None if algorithm == BEST else algorithm)

    def generation(self) -> GenerationOptions:
        return GenerationOptions(name=self.options["name"])

    def target(self) -> Board:
        """The board, with its kernel variants or (variants = false) the portable kernels only."""
        board = load_board(self.board)
        return board if self.options.get("variants", True) else dataclasses.replace(board, kernel_variants=False)


@dataclass(frozen=True)
class SweepSpec:
    path: Path
    models: list[tuple[str, str]]  # (as shown, absolute path), in the spec's order, each once
    boards: list[str]
    axes: dict[str, list]  # every option, its values
    validate: bool
    seed: int

    def jobs(self) -> list[Job]:
        names = list(self.axes)
        return [Job(model, path, board, dict(zip(names, values, strict=True)), self.validate, self.seed)
                for model, path in self.models for board in self.boards
                for values in itertools.product(*(self.axes[name] for name in names))]

    def fingerprint(self) -> str:
        """Differs whenever the set of jobs differs."""
        text = json.dumps([self.models, self.boards, self.axes, self.validate, self.seed], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _strings(path: Path, key: str, value: object) -> list[str]:
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise SpecError(f"{path}: '{key}' must be a string or a non-empty list of strings")
    return values


def _models(path: Path, patterns: list[str]) -> list[tuple[str, str]]:
    found: dict[str, str] = {}
    for pattern in patterns:
        absolute = pattern if Path(pattern).is_absolute() else str(path.parent / pattern)
        matches = sorted(glob.glob(absolute, recursive=True))
        files = [m for m in matches if Path(m).is_file()]
        if not files:
            raise SpecError(f"{path}: models '{pattern}' matches no file")
        for match in files:
            resolved = Path(match).resolve()
            try:
                shown = str(resolved.relative_to(path.parent.resolve()))
            except ValueError:
                shown = str(resolved)
            found.setdefault(shown, str(resolved))
    return list(found.items())


def _check_value(path: Path, name: str, value: object) -> None:
    where = f"{path}: options.{name} = {value!r}"
    if name in ("overlap", "io_in_pool", "variants", "cycles") and not isinstance(value, bool):
        raise SpecError(f"{where}: expected true or false")
    if name == "algorithm" and value not in (BEST, *ALGORITHMS):
        raise SpecError(f"{where}: unknown planning algorithm (known: {BEST}, {', '.join(ALGORITHMS)})")
    if name == "interface" and value not in CALLING_CONVENTIONS:
        raise SpecError(f"{where}: expected one of {', '.join(CALLING_CONVENTIONS)}")
    if name == "name":
        if not isinstance(value, str):
            raise SpecError(f"{where}: expected a string")
        try:
            GenerationOptions(name=value).check("unpacked", named_pools=False)
        except UserError as error:
            raise SpecError(f"{path}: options.name: {error}") from None
    if name == "pools":
        if not isinstance(value, list) or not all(isinstance(text, str) for text in value):
            raise SpecError(f"{where}: expected a list of pools, each NAME[:SIZE]")
        try:
            [split_pool(text) for text in value]
        except ValueError as error:
            raise SpecError(f"{where}: {error}") from None
        if len({split_pool(text)[0] for text in value}) != len(value):
            raise SpecError(f"{where}: each pool needs a distinct name")


def _axes(path: Path, table: object) -> dict[str, list]:
    if not isinstance(table, dict):
        raise SpecError(f"{path}: 'options' must be a table")
    for name in table:
        if name not in OPTION_DEFAULTS:
            raise SpecError(f"{path}: unknown key 'options.{name}' (known: {', '.join(OPTION_DEFAULTS)})")
    axes = {}
    for name, default in OPTION_DEFAULTS.items():
        value = table.get(name, default)
        is_axis = isinstance(value, list) and (name != "pools" or (value and isinstance(value[0], list)))
        values = value if is_axis else [value]
        if not values:
            raise SpecError(f"{path}: options.{name} is an empty list")
        for item in values:
            _check_value(path, name, item)
        axes[name] = values
    return axes


def read_spec(spec: str | Path) -> SweepSpec:
    path = Path(spec)
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise SpecError(f"{spec}: cannot read ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{spec}: not valid TOML ({error})") from None
    for key in data:
        if key not in _TOP_KEYS:
            raise SpecError(f"{spec}: unknown key '{key}' (known: {', '.join(sorted(_TOP_KEYS))})")
    for key in ("models", "boards"):
        if key not in data:
            raise SpecError(f"{spec}: '{key}' is missing")
    models = _models(path, _strings(path, "models", data["models"]))
    boards = list(dict.fromkeys(_strings(path, "boards", data["boards"])))
    for board in boards:
        try:
            load_board(board)
        except UserError as error:
            raise SpecError(f"{spec}: boards: {error}") from None
    validate, seed = data.get("validate", True), data.get("seed", 0)
    if not isinstance(validate, bool):
        raise SpecError(f"{spec}: 'validate' must be true or false")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SpecError(f"{spec}: 'seed' must be a whole number, 0 or more")
    return SweepSpec(path, models, boards, _axes(path, data.get("options", {})), validate, seed)
