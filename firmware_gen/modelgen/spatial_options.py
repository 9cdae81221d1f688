"""Builtin options of the convolution-family, resampling and matrix operators of issue 15, for the model writer.

Same conventions as writer.py's own table: `(schema slot, Builder kind, value)` fields, schema defaults for missing
options except strides, block sizes and pool filters, which have no valid default and must be given or default to 1.
Kept apart from writer.py (which merges OPTION_WRITERS and VERSIONS into its tables) so that module stays small.
"""

from __future__ import annotations

from typing import Any

from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOptions import BuiltinOptions
from tflite.Padding import Padding


def _activation(o: dict[str, Any]) -> int:
    return getattr(ActivationFunctionType, o.get("activation", "NONE"))


def _transpose_conv(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return [(0, "Int8", getattr(Padding, o.get("padding", "SAME"))), (1, "Int32", o.get("stride_w", 1)),
            (2, "Int32", o.get("stride_h", 1)), (3, "Int8", _activation(o))]


def _resize_nearest(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return [(0, "Bool", bool(o.get("align_corners", False))), (1, "Bool", bool(o.get("half_pixel_centers", False)))]


def _resize_bilinear(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return [(2, "Bool", bool(o.get("align_corners", False))), (3, "Bool", bool(o.get("half_pixel_centers", False)))]


def _batch_matmul(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return [(0, "Bool", bool(o.get("adj_x", False))), (1, "Bool", bool(o.get("adj_y", False))), (2, "Bool", False)]


def _block_size(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return [(0, "Int32", o.get("block_size", 1))]


def _pool(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return [(0, "Int8", getattr(Padding, o.get("padding", "SAME"))), (1, "Int32", o.get("stride_w", 1)),
            (2, "Int32", o.get("stride_h", 1)), (3, "Int32", o["filter_w"]), (4, "Int32", o["filter_h"]),
            (5, "Int8", _activation(o))]


def _no_fields(builder: Any, o: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return []


OPTION_WRITERS = {
    "TRANSPOSE_CONV": (BuiltinOptions.TransposeConvOptions, _transpose_conv),
    "RESIZE_NEAREST_NEIGHBOR": (BuiltinOptions.ResizeNearestNeighborOptions, _resize_nearest),
    "RESIZE_BILINEAR": (BuiltinOptions.ResizeBilinearOptions, _resize_bilinear),
    "BATCH_MATMUL": (BuiltinOptions.BatchMatMulOptions, _batch_matmul),
    "DEPTH_TO_SPACE": (BuiltinOptions.DepthToSpaceOptions, _block_size),
    "SPACE_TO_DEPTH": (BuiltinOptions.SpaceToDepthOptions, _block_size),
    "BATCH_TO_SPACE_ND": (BuiltinOptions.BatchToSpaceNDOptions, _no_fields),
    "SPACE_TO_BATCH_ND": (BuiltinOptions.SpaceToBatchNDOptions, _no_fields),
    "L2_NORMALIZATION": (BuiltinOptions.L2NormOptions, lambda b, o: [(0, "Int8", _activation(o))]),
    "L2_POOL_2D": (BuiltinOptions.Pool2DOptions, _pool),
}

# Operator versions as the TFLite converter writes them for int8 models (TFLM does not check them).
VERSIONS = {
    "TRANSPOSE_CONV": 3, "RESIZE_NEAREST_NEIGHBOR": 3, "RESIZE_BILINEAR": 3, "BATCH_MATMUL": 2, "DEPTH_TO_SPACE": 2,
    "SPACE_TO_DEPTH": 2, "BATCH_TO_SPACE_ND": 2, "SPACE_TO_BATCH_ND": 2, "L2_NORMALIZATION": 2, "L2_POOL_2D": 1,
}
