"""Instructions per MAC of the 16x8 kernels (int16 activations, int8 weights) against the int8 ones on a QEMU board
(-icount shift=0: exact counts), and the issue-12 target: 16x8 no slower per MAC than 2x int8.

Two chains of the same layers (3x3 conv, 3x3 depthwise, 1x1 conv, FULLY_CONNECTED) on 16x16x16, one int8 and one
16x8, each built for the board as `build --board` does (its kernel variants), run once and checked against TFLM.

    python bench/int16.py [--board mps2_an385]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY
from firmware_gen.target.boards import load_board
from firmware_gen.target.cross_build import build_firmware

SIDE, CHANNELS, UNITS = 16, 16, 16
LAYERS = [("CONV_2D 3x3", "CONV_2D", (CHANNELS, 3, 3, CHANNELS)), ("DEPTHWISE 3x3", "DEPTHWISE_CONV_2D",
          (1, 3, 3, CHANNELS)), ("CONV_2D 1x1", "CONV_2D", (CHANNELS, 1, 1, CHANNELS))]


def chain_model(dtype: str) -> bytes:
    """The layers in a chain; activations `dtype` (int16: zero point 0, int64 biases)."""
    rng = np.random.default_rng(0)
    wide = dtype == "int16"
    bias_dtype, zero_point = (np.int64, 0) if wide else (np.int32, -3)
    builder = ModelBuilder(f"chain_{dtype}")
    shape = (1, SIDE, SIDE, CHANNELS)
    previous = builder.input("x", shape, dtype, scale=0.05, zero_point=zero_point)
    for k, (_, opcode, filter_shape) in enumerate(LAYERS):
        weights = builder.constant(f"w{k}", rng.integers(-127, 128, filter_shape).astype(np.int8), scale=0.01)
        bias = builder.constant(f"b{k}", rng.integers(-500, 500, CHANNELS).astype(bias_dtype), scale=0.0005)
        result = builder.tensor(f"y{k}", shape, dtype, scale=0.2, zero_point=zero_point)
        builder.operator(opcode, [previous, weights, bias], [result], {"padding": "SAME", "activation": "RELU"})
        previous = result
    flat = builder.tensor("flat", (1, SIDE * SIDE * CHANNELS), dtype, scale=0.2, zero_point=zero_point)
    builder.operator("RESHAPE", [previous], [flat])
    weights = builder.constant("fc_w", rng.integers(-127, 128, (UNITS, SIDE * SIDE * CHANNELS)).astype(np.int8),
                               scale=0.01)
    bias = builder.constant("fc_b", rng.integers(-500, 500, UNITS).astype(bias_dtype), scale=0.002)
    logits = builder.tensor("logits", (1, UNITS), dtype, scale=2.0, zero_point=zero_point)
    builder.operator("FULLY_CONNECTED", [flat, weights, bias], [logits])
    builder.output(logits)
    return builder.build()


def instructions_per_mac(dtype: str, board_name: str) -> tuple[list[tuple[str, str, float]], bool]:
    """[(layer, C function, instructions / MAC)] of the chain on the board, and whether it equals TFLM."""
    data = chain_model(dtype)
    graph = read_model(data, f"chain_{dtype}")
    board = load_board(board_name)
    with tempfile.TemporaryDirectory() as tmp:
        compiled = generate(graph, Path(tmp) / "model", isa=board.isa)
        inputs = random_inputs(graph, seed=0)
        result = run_model(build_firmware(Path(tmp) / "model", board, Path(tmp) / "fw"), inputs, timeout=600)
    expected = run_tflm(data, inputs, len(graph.tensors)).outputs[0]
    exact = np.array_equal(result.outputs[0].ravel(), np.asarray(expected).ravel())
    # One step per operator, RESHAPE's (a view) included.
    rows = [(op.opcode if op.opcode == "FULLY_CONNECTED" else name, compiled.calls[op.index].function,
             count / REGISTRY[op.opcode].macs(graph, op))
            for name, op, count in zip([*(n for n, _, _ in LAYERS), "", ""], graph.operators,
                                       result.step_instructions, strict=True) if op.opcode != "RESHAPE"]
    return rows, exact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="mps2_an385")
    board = parser.parse_args().board
    int8, int8_exact = instructions_per_mac("int8", board)
    wide, wide_exact = instructions_per_mac("int16", board)
    print(f"{board}: instructions per MAC, int8 vs 16x8 (bit-exact with TFLM: int8 {int8_exact}, 16x8 {wide_exact})")
    for (name, f8, i8), (_, f16, i16) in zip(int8, wide, strict=True):
        verdict = "meets" if i16 <= 2 * i8 else "MISSES"
        print(f"  {name:16s} int8 {i8:6.2f} ({f8})  16x8 {i16:6.2f} ({f16})  ratio {i16 / i8:4.2f}  "
              f"{verdict} the 2x target")


if __name__ == "__main__":
    main()
