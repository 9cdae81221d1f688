"""The inputs a model is run on: from the user's .npy files, or random and seeded."""

from __future__ import annotations

import numpy as np

from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import DType, Graph, Tensor


def random_input(tensor: Tensor, rng: np.random.Generator) -> np.ndarray:
    if tensor.dtype is DType.FLOAT32:
        return rng.normal(0.0, 2.0, tensor.shape).astype(np.float32)
    info = np.iinfo(tensor.dtype.numpy_type)
    return rng.integers(info.min, info.max, tensor.shape, endpoint=True).astype(tensor.dtype.numpy_type)


def random_inputs(graph: Graph, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [random_input(graph.tensors[i], rng) for i in graph.inputs]


def load_inputs(paths: list[str] | None, graph) -> list[np.ndarray] | None:
    """The model's inputs from .npy files, one per input, checked against the input tensors; None without paths."""
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
