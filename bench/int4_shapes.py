"""Instructions per MAC of the 4-bit-weight kernels against the board's fast int8 variants over realistic layer shapes
(issue 25: at most 1.10x on the same ISA), on a QEMU board (-icount shift=0: exact counts).

bench/int4.py measures one 16x16x16 chain; this sweep takes the shapes where a kernel's tail or depth shows: 3x3
depthwise over 8 .. 96 channels at strides 1 and 2, 1x1 convolutions from 32 to 256 channels deep, 3x3 convolutions
and FULLY_CONNECTED layers. Every layer has its own model input and output, so one firmware per weight type holds them
all (per-layer counts from the run's profile), and the outputs are checked against TFLM: the same weight values in
[-8, 7], written once as int8 tensors and once as INT4.

    python bench/int4_shapes.py [--board mps3_an547] [--only depthwise]
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

IN_SCALE, W_SCALE = 0.05, 0.1


def _layers() -> list[tuple[str, str, tuple[int, ...], tuple[int, ...], int]]:
    """[(name, opcode, input shape, filter shape, stride)]."""
    layers = []
    for channels in (8, 24, 32, 48, 64, 96):
        for stride in (1, 2):
            layers.append((f"dw3x3 c{channels} s{stride}", "DEPTHWISE_CONV_2D", (1, 16, 16, channels),
                           (1, 3, 3, channels), stride))
    for depth, out_c in ((32, 64), (64, 128), (128, 64), (256, 32)):
        layers.append((f"1x1 {depth}->{out_c}", "CONV_2D", (1, 8, 8, depth), (out_c, 1, 1, depth), 1))
    layers.append(("3x3 8->16", "CONV_2D", (1, 16, 16, 8), (16, 3, 3, 8), 1))
    layers.append(("3x3 32->32", "CONV_2D", (1, 8, 8, 32), (32, 3, 3, 32), 1))
    for depth, units in ((256, 64), (640, 128)):
        layers.append((f"fc {depth}->{units}", "FULLY_CONNECTED", (1, depth), (units, depth), 1))
    return layers


LAYERS = _layers()


def _output_shape(opcode: str, shape: tuple[int, ...], filter_shape: tuple[int, ...], stride: int) -> tuple:
    if opcode == "FULLY_CONNECTED":
        return (1, filter_shape[0])
    side = (shape[1] + stride - 1) // stride
    return (1, side, side, filter_shape[3] if opcode == "DEPTHWISE_CONV_2D" else filter_shape[0])


def sweep_model(int4: bool, layers: list) -> bytes:
    """Every layer on its own input and output (same weights whatever `int4`)."""
    rng = np.random.default_rng(0)
    builder = ModelBuilder(f"shapes_{'w4' if int4 else 'w8'}")
    for k, (_, opcode, shape, filter_shape, stride) in enumerate(layers):
        x = builder.input(f"x{k}", shape, "int8", scale=IN_SCALE, zero_point=-3)
        weights = builder.constant(f"w{k}", rng.integers(-8, 8, filter_shape).astype(np.int8), scale=W_SCALE,
                                   int4=int4)
        out_c = filter_shape[3] if opcode == "DEPTHWISE_CONV_2D" else filter_shape[0]
        bias = builder.constant(f"b{k}", rng.integers(-500, 500, out_c).astype(np.int32), scale=IN_SCALE * W_SCALE)
        depth = int(np.prod(filter_shape[1:3])) * (1 if opcode == "DEPTHWISE_CONV_2D" else filter_shape[-1])
        y = builder.tensor(f"y{k}", _output_shape(opcode, shape, filter_shape, stride), "int8",
                           scale=IN_SCALE * W_SCALE * 4 * np.sqrt(depth), zero_point=-3)
        options = {} if opcode == "FULLY_CONNECTED" else {"padding": "SAME", "stride_h": stride, "stride_w": stride}
        builder.operator(opcode, [x, weights, bias], [y], options)
        builder.output(y)
    return builder.build()


def _overlap(compiled, op) -> str:
    """A note where the plan puts the output over the input by other than whole pixels: a channel-major kernel
    (planar, ring) then runs its pixel-order path."""
    plan = compiled.plan
    if op.opcode != "DEPTHWISE_CONV_2D":
        return ""
    apart = plan.offset_of(op.inputs[0]) - plan.offset_of(op.outputs[0])
    channels = compiled.graph.tensors[op.inputs[0]].shape[-1]
    if 0 < apart < plan.buffer_of(op.outputs[0]).size and apart % channels:
        return f"  [output {apart} B before its input: pixel-order path]"
    return ""


def measure(int4: bool, board_name: str, layers: list) -> tuple[list[tuple[str, float, str]], list[bool]]:
    """[(C function, instructions / MAC, overlap note)] per layer on the board, and per layer whether its output
    equals TFLM's."""
    data = sweep_model(int4, layers)
    graph = read_model(data, "shapes")
    board = load_board(board_name)
    inputs = random_inputs(graph, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        compiled = generate(graph, Path(tmp) / "model", isa=board.isa)
        result = run_model(build_firmware(Path(tmp) / "model", board, Path(tmp) / "fw"), inputs, timeout=900)
    expected = run_tflm(data, inputs, len(graph.tensors)).outputs
    exact = [np.array_equal(np.asarray(got).ravel(), np.asarray(want).ravel())
             for got, want in zip(result.outputs, expected, strict=True)]
    rows = [(compiled.calls[op.index].function, count / REGISTRY[op.opcode].macs(graph, op), _overlap(compiled, op))
            for op, count in zip(compiled.graph.operators, result.step_instructions, strict=True)]
    return rows, exact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="mps3_an547")
    parser.add_argument("--only", default="", help="only the layers whose name contains this")
    args = parser.parse_args()
    layers = [layer for layer in LAYERS if args.only in layer[0]]
    fast, fast_exact = measure(False, args.board, layers)
    w4, w4_exact = measure(True, args.board, layers)
    print(f"{args.board}: instructions per MAC, 4-bit weights against the fast int8 variant (output bit-exact with "
          "TFLM: int8 / 4-bit)")
    for layer, (f8, i8, n8), (f4, i4, n4), e8, e4 in zip(layers, fast, w4, fast_exact, w4_exact, strict=True):
        verdict = "meets" if i4 <= 1.10 * i8 else "MISSES"
        print(f"  {layer[0]:18s} {i4 / i8:5.3f}x {verdict:6s} 4-bit {i4:6.3f} ({f4}{n4})  int8 {i8:6.3f} ({f8}{n8})  "
              f"exact {e8}/{e4}")


if __name__ == "__main__":
    main()
