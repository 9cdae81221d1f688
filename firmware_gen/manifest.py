"""What code generation produced, as data: the model's interface, its pool arrays, its C sources and symbols.

Codegen returns a `ModelManifest` and writes it beside the C as manifest.json; the host and cross builds, the
runner and the console decoder read it (from the object, or from a generated directory) instead of scanning the
generated text.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from firmware_gen.errors import UserError

MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class TensorSpec:
    nbytes: int
    shape: tuple[int, ...]
    dtype: str  # numpy dtype name: "int8", "uint8", "int16", ...

    def array_from(self, data: bytes) -> np.ndarray:
        return np.frombuffer(data, dtype=np.dtype(self.dtype)).reshape(self.shape).copy()


@dataclass(frozen=True)
class ModelInterface:
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    num_steps: int


@dataclass(frozen=True)
class PoolArray:
    """One workspace array the generated C defines."""

    name: str  # the plan's pool name ("" for the single default pool)
    symbol: str  # the C array
    section: str  # its input section
    nbytes: int


@dataclass(frozen=True)
class ModelManifest:
    interface: ModelInterface
    calling_convention: str  # "unpacked" or "packed"
    io_in_pool: bool
    pools: tuple[PoolArray, ...]
    sources: tuple[str, ...]  # the C files to compile, relative to the model directory
    include_dirs: tuple[str, ...]  # relative to the model directory
    symbols: dict[str, str] = field(default_factory=dict)  # role ("run", "invoke", ...) -> C name
    prefix: str = "fg"  # generate --name: every external symbol starts with it, every macro with it upper-cased
    macros: dict[str, str] = field(default_factory=dict)  # macro ("NUM_STEPS", ...) -> its name in model.h
    pool_from_app: bool = False  # the application passes the pool (symbols["set_pool"])
    weights_section: str | None = None  # the section of the constant tensors (None: .rodata)
    # kernel -> the most its frame grows at run time in this model's calls (KernelCall.run_time_stack)
    run_time_frames: dict[str, int] = field(default_factory=dict)

    @property
    def named_pools(self) -> list[str]:
        """The pools a linker script must place in the board region of the same name."""
        return [pool.name for pool in self.pools if pool.name]

    @property
    def workspace_bytes(self) -> int:
        return sum(pool.nbytes for pool in self.pools)

    def to_json(self) -> dict[str, Any]:
        return {"version": MANIFEST_VERSION, **asdict(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ModelManifest:
        def specs(items: list[dict[str, Any]]) -> tuple[TensorSpec, ...]:
            return tuple(TensorSpec(item["nbytes"], tuple(item["shape"]), item["dtype"]) for item in items)

        interface = data["interface"]
        return cls(
            interface=ModelInterface(specs(interface["inputs"]), specs(interface["outputs"]), interface["num_steps"]),
            calling_convention=data["calling_convention"],
            io_in_pool=data["io_in_pool"],
            pools=tuple(PoolArray(**pool) for pool in data["pools"]),
            sources=tuple(data["sources"]),
            include_dirs=tuple(data["include_dirs"]),
            symbols=dict(data["symbols"]),
            prefix=data.get("prefix", "fg"),
            macros=dict(data.get("macros", {})),
            pool_from_app=data.get("pool_from_app", False),
            weights_section=data.get("weights_section"),
            run_time_frames=dict(data.get("run_time_frames", {})),
        )


def write_manifest(manifest: ModelManifest, directory: Path) -> Path:
    path = Path(directory) / MANIFEST_FILE
    path.write_text(json.dumps(manifest.to_json(), indent=2) + "\n")
    return path


def read_manifest(model_dir: str | Path) -> ModelManifest:
    """The manifest of a `firmware-gen generate` output directory."""
    path = Path(model_dir) / MANIFEST_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{model_dir} holds no {MANIFEST_FILE}: generate the model there first "
                        f"(firmware-gen generate)") from None
    except (OSError, ValueError) as error:
        raise UserError(f"{path}: not a readable firmware-gen manifest ({error})") from None
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        raise UserError(f"{path}: written by another version of firmware-gen; generate the model again")
    try:
        return ModelManifest.from_json(data)
    except (KeyError, TypeError) as error:
        raise UserError(f"{path}: not a firmware-gen manifest ({error})") from None
