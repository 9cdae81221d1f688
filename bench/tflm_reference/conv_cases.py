"""TRANSPOSE_CONV 3x3, stride 2, SAME, per-channel weights with bias, 1x16x16x16 -> 1x32x32x8: parameters as
TFLM Micro's transpose_conv.cc Prepare computes them (ComputePaddingHeightWidth on the output size, and
PopulateConvolutionQuantizationParams' per-channel multipliers from double products)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.fixedpoint import quantize_multiplier
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


def add_fully_connected_keep_num_dims(m: BenchModel) -> None:
    """x's 16 channels through [16, 16] per-tensor weights with bias, keep_num_dims (output 1x16x16x16):
    fully_connected.cc's int8 Eval, reference_integer_ops::FullyConnected, one multiplier from double products
    (GetQuantizedConvolutionMultipler)."""
    rng = np.random.default_rng(8)
    b = m.builder
    weights = b.constant("fc_w", rng.integers(-127, 128, (16, 16), np.int8), scale=0.02, zero_point=0)
    (si, zi), (sw, _) = m.quant(m.x), m.quant(weights)
    bias = b.constant("fc_b", rng.integers(-2000, 2000, 16).astype(np.int32), scale=si * sw, zero_point=0)
    out = m.tensor(m.shape(m.x), (0.08, -4))
    so, zo = m.quant(out)
    multiplier, shift = quantize_multiplier(si * sw / so)
    setup = _fields(input_offset=-zi, weights_offset=0, output_offset=zo, output_multiplier=multiplier,
                    output_shift=shift) + "\n  " + INT8_RANGE
    call = (f"tflite::reference_integer_ops::FullyConnected(params, {shape_expr(m, m.x)}, t{m.x}, "
            f"{shape_expr(m, weights)}, t{weights}, {shape_expr(m, bias)}, t{bias}, {shape_expr(m, out)}, t{out});")
    m.add("FULLY_CONNECTED 16->16 keep_num_dims", "FULLY_CONNECTED", [m.x, weights, bias], out,
          ("tflite::FullyConnectedParams params;", setup.lstrip(), call), {"keep_num_dims": True})


def add_batch_matmul(m: BenchModel, adj_y: bool) -> None:
    """[4, 64, 32] x [4, 32, 16] (or its transpose [4, 16, 32] with adj_y): BatchMatMul<int8_t, int32_t> with the
    right-hand side passed first, as batch_matmul.cc's EvalInt8 does, read as [n, k]; without adj_y TFLM's Eval
    first transposes the right-hand side into a scratch tensor (TransposeRowsColumns, micro code not compiled here):
    the harness transposes it in setup, untimed, so TFLM's figure leaves that pass out. One per-tensor multiplier
    (GetQuantizedConvolutionMultipler)."""
    b = m.builder
    tag = "adj_y" if adj_y else "plain"
    lhs = b.input(f"bm_lhs_{tag}", (1, 4, 64, 32), "int8", scale=0.05, zero_point=2)
    rhs = b.input(f"bm_rhs_{tag}", (1, 4, 16, 32) if adj_y else (1, 4, 32, 16), "int8", scale=0.03, zero_point=-1)
    out = m.tensor((1, 4, 64, 16), (0.5, -3))
    (sl, zl), (sr, zr), (so, zo) = m.quant(lhs), m.quant(rhs), m.quant(out)
    multiplier, shift = quantize_multiplier(sl * sr / so)
    setup = _fields(input_offset=-zl, weights_offset=-zr, output_offset=zo, output_multiplier=multiplier,
                    output_shift=shift) + "\n  " + INT8_RANGE
    state = "tflite::FullyConnectedParams params;\nint8_t rhs_nk[4 * 16 * 32];\nint32_t rhs_dims[] = {1, 4, 16, 32};"
    if not adj_y:
        setup += (f"\n  for (int b = 0; b < 4; ++b) for (int k = 0; k < 32; ++k) for (int n = 0; n < 16; ++n) "
                  f"rhs_nk[(b * 16 + n) * 32 + k] = t{rhs}[(b * 32 + k) * 16 + n];")
    rhs_data = f"t{rhs}" if adj_y else "rhs_nk"
    call = ("const int32_t lhs_dims[] = {1, 4, 32, 64};\n  "  # SwapRowColumnDims of the left-hand side's shape
            f"tflite::reference_ops::BatchMatMul<int8_t, int32_t>(params, tflite::RuntimeShape(4, rhs_dims), "
            f"{rhs_data}, tflite::RuntimeShape(4, lhs_dims), t{lhs}, {shape_expr(m, out)}, t{out});")
    label = "BATCH_MATMUL 4x(64x32 . 32x16)" + (" adj_y" if adj_y else "")
    m.add(label, "BATCH_MATMUL", [lhs, rhs], out, (state, setup, call), {"adj_x": False, "adj_y": adj_y})
