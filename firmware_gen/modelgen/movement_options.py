"""Option writers and versions of the data-movement operators (issue 15), merged into writer.OPTION_WRITERS and
writer._VERSIONS (kept here so that the writer stays small). Fields as in writer.py: (schema slot, Builder kind,
value)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flatbuffers
from tflite.BuiltinOptions import BuiltinOptions
from tflite.MirrorPadMode import MirrorPadMode
from tflite.TensorType import TensorType

Fields = list[tuple[int, str, Any]]
Writer = Callable[[flatbuffers.Builder, dict[str, Any]], Fields]


def _no_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> Fields:
    return []


def _int_fields(*names: str) -> Writer:
    """Options made of int32 fields in schema order, each defaulting to 0."""
    return lambda builder, o: [(slot, "Int32", int(o.get(name, 0))) for slot, name in enumerate(names)]


def _strided_slice_fields(builder: flatbuffers.Builder, o: dict[str, Any]) -> Fields:
    masks = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    return [(slot, "Int32", int(o.get(mask, 0))) for slot, mask in enumerate(masks)] + [
        (5, "Bool", bool(o.get("offset", False)))]


VERSIONS = {
    "STRIDED_SLICE": 2, "SLICE": 2, "SPLIT": 2, "SPLIT_V": 2, "PACK": 2, "UNPACK": 2, "EXPAND_DIMS": 1,
    "GATHER": 2, "GATHER_ND": 2, "MIRROR_PAD": 2, "BROADCAST_TO": 2, "REVERSE_V2": 2, "ZEROS_LIKE": 1, "FILL": 1,
    "SHAPE": 1,
}

OPTION_WRITERS: dict[str, tuple[int, Writer]] = {
    "STRIDED_SLICE": (BuiltinOptions.StridedSliceOptions, _strided_slice_fields),
    "SLICE": (BuiltinOptions.SliceOptions, _no_fields),
    "SPLIT": (BuiltinOptions.SplitOptions, _int_fields("num_splits")),
    "SPLIT_V": (BuiltinOptions.SplitVOptions, _int_fields("num_splits")),
    "PACK": (BuiltinOptions.PackOptions, _int_fields("values_count", "axis")),
    "UNPACK": (BuiltinOptions.UnpackOptions, _int_fields("num", "axis")),
    "EXPAND_DIMS": (BuiltinOptions.ExpandDimsOptions, _no_fields),
    "GATHER": (BuiltinOptions.GatherOptions, _int_fields("axis", "batch_dims")),
    "GATHER_ND": (BuiltinOptions.GatherNdOptions, _no_fields),
    "MIRROR_PAD": (BuiltinOptions.MirrorPadOptions,
                   lambda b, o: [(0, "Int8", getattr(MirrorPadMode, o.get("mode", "REFLECT")))]),
    "BROADCAST_TO": (BuiltinOptions.BroadcastToOptions, _no_fields),
    "REVERSE_V2": (BuiltinOptions.ReverseV2Options, _no_fields),
    "ZEROS_LIKE": (BuiltinOptions.ZerosLikeOptions, _no_fields),
    "FILL": (BuiltinOptions.FillOptions, _no_fields),
    "SHAPE": (BuiltinOptions.ShapeOptions,
              lambda b, o: [(0, "Int8", getattr(TensorType, o.get("out_type", "int32").upper()))]),
}
