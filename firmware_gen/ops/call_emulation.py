"""The data-movement kernel calls computed with numpy at generation time, index for index as the C kernels compute
them (runtime_c/kernels/data_movement/transpose.c, split.c, concatenation.c, gather.c, gather_nd.c, gather_nd_offsets.c,
mirror_pad.c, fill.c), for constant folding. Values are moved, never changed, so any element type works."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from firmware_gen.ops.base import KernelCall, TableRef


def _table(call: KernelCall, field: str) -> np.ndarray:
    ref = call.params[field]
    assert isinstance(ref, TableRef)
    return next(t.values for t in call.tables if t.suffix == ref.suffix).astype(np.int64)


def _strided_gather(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    p = call.params
    rank = int(p["rank"])
    offsets = np.array([int(p["offset"])], dtype=np.int64)
    for size, stride in zip(p["shape"][:rank], p["strides"][:rank], strict=True):
        offsets = (offsets[:, None] + np.arange(size, dtype=np.int64) * stride).ravel()
    offsets = (offsets[:, None] + np.arange(int(p["row"]), dtype=np.int64)).ravel()
    return [inputs[0].ravel()[offsets]]


def _split(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    rows = inputs[0].reshape(int(call.params["outer"]), int(call.params["input_row"]))
    return [part.ravel() for part in np.split(rows, np.cumsum(_table(call, "chunk_sizes"))[:-1], axis=1)]


def _concatenation(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    outer = int(call.params["outer"])
    return [np.concatenate([x.reshape(outer, -1) for x in inputs], axis=1).ravel()]


def _gather(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    p = call.params
    data = inputs[0].reshape(int(p["batches"]), int(p["outer"]), int(p["axis_size"]), int(p["inner"]))
    indices = inputs[1].reshape(int(p["batches"]), int(p["num_indices"]))
    return [np.stack([data[b][:, indices[b], :] for b in range(data.shape[0])]).ravel()]


def _gather_nd(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    p = call.params
    depth = int(p["index_depth"])
    starts = inputs[1].reshape(-1, depth).astype(np.int64) @ np.asarray(p["strides"][:depth], dtype=np.int64)
    return [inputs[0].ravel()[(starts[:, None] + np.arange(int(p["slice_size"]))).ravel()]]


def _gather_nd_offsets(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    offsets, size = _table(call, "offsets"), int(call.params["slice_size"])
    values = inputs[0].ravel()[(np.maximum(offsets, 0)[:, None] + np.arange(size)).ravel()]
    values[np.repeat(offsets < 0, size)] = 0  # a row outside the bounds, as the kernel writes it
    return [values]


def _mirror_pad(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    p = call.params
    table = _table(call, "source_offsets")
    offsets = np.zeros(1, dtype=np.int64)
    for d in range(int(p["rank"])):
        start = int(p["map_start"][d])
        offsets = (offsets[:, None] + table[start:start + int(p["output_shape"][d])]).ravel()
    return [inputs[0].ravel()[offsets]]


def _fill(call: KernelCall, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    value = inputs[0].ravel()[0] if inputs[0] is not None else 0
    return [np.full(int(call.params["count"]), value)]


EMULATIONS: dict[str, Callable[[KernelCall, Sequence[np.ndarray]], list[np.ndarray]]] = {
    "fg_transpose_s8": _strided_gather, "fg_split_s8": _split, "fg_split_f32": _split,
    "fg_concatenation_s8": _concatenation,
    "fg_gather_s8": _gather, "fg_gather_nd_s8": _gather_nd,
    "fg_gather_nd_offsets_s8": _gather_nd_offsets, "fg_mirror_pad_s8": _mirror_pad, "fg_fill_s8": _fill,
}
