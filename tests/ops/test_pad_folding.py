"""PAD folded into the VALID convolution that reads it (ops/pad_folding.py): folded exactly when the padding is what
SAME gives that window, bit-exact with TFLM (which runs the PAD) whether folded or not."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, scales
from weighted import Weights, add_weights, weights

from firmware_gen.driver.compiler import plan_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.mobilenet_v2 import mobilenet_v2
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import fold
from firmware_gen.ops.geometry import window_2d

CHANNEL_AXIS = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 3}


def padded_conv_model(opcode: str, shape: tuple[int, ...], paddings, w: Weights, scale: float, zero_point: int,
                      stride: int, pad_value: int | None = None, second_reader: bool = False) -> bytes:
    """x -> PAD (or PADV2 with pad_value) -> VALID opcode (-> and, with second_reader, an ADD of the padded tensor
    to itself, a second output)."""
    b = ModelBuilder("padded_" + opcode.lower())
    x = b.input("x", shape, "int8", scale=scale, zero_point=zero_point)
    padded_shape = [n + before + after for n, (before, after) in zip(shape, paddings, strict=True)]
    inputs = [x, b.constant("paddings", np.array(paddings, np.int32))]
    if pad_value is not None:
        inputs.append(b.constant("value", np.array([pad_value], np.int8), scale=scale, zero_point=zero_point))
    padded = b.tensor("padded", padded_shape, "int8", scale=scale, zero_point=zero_point)
    b.operator("PAD" if pad_value is None else "PADV2", inputs=inputs, outputs=[padded])
    axis = CHANNEL_AXIS[opcode]
    window = window_2d("VALID", tuple(padded_shape[1:3]), w.values.shape[1:3], (stride, stride))
    weights_index, bias_index = add_weights(b, "conv", w, scale, axis)
    y = b.tensor("y", (shape[0], window.out_h, window.out_w, w.values.shape[axis]), "int8", scale=w.output_scale,
                 zero_point=-3)
    options = {"padding": "VALID", "stride_h": stride, "stride_w": stride, "dilation_h": 1, "dilation_w": 1,
               "activation": "NONE", **({"depth_multiplier": 1} if opcode == "DEPTHWISE_CONV_2D" else {})}
    b.operator(opcode, inputs=[padded, weights_index] + ([bias_index] if bias_index >= 0 else []), outputs=[y],
               options=options)
    b.output(y)
    if second_reader:
        twice = b.tensor("twice", padded_shape, "int8", scale=scale * 2, zero_point=zero_point)
        b.operator("ADD", inputs=[padded, padded], outputs=[twice], options={"activation": "NONE"})
        b.output(twice)
    return b.build()


def _same_padding(shape, filter_hw, stride) -> list[tuple[int, int]]:
    """The explicit padding equal to SAME's on `shape` (Keras' correct_pad for a stride-2 window)."""
    window = window_2d("SAME", shape[1:3], filter_hw, (stride, stride))
    pads = []
    for size, out, k, before in ((shape[1], window.out_h, filter_hw[0], window.pad_top),
                                 (shape[2], window.out_w, filter_hw[1], window.pad_left)):
        pads.append((before, max((out - 1) * stride + k - size, 0) - before))
    return [(0, 0), *pads, (0, 0)]


@st.composite
def cases(draw):
    opcode = draw(st.sampled_from(sorted(CHANNEL_AXIS)))
    in_h, in_w, channels = draw(st.integers(2, 9)), draw(st.integers(2, 9)), draw(st.integers(1, 5))
    filter_hw = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = draw(st.integers(1, 2))
    shape = (1, in_h, in_w, channels)
    same = _same_padding(shape, filter_hw, stride)
    kind = draw(st.sampled_from(["same", "other", "pad value", "two readers"]))
    paddings = same if kind != "other" else [(0, 0), *(draw(st.tuples(st.integers(0, 2), st.integers(0, 2)))
                                                         for _ in range(2)), (0, 0)]
    scale = draw(scales)
    w_shape = (draw(st.integers(1, 4)), *filter_hw, channels) if opcode == "CONV_2D" else (1, *filter_hw, channels)
    w = draw(weights(w_shape, CHANNEL_AXIS[opcode], scale, int(np.prod(w_shape[1:]))))
    return opcode, shape, paddings, w, scale, stride, kind, _reads_as_same(shape, paddings, filter_hw, stride)


def _reads_as_same(shape, paddings, filter_hw, stride) -> bool:
    """Whether VALID on the padded tensor reads what SAME reads on the unpadded one: the same outputs and padding
    before (padding after that no window reaches changes nothing)."""
    padded = [n + before + after for n, (before, after) in zip(shape, paddings, strict=True)]
    valid = window_2d("VALID", tuple(padded[1:3]), filter_hw, (stride, stride))
    same = window_2d("SAME", shape[1:3], filter_hw, (stride, stride))
    return (valid.out_h, valid.out_w, paddings[1][0], paddings[2][0]) == (same.out_h, same.out_w, same.pad_top,
                                                                          same.pad_left)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=cases(), zero_point=int8_zero_points, value=int8_zero_points, seed=st.integers(0, 99))
def test_a_pad_is_folded_exactly_when_its_reader_can_pad_alike(case, zero_point, value, seed):
    opcode, shape, paddings, w, scale, stride, kind, is_same = case
    pad_value = value if kind == "pad value" else None
    model = padded_conv_model(opcode, shape, paddings, w, scale, zero_point, stride, pad_value,
                              second_reader=kind == "two readers")
    folded = not {"PAD", "PADV2"} & {op.opcode for op in fold(read_model(model)).operators}
    by_same = is_same and kind in ("same", "other") or kind == "pad value" and is_same and value == zero_point
    assert folded == by_same
    assert_bit_exact(model, seed=seed)


def test_keras_mobilenet_v2_plans_as_its_graph_without_pads():
    """Keras writes a PAD before each stride-2 depthwise; folded, the pool is TF-slim's graph's, half the unfolded
    one (the padded tensor lived beside the tensor it pads)."""
    keras, slim = (read_model(mobilenet_v2(0.35, 96, blocks=6, explicit_pad=pad)) for pad in (True, False))
    assert "PAD" in {op.opcode for op in keras.operators}
    assert "PAD" not in {op.opcode for op in fold(keras).operators}
    assert plan_model(keras).pool_bytes == plan_model(slim).pool_bytes
