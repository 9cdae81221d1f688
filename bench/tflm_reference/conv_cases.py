"""TRANSPOSE_CONV 3x3, stride 2, SAME, per-channel weights with and without bias, 1x16x16x16 -> 1x32x32x8: parameters as
TFLM Micro's transpose_conv.cc Prepare computes them (ComputePaddingHeightWidth on the output size, and
PopulateConvolutionQuantizationParams' per-channel multipliers from double products)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from tflm_reference.elementwise_cases import INT8_RANGE, _fields
from tflm_reference.model import BenchModel, shape_expr

OUT_SHAPE = (1, 32, 32, 8)
KERNEL, STRIDE = 3, 2


def _same_padding(size: int) -> int:
    """ComputePaddingWithOffset for the transposed convolution's output dimension (dilation 1)."""
    out = (size + STRIDE - 1) // STRIDE
    return max(0, (out - 1) * STRIDE + KERNEL - size) // 2


def add_transpose_conv(m: BenchModel, with_bias: bool) -> None:
    """Without bias, TFLM's Eval passes a null bias (GetOptionalTensorData) and firmware-gen's model has no fourth
    input."""
    rng = np.random.default_rng(7)
    channels_out, channels_in = OUT_SHAPE[3], m.shape(m.x)[3]
    filter_scales = [float(np.float32(0.01 + 0.002 * c)) for c in range(channels_out)]
    b = m.builder
    tag = "" if with_bias else "_nobias"
    weights = b.constant(f"tconv_w{tag}", rng.integers(-127, 128, (channels_out, KERNEL, KERNEL, channels_in),
                                                      np.int8), scale=filter_scales, zero_point=[0] * channels_out)
    (si, zi) = m.quant(m.x)
    bias = b.constant("tconv_b", rng.integers(-2000, 2000, channels_out).astype(np.int32),
                      scale=[si * s for s in filter_scales], zero_point=[0] * channels_out) if with_bias else None
    output_shape = b.constant(f"tconv_shape{tag}", np.array(OUT_SHAPE, np.int32))
    out = m.tensor(OUT_SHAPE, (0.1, 2))
    so, zo = m.quant(out)
    pairs = [quantize_multiplier(si * fs / so) for fs in filter_scales]
    state = "\n".join((f"tflite::ConvParams params;\nint32_t multipliers[{channels_out}] = "
                       f"{{{', '.join(str(p[0]) for p in pairs)}}};",
                       f"int32_t shifts[{channels_out}] = {{{', '.join(str(p[1]) for p in pairs)}}};",
                       f"int32_t scratch[{int(np.prod(OUT_SHAPE))}];"))
    setup = _fields(input_offset=-zi, weights_offset=0, output_offset=zo, stride_width=STRIDE,
                    stride_height=STRIDE) + "\n" + _fields(**{"padding_values.width": _same_padding(OUT_SHAPE[2]),
                                                              "padding_values.height": _same_padding(OUT_SHAPE[1])})
    setup += "\n  " + INT8_RANGE
    call = (f"tflite::reference_integer_ops::TransposeConv(params, multipliers, shifts, {shape_expr(m, m.x)}, "
            f"t{m.x}, {shape_expr(m, weights)}, t{weights}, "
            + (f"{shape_expr(m, bias)}, t{bias}, " if with_bias else "tflite::RuntimeShape(), nullptr, ") +
            f"{shape_expr(m, out)}, t{out}, tflite::RuntimeShape(), nullptr, scratch);")
    inputs = [output_shape, weights, m.x, bias] if with_bias else [output_shape, weights, m.x]
    m.add("TRANSPOSE_CONV 3x3/2 16->8 ch" + ("" if with_bias else " no bias"), "TRANSPOSE_CONV", inputs, out,
          (state, setup.lstrip(), call), {"padding": "SAME", "stride_w": STRIDE, "stride_h": STRIDE})
