"""The builtin options of each operator TFLite stores, decoded into plain dicts for the IR (Operator.options): opcode
-> (the options table's class, its decoder). An operator missing here has no options firmware-gen reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tflite
from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.Padding import Padding
from tflite.TensorType import TensorType

_ACTIVATIONS = {value: name for name, value in vars(ActivationFunctionType).items() if not name.startswith("_")}
_PADDINGS = {value: name for name, value in vars(Padding).items() if not name.startswith("_")}
TENSOR_TYPE_NAMES = {value: name for name, value in vars(TensorType).items() if not name.startswith("_")}


def _type_name(code: int) -> str:
    return TENSOR_TYPE_NAMES.get(code, "UNKNOWN").lower()


def _activation(options: Any) -> str:
    return _ACTIVATIONS.get(options.FusedActivationFunction(), "UNKNOWN")


def _window(options: Any) -> dict[str, Any]:
    return {
        "padding": _PADDINGS.get(options.Padding(), "UNKNOWN"),
        "stride_h": options.StrideH(),
        "stride_w": options.StrideW(),
        "activation": _activation(options),
    }


def _conv(options: Any) -> dict[str, Any]:
    return {**_window(options), "dilation_h": options.DilationHFactor(), "dilation_w": options.DilationWFactor()}


def _depthwise(options: Any) -> dict[str, Any]:
    return {**_conv(options), "depth_multiplier": options.DepthMultiplier()}


def _pool(options: Any) -> dict[str, Any]:
    return {**_window(options), "filter_h": options.FilterHeight(), "filter_w": options.FilterWidth()}


def _fully_connected(options: Any) -> dict[str, Any]:
    return {"activation": _activation(options), "keep_num_dims": bool(options.KeepNumDims()),
            "weights_format": options.WeightsFormat()}


def _reshape(options: Any) -> dict[str, Any]:
    return {"new_shape": None if options.NewShapeIsNone() else tuple(int(d) for d in options.NewShapeAsNumpy())}


def _squeeze(options: Any) -> dict[str, Any]:
    return {"squeeze_dims": () if options.SqueezeDimsIsNone() else tuple(int(d) for d in options.SqueezeDimsAsNumpy())}


# opcode -> (options table class, decoder). Operators absent here take no options.
OPTION_DECODERS: dict[str, tuple[type, Callable[[Any], dict[str, Any]]]] = {
    "CONV_2D": (tflite.Conv2DOptions, _conv),
    "DEPTHWISE_CONV_2D": (tflite.DepthwiseConv2DOptions, _depthwise),
    "FULLY_CONNECTED": (tflite.FullyConnectedOptions, _fully_connected),
    "AVERAGE_POOL_2D": (tflite.Pool2DOptions, _pool),
    "MAX_POOL_2D": (tflite.Pool2DOptions, _pool),
    "ADD": (tflite.AddOptions, lambda o: {"activation": _activation(o)}),
    "MUL": (tflite.MulOptions, lambda o: {"activation": _activation(o)}),
    "SOFTMAX": (tflite.SoftmaxOptions, lambda o: {"beta": float(o.Beta())}),
    "CONCATENATION": (tflite.ConcatenationOptions, lambda o: {"axis": o.Axis(), "activation": _activation(o)}),
    "MEAN": (tflite.ReducerOptions, lambda o: {"keep_dims": bool(o.KeepDims())}),
    "RESHAPE": (tflite.ReshapeOptions, _reshape),
    "SQUEEZE": (tflite.SqueezeOptions, _squeeze),
    # activations (issue 15)
    "LEAKY_RELU": (tflite.LeakyReluOptions, lambda o: {"alpha": float(o.Alpha())}),
    "GELU": (tflite.GeluOptions, lambda o: {"approximate": bool(o.Approximate())}),
    # convolution family, resampling, matrix (issue 15)
    "TRANSPOSE_CONV": (tflite.TransposeConvOptions, _window),
    "RESIZE_NEAREST_NEIGHBOR": (tflite.ResizeNearestNeighborOptions, lambda o: _resize(o)),
    "RESIZE_BILINEAR": (tflite.ResizeBilinearOptions, lambda o: _resize(o)),
    "BATCH_MATMUL": (tflite.BatchMatMulOptions, lambda o: _batch_matmul(o)),
    "DEPTH_TO_SPACE": (tflite.DepthToSpaceOptions, lambda o: {"block_size": o.BlockSize()}),
    "SPACE_TO_DEPTH": (tflite.SpaceToDepthOptions, lambda o: {"block_size": o.BlockSize()}),
    "L2_NORMALIZATION": (tflite.L2NormOptions, lambda o: {"activation": _activation(o)}),
    "L2_POOL_2D": (tflite.Pool2DOptions, _pool),
    # arithmetic and reductions (issue 15)
    "SUB": (tflite.SubOptions, lambda o: {"activation": _activation(o)}),
    "SUM": (tflite.ReducerOptions, lambda o: {"keep_dims": bool(o.KeepDims())}),
    "REDUCE_MAX": (tflite.ReducerOptions, lambda o: {"keep_dims": bool(o.KeepDims())}),
    "REDUCE_MIN": (tflite.ReducerOptions, lambda o: {"keep_dims": bool(o.KeepDims())}),
    "ARG_MAX": (tflite.ArgMaxOptions, lambda o: {"output_type": _type_name(o.OutputType())}),
    "ARG_MIN": (tflite.ArgMinOptions, lambda o: {"output_type": _type_name(o.OutputType())}),
    # data movement (issue 15)
    "STRIDED_SLICE": (tflite.StridedSliceOptions, lambda o: {
        "begin_mask": o.BeginMask(), "end_mask": o.EndMask(), "ellipsis_mask": o.EllipsisMask(),
        "new_axis_mask": o.NewAxisMask(), "shrink_axis_mask": o.ShrinkAxisMask(), "offset": bool(o.Offset())}),
    "SPLIT": (tflite.SplitOptions, lambda o: {"num_splits": o.NumSplits()}),
    "SPLIT_V": (tflite.SplitVOptions, lambda o: {"num_splits": o.NumSplits()}),
    "PACK": (tflite.PackOptions, lambda o: {"values_count": o.ValuesCount(), "axis": o.Axis()}),
    "UNPACK": (tflite.UnpackOptions, lambda o: {"num": o.Num(), "axis": o.Axis()}),
    "GATHER": (tflite.GatherOptions, lambda o: {"axis": o.Axis(), "batch_dims": o.BatchDims()}),
    "MIRROR_PAD": (tflite.MirrorPadOptions, lambda o: {"mode": {0: "REFLECT", 1: "SYMMETRIC"}.get(o.Mode(), o.Mode())}),
    "SHAPE": (tflite.ShapeOptions, lambda o: {"out_type": TENSOR_TYPE_NAMES.get(o.OutType(), o.OutType())}),
    # stateful models (issue 12)
    "SVDF": (tflite.SVDFOptions, lambda o: {"rank": o.Rank(), "activation": _activation(o)}),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": (tflite.UnidirectionalSequenceLSTMOptions, lambda o: _lstm(o)),
}


def _resize(options: Any) -> dict[str, Any]:
    return {"align_corners": bool(options.AlignCorners()), "half_pixel_centers": bool(options.HalfPixelCenters())}


def _lstm(options: Any) -> dict[str, Any]:
    return {"activation": _activation(options), "cell_clip": float(options.CellClip()),
            "proj_clip": float(options.ProjClip()), "time_major": bool(options.TimeMajor()),
            "diagonal_recurrent_tensors": bool(options.DiagonalRecurrentTensors())}


def _batch_matmul(options: Any) -> dict[str, Any]:
    return {"adj_x": bool(options.AdjX()), "adj_y": bool(options.AdjY()),
            "asymmetric_quantize_inputs": bool(options.AsymmetricQuantizeInputs())}
