"""Row-wise cases over the channels of the 1x16x16x16 input: LOG_SOFTMAX (parameters from log_softmax.cc's
Prepare, which our LOG_SOFTMAX module mirrors) and L2_NORMALIZATION (l2norm.cc: the input zero point only)."""

from __future__ import annotations

import numpy as np

from firmware_gen.ops.softmax.log_softmax import log_softmax_scaling
from tflm_reference.model import SHAPE, BenchModel, io

ROWS, DEPTH = int(np.prod(SHAPE[:-1])), SHAPE[-1]


def add_log_softmax(m: BenchModel) -> None:
    out = m.tensor(SHAPE, (16 / 256, 127))
    scaling = log_softmax_scaling(m.quant(m.x)[0])
    setup = "\n  ".join((f"params.input_multiplier = {scaling['input_multiplier']};",
                         f"params.input_left_shift = {scaling['input_left_shift']};",
                         f"params.reverse_scaling_divisor = {scaling['reverse_scaling_divisor']};",
                         f"params.reverse_scaling_right_shift = {-scaling['reverse_scaling_shift']};",
                         f"params.diff_min = {scaling['diff_min']};"))
    call = f"tflite::reference_ops::LogSoftmax(params, {ROWS}, {DEPTH}, {io(m, m.x, out)});"
    m.add("LOG_SOFTMAX rows of 16", "LOG_SOFTMAX", [m.x], out, ("tflite::SoftmaxParams params;", setup, call))


def add_l2_normalization(m: BenchModel) -> None:
    out = m.tensor(SHAPE, (1 / 128, 0))
    call = (f"tflite::reference_integer_ops::L2Normalization({m.quant(m.x)[1]}, {ROWS}, {DEPTH}, t{m.x}, "
            f"t{out});")
    m.add("L2_NORMALIZATION rows of 16", "L2_NORMALIZATION", [m.x], out, ("", "", call))


def add_normalization_cases(m: BenchModel) -> None:
    add_log_softmax(m)
    add_l2_normalization(m)
