"""FULLY_CONNECTED int8: generated C bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from isolate import operators_of
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales
from weighted import ACTIVATIONS, Weights, add_weights, for_activation, weights

from firmware_gen.check.host_validation import validate_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.isa import PORTABLE, Isa
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import lower
from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from firmware_gen.ops.support.requantize import convolution_multipliers, fully_connected_multiplier

from conftest import shared_model


def fc_model(input_shape, w: Weights, input_scale, input_zp, output_zp, activation="NONE", keep_num_dims=False,
             output_shape=None, dtype="int8") -> bytes:
    out_depth, accum_depth = w.values.shape
    if output_shape is None:
        batches = int(np.prod(input_shape)) // accum_depth
        output_shape = (*input_shape[:-1], out_depth) if keep_num_dims else (batches, out_depth)
    if dtype == "int8":
        w = for_activation(w, activation)
    b = ModelBuilder("fully_connected")
    x = b.input("x", input_shape, dtype, scale=input_scale, zero_point=input_zp)
    weights_index, bias_index = add_weights(b, "fc", w, input_scale, 0)
    y = b.tensor("y", output_shape, dtype, scale=w.output_scale, zero_point=output_zp)
    inputs = [x, weights_index] + ([bias_index] if bias_index >= 0 else [])
    b.operator("FULLY_CONNECTED", inputs=inputs, outputs=[y],
               options={"activation": activation, "keep_num_dims": keep_num_dims})
    b.output(y)
    return b.build()


@st.composite
def fc_cases(draw):
    accum_depth = draw(st.integers(1, 40))
    out_depth = draw(st.integers(1, 12))
    leading = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    keep_num_dims = draw(st.booleans())
    if keep_num_dims or draw(st.booleans()):
        input_shape = (*leading, accum_depth)
    else:  # a flattened view: the depth spread over trailing dimensions
        split = draw(st.sampled_from([d for d in range(1, accum_depth + 1) if accum_depth % d == 0]))
        input_shape = (*leading, split, accum_depth // split)
    if not keep_num_dims and len(input_shape) < 2:
        input_shape = (1, *input_shape)
    input_scale = draw(scales)
    w = draw(weights((out_depth, accum_depth), 0, input_scale, accum_depth))
    return input_shape, w, input_scale, keep_num_dims


# Flash for every layer's paired weights (ops/variant_choice.py): a layer whose output stage the fused kernel serves
# runs as the fused 1x1 convolution of its batches, another of one batch with whole groups of four outputs reads two
# channels per word; without flash to spare, the blocked int8 layout.
WIDE = Isa(flash_bytes=1 << 22)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=fc_cases(), input_zp=int8_zero_points, output_zp=int8_zero_points, activation=ACTIVATIONS,
       seed=st.integers(0, 99), isa=st.sampled_from([PORTABLE, WIDE]))
def test_fully_connected_is_bit_exact(case, input_zp, output_zp, activation, seed, isa):
    input_shape, w, input_scale, keep_num_dims = case
    model = fc_model(input_shape, w, input_scale, input_zp, output_zp, activation, keep_num_dims)
    (call,) = lower(read_model(model), isa).values()
    batches = int(np.prod(input_shape)) // w.values.shape[1]
    if isa is WIDE and call.function == "fg_conv2d_pointwise_fused_s8":  # its output stage the fused one
        assert (call.params["batches"], call.params["in_c"]) == (batches, w.values.shape[1])
    else:
        paired = isa is WIDE and batches == 1 and w.values.shape[0] % 4 == 0
        assert ("paired_weights" in call.params) == paired
    assert_bit_exact(model, seed=seed, isa=isa)


def test_per_tensor_multiplier_takes_a_double_product():
    # Scales whose product rounds differently in float32 than in double: TFLM's per-tensor path, as its per-channel
    # one, takes the double product (with the float32 one, as older TFLM sources read, 4 of 5 such models differed).
    rng = np.random.default_rng(1)
    for _ in range(1000):
        input_scale, weight_scale, output_scale = (float(np.float32(s)) for s in rng.uniform(1e-3, 1.0, 3))
        float32_product = float(np.float32(input_scale) * np.float32(weight_scale))
        if quantize_multiplier(float32_product / output_scale) != \
                tuple(int(v[0]) for v in fully_connected_multiplier(input_scale, weight_scale, output_scale)):
            break
    else:
        raise AssertionError("no scales found where the two products differ")
    assert fully_connected_multiplier(input_scale, weight_scale, output_scale)[0][0] == \
        convolution_multipliers(input_scale, (weight_scale,), output_scale)[0][0]
    w = Weights(np.random.default_rng(2).integers(-127, 127, (16, 64), endpoint=True).astype(np.int8),
                [weight_scale], None, output_scale)
    assert_bit_exact(fc_model((256, 64), w, input_scale, 3, -5))


def test_wrong_output_shape_is_refused():
    w = Weights(np.ones((4, 8), np.int8), [0.01], None, 0.1)
    message = refusal(fc_model((2, 8), w, 0.1, 0, 0, output_shape=(2, 5)))
    assert "should be [2, 4]" in message


def test_asymmetric_weights_are_refused():
    b = ModelBuilder("fc")
    x = b.input("x", (1, 8), "int8", scale=0.1, zero_point=0)
    w = b.constant("w", np.ones((4, 8), np.int8), scale=0.01, zero_point=3)
    y = b.tensor("y", (1, 4), "int8", scale=0.1, zero_point=0)
    b.operator("FULLY_CONNECTED", inputs=[x, w], outputs=[y])
    b.output(y)
    assert "nonzero zero point" in refusal(b.build())


@pytest.mark.parametrize("name", ["hello_world_int8", "ad01_int8", "kws_ref_model"])
def test_real_model_layers_alone_on_random_inputs(name):
    cases = operators_of(shared_model(name), {"FULLY_CONNECTED"})
    assert cases
    for label, model in cases:
        report = validate_model(model, seed=7)
        assert report.bit_exact, (label, report.mismatches)
