"""The TFLite writer: files read back with the `tflite` package and the importer, and run in TFLM."""

from __future__ import annotations

import numpy as np
import pytest
import tflite

from firmware_gen.check.oracle import run_tflm
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import OPTION_WRITERS, ModelBuilder


def _conv_model() -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(1)
    b = ModelBuilder(name="conv_test")
    x = b.input("x", (1, 8, 8, 3), "int8", scale=0.05, zero_point=-3)
    weights = rng.integers(-127, 128, (4, 3, 3, 3), dtype=np.int8)
    w_scales = [0.01, 0.02, 0.015, 0.03]
    w = b.constant("w", weights, scale=w_scales, zero_point=0, axis=0)
    bias = b.constant("bias", rng.integers(-500, 500, 4).astype(np.int32), scale=[0.05 * s for s in w_scales])
    y = b.tensor("y", (1, 4, 4, 4), "int8", scale=0.1, zero_point=2)
    b.operator("CONV_2D", [x, w, bias], [y], {"padding": "SAME", "stride_h": 2, "stride_w": 2, "activation": "RELU6"})
    b.output(y)
    return b.build(), weights


def test_file_reads_back_with_the_tflite_package() -> None:
    data, weights = _conv_model()
    assert tflite.Model.ModelBufferHasIdentifier(data, 0)
    model = tflite.Model.GetRootAsModel(data, 0)
    assert model.Version() == 3
    assert model.SubgraphsLength() == 1
    assert model.Buffers(0).DataLength() == 0
    code = model.OperatorCodes(0)
    assert code.BuiltinCode() == code.DeprecatedBuiltinCode() == tflite.BuiltinOperator.CONV_2D
    assert code.Version() >= 1
    subgraph = model.Subgraphs(0)
    assert subgraph.Name() == b"conv_test"
    assert list(subgraph.InputsAsNumpy()) == [0] and list(subgraph.OutputsAsNumpy()) == [3]
    w = subgraph.Tensors(1)
    assert w.Name() == b"w" and w.Type() == tflite.TensorType.INT8 and list(w.ShapeAsNumpy()) == [4, 3, 3, 3]
    assert model.Buffers(w.Buffer()).DataAsNumpy().tobytes() == weights.tobytes()
    assert np.allclose(w.Quantization().ScaleAsNumpy(), [0.01, 0.02, 0.015, 0.03])
    assert list(w.Quantization().ZeroPointAsNumpy()) == [0, 0, 0, 0]
    x = subgraph.Tensors(0)
    assert x.Quantization().ZeroPointAsNumpy()[0] == -3 and x.Buffer() == 0
    op = subgraph.Operators(0)
    assert list(op.InputsAsNumpy()) == [0, 1, 2]
    assert op.BuiltinOptionsType() == tflite.BuiltinOptions.Conv2DOptions
    options = tflite.Conv2DOptions()
    options.Init(op.BuiltinOptions().Bytes, op.BuiltinOptions().Pos)
    assert (options.Padding(), options.StrideH(), options.StrideW()) == (tflite.Padding.SAME, 2, 2)
    assert options.FusedActivationFunction() == tflite.ActivationFunctionType.RELU6
    assert (options.DilationHFactor(), options.DilationWFactor()) == (1, 1)


def test_constant_data_is_aligned_for_in_place_reads() -> None:
    b = ModelBuilder()
    x = b.input("x", (1, 3), "int8", scale=1.0)
    b.constant("odd", np.arange(3, dtype=np.int8))
    c = b.constant("wide", np.arange(5, dtype=np.int32))
    b.output(x)
    model = tflite.Model.GetRootAsModel(b.build(), 0)
    buffer = model.Buffers(model.Subgraphs(0).Tensors(c).Buffer())
    position = buffer._tab.Vector(buffer._tab.Offset(4))
    assert position % 16 == 0


# opcode -> options as a caller writes them; each must come back identical through the importer.
OPTION_EXAMPLES = {
    "CONV_2D": {"padding": "VALID", "stride_h": 2, "stride_w": 3, "dilation_h": 2, "dilation_w": 1,
                "activation": "RELU"},
    "DEPTHWISE_CONV_2D": {"padding": "SAME", "stride_h": 1, "stride_w": 2, "dilation_h": 1, "dilation_w": 1,
                          "activation": "RELU6", "depth_multiplier": 2},
    "FULLY_CONNECTED": {"activation": "RELU_N1_TO_1", "keep_num_dims": True, "weights_format": 0},
    "AVERAGE_POOL_2D": {"padding": "VALID", "stride_h": 2, "stride_w": 2, "filter_h": 3, "filter_w": 2,
                        "activation": "NONE"},
    "MAX_POOL_2D": {"padding": "SAME", "stride_h": 1, "stride_w": 1, "filter_h": 2, "filter_w": 2,
                    "activation": "RELU"},
    "ADD": {"activation": "RELU6"},
    "MUL": {"activation": "NONE"},
    "SOFTMAX": {"beta": 0.5},
    "CONCATENATION": {"axis": 3, "activation": "NONE"},
    "MEAN": {"keep_dims": True},
    "RESHAPE": {"new_shape": (1, 12)},
    "SQUEEZE": {"squeeze_dims": (0, 2)},
    # activations (issue 15)
    "LEAKY_RELU": {"alpha": 0.5},
    "GELU": {"approximate": True},
    # convolution family, resampling, matrix (issue 15)
    "TRANSPOSE_CONV": {"padding": "VALID", "stride_h": 2, "stride_w": 3, "activation": "RELU"},
    "RESIZE_NEAREST_NEIGHBOR": {"align_corners": True, "half_pixel_centers": False},
    "RESIZE_BILINEAR": {"align_corners": False, "half_pixel_centers": True},
    "BATCH_MATMUL": {"adj_x": True, "adj_y": False, "asymmetric_quantize_inputs": False},
    "DEPTH_TO_SPACE": {"block_size": 2},
    "SPACE_TO_DEPTH": {"block_size": 3},
    "L2_NORMALIZATION": {"activation": "NONE"},
    "L2_POOL_2D": {"padding": "VALID", "stride_h": 2, "stride_w": 1, "filter_h": 2, "filter_w": 3,
                   "activation": "NONE"},
    # arithmetic and reductions (issue 15)
    "SUB": {"activation": "RELU"}, "SUM": {"keep_dims": True}, "REDUCE_MAX": {"keep_dims": False},
    "REDUCE_MIN": {"keep_dims": True}, "ARG_MAX": {"output_type": "int32"}, "ARG_MIN": {"output_type": "int64"},
    # data movement (issue 15)
    "STRIDED_SLICE": {"begin_mask": 1, "end_mask": 2, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 4,
                      "offset": True},
    "SPLIT": {"num_splits": 3}, "SPLIT_V": {"num_splits": 2}, "PACK": {"values_count": 2, "axis": 1},
    "UNPACK": {"num": 2, "axis": -1}, "GATHER": {"axis": 1, "batch_dims": 1}, "MIRROR_PAD": {"mode": "SYMMETRIC"},
    "SHAPE": {"out_type": "INT32"},
    # stateful models (issue 12)
    "SVDF": {"rank": 2, "activation": "RELU"},
    "UNIDIRECTIONAL_SEQUENCE_LSTM": {"activation": "TANH", "cell_clip": 2.5, "proj_clip": 0.5, "time_major": True,
                                     "diagonal_recurrent_tensors": True},
}


def test_every_option_writer_round_trips_through_the_importer() -> None:
    b = ModelBuilder()
    x = b.input("x", (1, 12), "int8", scale=1.0)
    for number, opcode in enumerate(OPTION_WRITERS):  # each writes a tensor of its own: a graph the reader accepts
        y = b.tensor(f"y{number}", (1, 12), "int8", scale=1.0)
        b.operator(opcode, [x, x], [y], OPTION_EXAMPLES.get(opcode, {}))
        b.output(y)
    graph = read_model(b.build())
    assert [op.opcode for op in graph.operators] == list(OPTION_WRITERS)
    for op in graph.operators:
        assert op.options == OPTION_EXAMPLES.get(op.opcode, {}), op.opcode


def test_defaults_are_the_documented_ones() -> None:
    b = ModelBuilder()
    x = b.input("x", (1, 4, 4, 1), "int8", scale=1.0)
    for number, opcode in enumerate(("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "SOFTMAX", "MEAN",
                                     "CONCATENATION", "SQUEEZE")):
        y = b.tensor(f"y{number}", (1, 4, 4, 1), "int8", scale=1.0)
        b.operator(opcode, [x], [y])
        b.output(y)
    options = [op.options for op in read_model(b.build()).operators]
    assert options[0] == {"padding": "SAME", "stride_h": 1, "stride_w": 1, "dilation_h": 1, "dilation_w": 1,
                          "activation": "NONE"}
    assert options[1]["depth_multiplier"] == 1
    assert options[2]["keep_num_dims"] is False
    assert options[3:] == [{"beta": 1.0}, {"keep_dims": False}, {"axis": 0, "activation": "NONE"},
                           {"squeeze_dims": ()}]


def test_reshape_gets_its_shape_as_option_and_int32_input() -> None:
    b = ModelBuilder()
    x = b.input("x", (1, 2, 3), "int8", scale=1.0)
    y = b.tensor("y", (1, 6), "int8", scale=1.0)
    b.operator("RESHAPE", [x], [y])
    b.output(y)
    graph = read_model(b.build())
    op = graph.operators[0]
    assert op.options == {"new_shape": (1, 6)}
    shape = graph.tensors[op.inputs[1]]
    assert shape.data.dtype == np.int32 and list(shape.data) == [1, 6]


def test_bad_arguments_are_refused() -> None:
    b = ModelBuilder()
    with pytest.raises(ValueError, match="dtype"):
        b.tensor("t", (1,), "float16")
    with pytest.raises(ValueError, match="operator"):
        b.operator("WHILE", [], [])  # control flow: never written
    with pytest.raises(ValueError, match="zero points"):
        b.tensor("t", (2,), "int8", scale=[0.1, 0.2], zero_point=[0, 0, 0])


def test_tflm_runs_a_strided_conv() -> None:
    data, _ = _conv_model()
    x = np.random.default_rng(2).integers(-128, 128, (1, 8, 8, 3), dtype=np.int8)
    result = run_tflm(data, [x], num_tensors=4)
    out = result.outputs[0]
    assert out.shape == (1, 4, 4, 4) and out.dtype == np.int8
    assert out.min() >= 2 and out.max() <= 2 + 60  # RELU6 at scale 0.1, zero point 2
    assert len(np.unique(out)) > 4


def test_tflm_moves_data_exactly_as_numpy_does() -> None:
    """PAD, TRANSPOSE, MAX_POOL_2D, CONCATENATION, RESHAPE, SQUEEZE: no arithmetic, so exactly checkable."""
    q = {"scale": 0.5, "zero_point": -1}
    b = ModelBuilder(name="data_movement")
    x = b.input("x", (1, 4, 4, 2), "int8", **q)
    padded = b.tensor("padded", (1, 6, 4, 2), "int8", **q)
    b.operator("PAD", [x, b.constant("paddings", np.array([[0, 0], [1, 1], [0, 0], [0, 0]], np.int32))], [padded])
    transposed = b.tensor("transposed", (1, 4, 6, 2), "int8", **q)
    b.operator("TRANSPOSE", [padded, b.constant("perm", np.array([0, 2, 1, 3], np.int32))], [transposed])
    pooled = b.tensor("pooled", (1, 2, 3, 2), "int8", **q)
    b.operator("MAX_POOL_2D", [transposed], [pooled],
               {"padding": "VALID", "stride_h": 2, "stride_w": 2, "filter_h": 2, "filter_w": 2})
    joined = b.tensor("joined", (1, 2, 3, 4), "int8", **q)
    b.operator("CONCATENATION", [pooled, pooled], [joined], {"axis": 3})
    flat = b.tensor("flat", (1, 1, 6, 4), "int8", **q)
    b.operator("RESHAPE", [joined], [flat])
    squeezed = b.tensor("squeezed", (6, 4), "int8", **q)
    b.operator("SQUEEZE", [flat], [squeezed], {"squeeze_dims": (0, 1)})
    b.output(squeezed)

    x_value = np.random.default_rng(3).integers(-128, 128, (1, 4, 4, 2), dtype=np.int8)
    expected = np.pad(x_value, [(0, 0), (1, 1), (0, 0), (0, 0)], constant_values=-1).transpose(0, 2, 1, 3)
    expected = expected.reshape(1, 2, 2, 3, 2, 2).max(axis=(2, 4))
    expected = np.concatenate([expected, expected], axis=3).reshape(6, 4)
    out = run_tflm(b.build(), [x_value], num_tensors=len(b.tensors)).outputs[0]
    np.testing.assert_array_equal(out, expected)


def test_tflm_runs_arithmetic_ops_between_float_boundaries() -> None:
    """QUANTIZE -> DEPTHWISE_CONV_2D -> ADD -> MUL -> AVERAGE_POOL_2D -> MEAN -> FULLY_CONNECTED -> LOGISTIC,
    SOFTMAX -> DEQUANTIZE."""
    rng = np.random.default_rng(4)
    b = ModelBuilder(name="arithmetic")
    x_float = b.input("x_float", (1, 6, 6, 2), "float32")
    x = b.tensor("x", (1, 6, 6, 2), "int8", scale=1 / 64, zero_point=0)
    b.operator("QUANTIZE", [x_float], [x])
    dw = b.tensor("dw", (1, 6, 6, 4), "int8", scale=0.05, zero_point=-128)
    dw_scales = np.array([0.004, 0.005, 0.006, 0.007])
    b.operator("DEPTHWISE_CONV_2D", [
        x, b.constant("dw_w", rng.integers(-127, 128, (1, 3, 3, 4), dtype=np.int8), scale=dw_scales, axis=3),
        b.constant("dw_b", rng.integers(-200, 200, 4).astype(np.int32), scale=dw_scales / 64)],
        [dw], {"depth_multiplier": 2, "activation": "RELU6"})
    summed = b.tensor("summed", (1, 6, 6, 4), "int8", scale=0.1, zero_point=-128)
    b.operator("ADD", [dw, dw], [summed])
    product = b.tensor("product", (1, 6, 6, 4), "int8", scale=0.5, zero_point=-128)
    b.operator("MUL", [summed, dw], [product], {"activation": "RELU"})
    pooled = b.tensor("pooled", (1, 3, 3, 4), "int8", scale=0.5, zero_point=-128)
    b.operator("AVERAGE_POOL_2D", [product], [pooled], {"padding": "VALID", "stride_h": 2, "stride_w": 2,
                                                        "filter_h": 2, "filter_w": 2})
    mean = b.tensor("mean", (1, 1, 1, 4), "int8", scale=0.4, zero_point=-128)
    b.operator("MEAN", [pooled, b.constant("axes", np.array([1, 2], np.int32))], [mean], {"keep_dims": True})
    logits = b.tensor("logits", (1, 3), "int8", scale=0.2, zero_point=0)
    b.operator("FULLY_CONNECTED", [
        mean, b.constant("fc_w", rng.integers(-127, 128, (3, 4), dtype=np.int8), scale=0.01), -1], [logits])
    gate = b.tensor("gate", (1, 3), "int8", scale=1 / 256, zero_point=-128)
    b.operator("LOGISTIC", [logits], [gate])
    probabilities = b.tensor("probabilities", (1, 3), "int8", scale=1 / 256, zero_point=-128)
    b.operator("SOFTMAX", [logits], [probabilities])
    out = b.tensor("out", (1, 3), "float32")
    b.operator("DEQUANTIZE", [probabilities], [out])
    b.output(out)
    b.output(gate)

    data = b.build()
    x_value = rng.uniform(-1, 1, (1, 6, 6, 2)).astype(np.float32)
    result = run_tflm(data, [x_value], num_tensors=len(b.tensors))
    probabilities_value, gate_value = result.outputs
    assert probabilities_value.dtype == np.float32 and probabilities_value.shape == (1, 3)
    assert abs(float(probabilities_value.sum()) - 1.0) < 0.02
    assert gate_value.shape == (1, 3) and gate_value.dtype == np.int8
    quantized = result.tensors[x]
    np.testing.assert_array_equal(quantized, np.clip(np.round(x_value * 64), -128, 127))


def test_variable_tensors_round_trip() -> None:  # stateful models (issue 12)
    b = ModelBuilder()
    x = b.input("x", (1, 4), "int8", scale=1.0)
    state = b.tensor("state", (1, 8), "int16", scale=0.5, variable=True)
    b.output(x)
    assert not b.tensors[x].variable and b.tensors[state].variable
    graph = read_model(b.build())
    assert [t.is_variable for t in graph.tensors] == [False, True]
