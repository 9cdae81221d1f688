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


def load_sequence(paths: list[str] | None, graph) -> list[list[np.ndarray]] | None:
    """The frames of a sequence, one list of inputs each, when every --input .npy has one more leading axis than its
    input tensor (frames x the tensor's shape); None when they hold single inputs (load_inputs reads those)."""
    if not paths or len(paths) != len(graph.inputs):
        return None
    arrays = []
    for path, index in zip(paths, graph.inputs, strict=True):
        try:
            array = np.load(path, allow_pickle=False, mmap_mode="r")
        except (OSError, ValueError) as error:
            raise UserError(f"{path}: not a readable .npy file ({error})") from None
        tensor = graph.tensors[index]
        if array.ndim != len(tensor.shape) + 1 or tuple(array.shape[1:]) != tuple(tensor.shape):
            return None
        if array.dtype != tensor.dtype.numpy_type:
            raise UserError(f"{path}: dtype {array.dtype}; input {tensor.describe()} needs {tensor.dtype}")
        arrays.append(np.asarray(array))
    lengths = {len(a) for a in arrays}
    if len(lengths) != 1 or 0 in lengths:
        raise UserError(f"the --input sequences hold {', '.join(str(len(a)) for a in arrays)} frames; "
                        "every input needs the same number, at least one")
    return [[array[frame] for array in arrays] for frame in range(len(arrays[0]))]
