"""FULLY_CONNECTED with keep_num_dims and BATCH_MATMUL (both adjoint flags, a broadcast batch): parameters as TFLM
Micro's fully_connected.cc and batch_matmul.cc Prepare compute them (one per-tensor multiplier from double products,
GetQuantizedConvolutionMultipler)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from tflm_reference.elementwise_cases import INT8_RANGE, _fields
from tflm_reference.model import BenchModel, shape_expr


def add_fully_connected_keep_num_dims(m: BenchModel) -> None:
    """x's 16 channels through [16, 16] per-tensor weights with bias, keep_num_dims (output 1x16x16x16):
    fully_connected.cc's int8 Eval, reference_integer_ops::FullyConnected."""
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


def _transposed(target: str, source: int, batches: int, rows: int, cols: int) -> str:
    """C++ (setup, untimed) writing the [batches, rows, cols] matrices of t<source> transposed into target."""
    return (f"\n  for (int b = 0; b < {batches}; ++b) for (int r = 0; r < {rows}; ++r) for (int c = 0; c < {cols}; "
            f"++c) {target}[(b * {cols} + c) * {rows} + r] = t{source}[(b * {rows} + r) * {cols} + c];")


def add_batch_matmul(m: BenchModel, adj_x: bool = False, adj_y: bool = False, rhs_batches: int = 4) -> None:
    """[4, 64, 32] x [rhs_batches, 32, 16] (each operand stored transposed with its adjoint flag):
    BatchMatMul<int8_t, int32_t> with the right-hand side passed first, as batch_matmul.cc's EvalInt8 does, read as
    [n, k], and the left-hand side as [m, k] under its swapped shape [k, m]. Where TFLM's Eval first transposes an
    operand into a scratch tensor (TransposeRowsColumns: the right-hand side without adj_y, the left-hand side with
    adj_x; micro code not compiled here) the harness transposes it in setup, untimed, so TFLM's figure leaves that
    pass out. One right-hand batch is broadcast over the four of the left-hand side."""
    b = m.builder
    tag = f"{int(adj_x)}{int(adj_y)}{rhs_batches}"
    lhs = b.input(f"bm_lhs_{tag}", (1, 4, 32, 64) if adj_x else (1, 4, 64, 32), "int8", scale=0.05, zero_point=2)
    rhs = b.input(f"bm_rhs_{tag}", (1, rhs_batches, 16, 32) if adj_y else (1, rhs_batches, 32, 16), "int8",
                  scale=0.03, zero_point=-1)
    out = m.tensor((1, 4, 64, 16), (0.5, -3))
    (sl, zl), (sr, zr), (so, zo) = m.quant(lhs), m.quant(rhs), m.quant(out)
    multiplier, shift = quantize_multiplier(sl * sr / so)
    setup = _fields(input_offset=-zl, weights_offset=-zr, output_offset=zo, output_multiplier=multiplier,
                    output_shift=shift) + "\n  " + INT8_RANGE
    state = (f"tflite::FullyConnectedParams params;\nint8_t lhs_mk[4 * 64 * 32];\n"
             f"int8_t rhs_nk[{rhs_batches} * 16 * 32];\nint32_t rhs_dims[] = {{1, {rhs_batches}, 16, 32}};")
    if adj_x:
        setup += _transposed("lhs_mk", lhs, 4, 32, 64)
    if not adj_y:
        setup += _transposed("rhs_nk", rhs, rhs_batches, 32, 16)
    call = ("const int32_t lhs_dims[] = {1, 4, 32, 64};\n  "  # [k, m]: SwapRowColumnDims, or adj_x's own shape
            f"tflite::reference_ops::BatchMatMul<int8_t, int32_t>(params, tflite::RuntimeShape(4, rhs_dims), "
            f"{f't{rhs}' if adj_y else 'rhs_nk'}, tflite::RuntimeShape(4, lhs_dims), "
            f"{'lhs_mk' if adj_x else f't{lhs}'}, {shape_expr(m, out)}, t{out});")
    flags = "".join(flag for flag, on in ((" adj_x", adj_x), (" adj_y", adj_y)) if on)
    batches = "4" if rhs_batches == 4 else f"4 (rhs {rhs_batches})"
    label = f"BATCH_MATMUL {batches}x(64x32 . 32x16){flags}"
    m.add(label, "BATCH_MATMUL", [lhs, rhs], out, (state, setup, call), {"adj_x": adj_x, "adj_y": adj_y})
