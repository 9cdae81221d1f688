"""A user's dataset for `validate --dataset`: an .npz of samples (float, quantized with the model's input
parameters, or already of the input's integer type) and optional labels; every mismatch is a one-line UserError."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph, Tensor


def _load_npz(path: str) -> dict[str, np.ndarray]:
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise UserError(f"{path}: not an .npz archive (np.savez)")
        with data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise UserError(f"{path}: not a readable .npz file ({error})") from None
    if not arrays:
        raise UserError(f"{path}: holds no arrays; save one array of samples per model input (np.savez)")
    return arrays


def _samples_of(path: str, name: str, array: np.ndarray, tensor: Tensor) -> np.ndarray:
    """(N, *input shape) in the input's dtype."""
    shape = tuple(tensor.shape)
    per_sample = shape[1:] if shape and shape[0] == 1 else shape
    if array.shape[1:] == shape:
        array = array.reshape((array.shape[0], *shape))
    elif array.shape[1:] == per_sample:
        array = array.reshape((array.shape[0], *shape))
    else:
        raise UserError(f"{path}: array '{name}' has shape {list(array.shape)}; input {tensor.describe()} needs "
                        f"(N, {', '.join(map(str, per_sample))}) samples")
    target = np.dtype(tensor.dtype.numpy_type)
    if np.issubdtype(array.dtype, np.floating) and tensor.quantization and np.issubdtype(target, np.integer):
        q = tensor.quantization
        info = np.iinfo(target)
        return np.clip(np.round(array / q.scale) + q.zero_point, info.min, info.max).astype(target)
    if array.dtype != target:
        raise UserError(f"{path}: array '{name}' has dtype {array.dtype}; input {tensor.describe()} needs "
                        f"{target} samples, or float samples to quantize with its scale and zero point")
    return array


def load_dataset(path: str, graph: Graph) -> list[list[np.ndarray]]:
    """The samples, each a list of one array per model input (the archive's arrays in order, one per input)."""
    arrays = _load_npz(path)
    if len(arrays) != len(graph.inputs):
        raise UserError(f"{path}: holds {len(arrays)} arrays ({', '.join(arrays)}); the model has "
                        f"{len(graph.inputs)} input(s): save one array of samples per input")
    per_input = [_samples_of(path, name, array, graph.tensors[index])
                 for (name, array), index in zip(arrays.items(), graph.inputs, strict=True)]
    counts = {len(a) for a in per_input}
    if len(counts) != 1 or 0 in counts:
        raise UserError(f"{path}: the arrays hold different or zero sample counts ({sorted(counts)})")
    return [[a[s] for a in per_input] for s in range(counts.pop())]


def load_float_dataset(path: str, graph: Graph) -> list[list[np.ndarray]]:
    """The samples as float32, for a float reference model: float samples as they are, integer samples dequantized
    with the input's scale and zero point. Call it after `load_dataset` has accepted the file."""
    per_input = []
    for array, index in zip(_load_npz(path).values(), graph.inputs, strict=True):
        tensor = graph.tensors[index]
        values = array.reshape((array.shape[0], *tensor.shape))
        q = tensor.quantization
        if not np.issubdtype(values.dtype, np.floating) and q:
            values = (values.astype(np.float64) - q.zero_point) * q.scale
        per_input.append(values.astype(np.float32))
    return [[a[s] for a in per_input] for s in range(len(per_input[0]))]


def load_labels(path: str | None, count: int) -> np.ndarray | None:
    if path is None:
        return None
    try:
        labels = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise UserError(f"{path}: not a readable .npy file ({error})") from None
    if not isinstance(labels, np.ndarray) or labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
        raise UserError(f"{path}: labels must be a 1-D integer array (one class index per sample)")
    if len(labels) != count:
        raise UserError(f"{path}: {len(labels)} labels for {count} samples")
    return labels


def dataset_paths_exist(*paths: str | None) -> None:
    for path in paths:
        if path is not None and not Path(path).is_file():
            raise UserError(f"{path}: no such file")
