"""The interface of a generated model as its model.h declares it: inputs, outputs (bytes, shape, dtype), steps."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen.errors import UserError

_DEFINE = re.compile(r"^\s*#\s*define\s+FG_MODEL_(\w+)\s+(.+?)\s*$", re.MULTILINE)


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


def read_model_interface(model_dir: str | Path) -> ModelInterface:
    path = Path(model_dir) / "model.h"
    if not path.is_file():
        raise UserError(f"{model_dir} holds no model.h: generate the model there first (firmware-gen generate)")
    defines = dict(_DEFINE.findall(path.read_text()))

    def number(key: str) -> int:
        try:
            return int(defines[key], 0)
        except (KeyError, ValueError):
            raise UserError(f"{path}: no numeric FG_MODEL_{key}: is it a firmware-gen model.h?") from None

    def tensor(kind: str, index: int) -> TensorSpec:
        prefix = f"{kind}{index}_"
        shape_text = defines.get(prefix + "SHAPE", "").strip("{} ")
        shape = tuple(int(d) for d in shape_text.split(",") if d.strip())
        dtype = defines.get(prefix + "DTYPE", '"int8"').strip('"')
        return TensorSpec(number(prefix + "BYTES"), shape, dtype)

    return ModelInterface(
        inputs=tuple(tensor("INPUT", i) for i in range(number("NUM_INPUTS"))),
        outputs=tuple(tensor("OUTPUT", i) for i in range(number("NUM_OUTPUTS"))),
        num_steps=number("NUM_STEPS"),
    )
