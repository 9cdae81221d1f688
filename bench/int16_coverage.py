"""Which operators TFLite Micro runs on int16 activations (16x8 models) that firmware-gen refuses.

One single-operator model per operator modelgen can write, in the int16 form a converter gives it (activations
int16 with zero point 0, weights int8, biases int64; LOGISTIC, TANH and SOFTMAX outputs at 2^-15). Each is prepared
and invoked by TFLM (PyPI `tflite-micro`) and checked by firmware-gen; where both accept it, it is also compiled
for the host and compared with TFLM on random inputs (every tensor, every byte). Prints one line per operator and
the list of operators TFLM runs that firmware-gen refuses.

    python bench/int16_coverage.py [--no-validate]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.errors import UserError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import check_supported

SHAPE = (1, 4, 4, 8)
SCALE, Q15 = 0.01, 2.0**-15
RNG = np.random.default_rng(0)
# Defined on positive inputs only (TFLM fails the invocation on a negative one).
POSITIVE_INPUTS = {"RSQRT", "SQRT", "LOG"}


def weights(shape: tuple[int, ...]) -> np.ndarray:
    return RNG.integers(-127, 128, shape).astype(np.int8)


def single(opcode: str, out_shape: tuple[int, ...] = SHAPE, options: dict | None = None, out_scale: float = SCALE,
           out_dtype: str = "int16", extra: Callable[[ModelBuilder], list[int]] | None = None,
           inputs: int = 1, in_shape: tuple[int, ...] = SHAPE, in_dtype: str = "int16") -> bytes:
    """`inputs` int16 inputs of in_shape, then the tensors `extra` adds (constants), one output."""
    b = ModelBuilder(opcode.lower())
    operands = [b.input(f"x{i}", in_shape, in_dtype, scale=SCALE * (i + 1)) for i in range(inputs)]
    operands += extra(b) if extra else []
    scale = None if out_dtype in ("int32", "float32") and out_scale is None else out_scale
    y = b.tensor("y", out_shape, out_dtype, scale=scale)
    b.operator(opcode, operands, [y], options or {})
    b.output(y)
    return b.build()


def const(name: str, values, dtype=np.int32, scale: float | None = None) -> Callable[[ModelBuilder], list[int]]:
    return lambda b: [b.constant(name, np.asarray(values, dtype), scale=scale)]


def conv(opcode: str, filter_shape: tuple[int, ...], options: dict, out_shape: tuple[int, ...]) -> bytes:
    channels = filter_shape[0] if opcode != "DEPTHWISE_CONV_2D" else filter_shape[-1]
    extra = lambda b: [b.constant("w", weights(filter_shape), scale=0.02),  # noqa: E731
                       b.constant("b", RNG.integers(-500, 500, channels).astype(np.int64), scale=SCALE * 0.02)]
    return single(opcode, out_shape, options, 0.05, extra=extra)


def transpose_conv() -> bytes:
    b = ModelBuilder("transpose_conv")
    x = b.input("x", SHAPE, "int16", scale=SCALE)
    shape = b.constant("shape", np.array(SHAPE, np.int32))
    w = b.constant("w", weights((8, 3, 3, 8)), scale=0.02)
    bias = b.constant("b", RNG.integers(-500, 500, 8).astype(np.int64), scale=SCALE * 0.02)
    y = b.tensor("y", SHAPE, "int16", scale=0.05)
    b.operator("TRANSPOSE_CONV", [shape, w, x, bias], [y], {"padding": "SAME"})
    b.output(y)
    return b.build()


def svdf() -> bytes:
    b = ModelBuilder("svdf")
    x = b.input("x", (1, 8), "int16", scale=SCALE)
    wf = b.constant("wf", weights((4, 8)), scale=0.02)
    wt = b.constant("wt", RNG.integers(-300, 300, (4, 5)).astype(np.int16), scale=0.001)
    bias = b.constant("b", RNG.integers(-50, 50, 4).astype(np.int32), scale=1e-5)
    state = b.tensor("state", (1, 20), "int16", scale=0.001, variable=True)
    y = b.tensor("y", (1, 4), "int16", scale=0.02)
    b.operator("SVDF", [x, wf, wt, bias, state], [y], {"rank": 1})
    b.output(y)
    return b.build()


def batch_matmul() -> bytes:
    b = ModelBuilder("batch_matmul")
    lhs = b.input("lhs", (1, 4, 8), "int16", scale=SCALE)
    rhs = b.constant("rhs", RNG.integers(-3000, 3000, (1, 8, 3)).astype(np.int16), scale=SCALE)
    y = b.tensor("y", (1, 4, 3), "int16", scale=0.05)
    b.operator("BATCH_MATMUL", [lhs, rhs], [y])
    b.output(y)
    return b.build()


def split(opcode: str) -> bytes:
    """SPLIT (axis first) or SPLIT_V (sizes, then axis) into two halves along the channels."""
    b = ModelBuilder(opcode.lower())
    axis = b.constant("axis", np.array([3], np.int32))
    x = b.input("x", SHAPE, "int16", scale=SCALE)
    if opcode == "SPLIT":
        operands, options = [axis, x], {"num_splits": 2}
    else:
        operands, options = [x, b.constant("sizes", np.array([4, 4], np.int32)), axis], {"num_splits": 2}
    halves = [b.tensor(f"y{i}", (1, 4, 4, 4), "int16", scale=SCALE) for i in range(2)]
    b.operator(opcode, operands, halves, options)
    for half in halves:
        b.output(half)
    return b.build()


def fully_connected() -> bytes:
    b = ModelBuilder("fully_connected")
    x = b.input("x", (1, 128), "int16", scale=SCALE)
    w = b.constant("w", weights((4, 128)), scale=0.02)
    bias = b.constant("b", RNG.integers(-500, 500, 4).astype(np.int64), scale=SCALE * 0.02)
    y = b.tensor("y", (1, 4), "int16", scale=0.2)
    b.operator("FULLY_CONNECTED", [x, w, bias], [y])
    b.output(y)
    return b.build()


def elementwise_cases() -> dict[str, Callable[[], bytes]]:
    unary = {op: (lambda op=op: single(op)) for op in (
        "ABS", "NEG", "RELU", "RELU6", "RELU_N1_TO_1", "HARD_SWISH", "ELU", "EXP", "LOG", "RSQRT", "SQRT", "GELU",
        "ZEROS_LIKE")}
    binary = {op: (lambda op=op: single(op, inputs=2)) for op in (
        "ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "ADD_N")}
    return {
        **unary, **binary,
        "LEAKY_RELU": lambda: single("LEAKY_RELU", options={"alpha": 0.2}),
        "LOGISTIC": lambda: single("LOGISTIC", out_scale=Q15), "TANH": lambda: single("TANH", out_scale=Q15),
        "SOFTMAX": lambda: single("SOFTMAX", out_scale=Q15, options={"beta": 1.0}),
        "LOG_SOFTMAX": lambda: single("LOG_SOFTMAX", out_scale=16 / 256),
        "L2_NORMALIZATION": lambda: single("L2_NORMALIZATION", out_scale=1 / 128),
        "PRELU": lambda: single("PRELU", extra=lambda b: [b.constant("alpha", weights((8,)), scale=0.01)]),
        "QUANTIZE int16->int16": lambda: single("QUANTIZE", out_scale=0.02),
        "QUANTIZE int16->int8": lambda: single("QUANTIZE", out_dtype="int8", out_scale=0.1),
        "QUANTIZE int16->int32": lambda: single("QUANTIZE", out_dtype="int32", out_scale=0.001),
        "QUANTIZE int32->int16": lambda: single("QUANTIZE", in_dtype="int32", out_scale=0.02),
        "DEQUANTIZE": lambda: single("DEQUANTIZE", out_dtype="float32", out_scale=None),
        "CAST int16->int32": lambda: single("CAST", out_dtype="int32", out_scale=None),
        "CAST int16->int8": lambda: single("CAST", out_dtype="int8", out_scale=None),
    }


def movement_cases() -> dict[str, Callable[[], bytes]]:
    pads = [[0, 0], [1, 1], [1, 1], [0, 0]]
    return {
        "RESHAPE": lambda: single("RESHAPE", (1, 128)),
        "SQUEEZE": lambda: single("SQUEEZE", (4, 4, 8), {"squeeze_dims": [0]}),
        "EXPAND_DIMS": lambda: single("EXPAND_DIMS", (1, 1, 4, 4, 8), extra=const("axis", [0])),
        "TRANSPOSE": lambda: single("TRANSPOSE", (1, 8, 4, 4), extra=const("perm", [0, 3, 1, 2])),
        "REVERSE_V2": lambda: single("REVERSE_V2", extra=const("axis", [1])),
        "CONCATENATION": lambda: single("CONCATENATION", (1, 4, 4, 16), {"axis": 3}, inputs=2),
        "PACK": lambda: single("PACK", (2, 1, 4, 4, 8), {"values_count": 2, "axis": 0}, inputs=2),
        "UNPACK": lambda: single("UNPACK", (4, 4, 8), {"num": 1, "axis": 0}),
        "SPLIT": lambda: split("SPLIT"), "SPLIT_V": lambda: split("SPLIT_V"),
        "SLICE": lambda: single("SLICE", (1, 2, 2, 8), extra=lambda b: [
            b.constant("begin", np.array([0, 1, 1, 0], np.int32)),
            b.constant("size", np.array([1, 2, 2, 8], np.int32))]),
        "STRIDED_SLICE": lambda: single("STRIDED_SLICE", (1, 2, 2, 8), extra=lambda b: [
            b.constant(name, np.array(v, np.int32)) for name, v in
            (("begin", [0, 0, 0, 0]), ("end", [1, 4, 4, 8]), ("strides", [1, 2, 2, 1]))]),
        "GATHER": lambda: single("GATHER", (1, 2, 4, 8), {"axis": 1}, extra=const("idx", [3, 0])),
        "GATHER_ND": lambda: single("GATHER_ND", (2, 4, 4, 8), extra=const("idx", [[0], [0]])),
        "PAD": lambda: single("PAD", (1, 6, 6, 8), extra=const("pads", pads)),
        "PADV2": lambda: single("PADV2", (1, 6, 6, 8), extra=lambda b: [
            b.constant("pads", np.array(pads, np.int32)), b.constant("value", np.array([5], np.int16), scale=SCALE)]),
        "MIRROR_PAD": lambda: single("MIRROR_PAD", (1, 6, 6, 8), {"mode": "REFLECT"}, extra=const("pads", pads)),
        "BROADCAST_TO": lambda: single("BROADCAST_TO", (2, 4, 4, 8), extra=const("shape", [2, 4, 4, 8])),
        "DEPTH_TO_SPACE": lambda: single("DEPTH_TO_SPACE", (1, 8, 8, 2), {"block_size": 2}),
        "SPACE_TO_DEPTH": lambda: single("SPACE_TO_DEPTH", (1, 2, 2, 32), {"block_size": 2}),
        "BATCH_TO_SPACE_ND": lambda: single("BATCH_TO_SPACE_ND", (1, 4, 4, 8), in_shape=(4, 2, 2, 8), extra=lambda b: [
            b.constant("block", np.array([2, 2], np.int32)), b.constant("crops", np.zeros((2, 2), np.int32))]),
        "SPACE_TO_BATCH_ND": lambda: single("SPACE_TO_BATCH_ND", (4, 2, 2, 8), extra=lambda b: [
            b.constant("block", np.array([2, 2], np.int32)), b.constant("pads", np.zeros((2, 2), np.int32))]),
        "RESIZE_NEAREST_NEIGHBOR": lambda: single("RESIZE_NEAREST_NEIGHBOR", (1, 8, 8, 8), extra=const("size", [8, 8])),
        "RESIZE_BILINEAR": lambda: single("RESIZE_BILINEAR", (1, 8, 8, 8), extra=const("size", [8, 8])),
    }


def reduction_and_weighted_cases() -> dict[str, Callable[[], bytes]]:
    pool = {"padding": "VALID", "stride_w": 2, "stride_h": 2, "filter_w": 2, "filter_h": 2}
    return {
        **{op: (lambda op=op: single(op, (1, 2, 2, 8), pool)) for op in ("AVERAGE_POOL_2D", "MAX_POOL_2D",
                                                                         "L2_POOL_2D")},
        **{op: (lambda op=op: single(op, (1, 8), {"keep_dims": False}, extra=const("axes", [1, 2])))
           for op in ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN")},
        **{op: (lambda op=op: single(op, (1, 4, 4), {"output_type": "int32"}, out_dtype="int32", out_scale=None,
                                     extra=const("axis", [3]))) for op in ("ARG_MAX", "ARG_MIN")},
        "CONV_2D": lambda: conv("CONV_2D", (8, 3, 3, 8), {"padding": "SAME"}, SHAPE),
        "DEPTHWISE_CONV_2D": lambda: conv("DEPTHWISE_CONV_2D", (1, 3, 3, 8),
                                          {"padding": "SAME", "depth_multiplier": 1}, SHAPE),
        "FULLY_CONNECTED": fully_connected, "TRANSPOSE_CONV": transpose_conv, "SVDF": svdf,
        "BATCH_MATMUL": batch_matmul,
    }


def sample_inputs(name: str, model: bytes) -> list[np.ndarray]:
    inputs = random_inputs(read_model(model), 0)
    return [np.abs(x.astype(np.int32)).clip(1, np.iinfo(x.dtype).max).astype(x.dtype) for x in inputs] \
        if name in POSITIVE_INPUTS else inputs


def tflm_runs(model: bytes, inputs: list[np.ndarray]) -> tuple[bool, str]:
    try:
        run_tflm(model, inputs, 0)
    except UserError as error:
        return False, str(error).split(": ", 1)[-1]
    return True, ""


def firmware_gen_accepts(model: bytes) -> tuple[bool, str]:
    try:
        check_supported(read_model(model))
    except UserError as error:
        return False, str(error).split(": ", 2)[-1]
    return True, ""


def sweep(validate: bool) -> list[str]:
    """Prints a line per operator; returns the operators TFLM runs and firmware-gen refuses."""
    refused = []
    every = {**elementwise_cases(), **movement_cases(), **reduction_and_weighted_cases()}
    print(f"{'operator (int16)':26} {'TFLM':6} {'ours':6} {'exact':6} note")
    for name, make in sorted(every.items()):
        model = make()
        inputs = sample_inputs(name, model)
        tflm_ok, tflm_note = tflm_runs(model, inputs)
        ours_ok, our_note = firmware_gen_accepts(model)
        exact = ""
        if tflm_ok and ours_ok and validate:
            exact = "yes" if validate_model(model, inputs, sanitize=False).bit_exact else "NO"
        if tflm_ok and not ours_ok:
            refused.append(name)
        note = our_note if tflm_ok and not ours_ok else tflm_note if not tflm_ok else ""
        print(f"{name:26} {'runs' if tflm_ok else '-':6} {'yes' if ours_ok else 'no':6} {exact:6} {note[:150]}")
    return refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-validate", action="store_true", help="do not compile and compare what both accept")
    refused = sweep(not parser.parse_args().no_validate)
    print(f"\nTFLM runs in int16, firmware-gen refuses ({len(refused)}): {', '.join(refused) or 'none'}")


if __name__ == "__main__":
    main()
