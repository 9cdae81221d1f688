"""Instructions per MAC of the 4-bit-weight kernels (int8 activations, INT4 weights) against the int8 ones on a QEMU
board (-icount shift=0: exact counts), and the weight bytes each layout puts in flash (issue 25: at most 1.10x the
instructions per MAC of the int8 variant on the same ISA).

The layers of bench/int16.py (3x3 conv, 3x3 depthwise, 1x1 conv, FULLY_CONNECTED on 16x16x16) in two chains with the
same weight values in [-8, 7]: one writes them as int8 tensors, the other as INT4. Each chain is built for the board
as `build --board` does (its kernel variants), run once, and checked against TFLM tensor by tensor (a packed build
run step by step); the int8 chain also with its portable reference kernels (fg_conv2d_s8, ...) and with compact
weights (`--compact-weights`: no wider weight layout bought with flash, the fair comparison where flash is what 4-bit
weights are for).

    python bench/int4.py [--board mps2_an385]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from int16 import LAYERS, SIDE, UNITS, reference_kernels

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.layer_validation import validate_layers
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.runner import run_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY
from firmware_gen.target.boards import load_board
from firmware_gen.target.cross_build import build_firmware

CHANNELS = 16
WEIGHT_WORDS = ("weights", "taps", "packed", "blocked", "paired", "filter")  # the tables that hold a layer's weights


def chain_model(int4: bool) -> bytes:
    rng = np.random.default_rng(0)
    builder = ModelBuilder(f"chain_{'w4' if int4 else 'w8'}")
    shape = (1, SIDE, SIDE, CHANNELS)
    previous = builder.input("x", shape, "int8", scale=0.05, zero_point=-3)
    for k, (_, opcode, filter_shape) in enumerate(LAYERS):
        weights = builder.constant(f"w{k}", rng.integers(-8, 8, filter_shape).astype(np.int8), scale=0.1, int4=int4)
        bias = builder.constant(f"b{k}", rng.integers(-500, 500, CHANNELS).astype(np.int32), scale=0.005)
        result = builder.tensor(f"y{k}", shape, "int8", scale=0.2, zero_point=-3)
        builder.operator(opcode, [previous, weights, bias], [result], {"padding": "SAME", "activation": "RELU"})
        previous = result
    flat = builder.tensor("flat", (1, SIDE * SIDE * CHANNELS), "int8", scale=0.2, zero_point=-3)
    builder.operator("RESHAPE", [previous], [flat])
    weights = builder.constant("fc_w", rng.integers(-8, 8, (UNITS, SIDE * SIDE * CHANNELS)).astype(np.int8),
                               scale=0.1, int4=int4)
    bias = builder.constant("fc_b", rng.integers(-500, 500, UNITS).astype(np.int32), scale=0.02)
    logits = builder.tensor("logits", (1, UNITS), "int8", scale=2.0, zero_point=-3)
    builder.operator("FULLY_CONNECTED", [flat, weights, bias], [logits])
    builder.output(logits)
    return builder.build()


def measure(int4: bool, board_name: str, reference: bool = False, compact: bool = False,
            ) -> tuple[list[tuple[str, str, float, int]], bool]:
    """[(layer, C function, instructions / MAC, weight bytes in its tables)] on the board, and whether its output and
    every intermediate tensor (a packed build run step by step) equal TFLM's."""
    data = chain_model(int4)
    graph = read_model(data, "chain")
    board = load_board(board_name)
    generation = GenerationOptions(compact_weights=compact)
    inputs = random_inputs(graph, seed=0)
    with tempfile.TemporaryDirectory() as tmp, reference_kernels(reference):
        compiled = generate(graph, Path(tmp) / "model", isa=board.isa, generation=generation)
        result = run_model(build_firmware(Path(tmp) / "model", board, Path(tmp) / "fw"), inputs, timeout=600)
        # Every intermediate tensor too: the chain's final logits alone can hide a wrong layer behind saturation.
        packed = generate(graph, Path(tmp) / "packed", interface="packed", isa=board.isa, generation=generation)
        layers = validate_layers(data, packed, build_firmware(Path(tmp) / "packed", board, Path(tmp) / "fw_packed"),
                                 inputs)
    expected = run_tflm(data, inputs, len(graph.tensors)).outputs[0]
    exact = layers.bit_exact and np.array_equal(result.outputs[0].ravel(), np.asarray(expected).ravel())
    rows = []
    for name, op, count in zip([*(n for n, _, _ in LAYERS), "", ""], graph.operators, result.step_instructions,
                               strict=True):
        if op.opcode == "RESHAPE":
            continue
        call = compiled.calls[op.index]
        weight_bytes = sum(t.values.nbytes for t in call.tables if any(word in t.suffix for word in WEIGHT_WORDS))
        weight_bytes += sum(graph.tensors[i].nbytes for i in call.inputs[1:2] if i >= 0)
        rows.append((op.opcode if op.opcode == "FULLY_CONNECTED" else name, call.function,
                     count / REGISTRY[op.opcode].macs(graph, op), weight_bytes))
    return rows, exact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="mps2_an385")
    board = parser.parse_args().board
    portable, portable_exact = measure(False, board, reference=True)
    compact, compact_exact = measure(False, board, compact=True)
    fast, fast_exact = measure(False, board)
    w4, w4_exact = measure(True, board)
    print(f"{board}: instructions per MAC, 4-bit weights against int8 (every tensor bit-exact with TFLM: int8 "
          f"reference {portable_exact}, int8 compact {compact_exact}, int8 fast {fast_exact}, 4-bit {w4_exact}); "
          "weight bytes of each layer's layout")
    for (name, f_ref, i_ref, b_ref), (_, f_c, i_c, b_c), (_, f_fast, i_fast, b_fast), (_, f4, i4, b4) in zip(
            portable, compact, fast, w4, strict=True):
        print(f"  {name:16s} 4-bit {i4:6.2f} ({f4}, {b4} B)")
        for label, function, count, nbytes in (("portable", f_ref, i_ref, b_ref), ("compact", f_c, i_c, b_c),
                                                ("fast", f_fast, i_fast, b_fast)):
            verdict = "meets" if i4 <= 1.10 * count else "MISSES"
            print(f"  {'':16s}   int8 {label:8s} {count:6.2f} ({function}, {nbytes} B)  ratio {i4 / count:4.2f}  "
                  f"{verdict} 1.10x")


if __name__ == "__main__":
    main()
