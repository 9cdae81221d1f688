"""Prints guest instructions per element of the arithmetic and reduction kernels of issue 15 on one board
(QEMU -icount shift=0: deterministic counts, not timings), from one firmware running a chain of single operators
on 1x16x16x16 int8 tensors (and the 16x8 forms of ADD, SUB, MUL and MEAN on int16 ones); the outputs are checked
against TFLM.

    python bench/arithmetic_speed.py [--board mps2_an385]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.modelgen.writer import ModelBuilder

SHAPE = (1, 16, 16, 16)


def chain_model() -> tuple[bytes, list[str]]:
    """Each new operator once (ADD for comparison; the 16x8 forms last), and a label per operator."""
    b = ModelBuilder("arithmetic_speed")
    x = b.input("x", SHAPE, "int8", scale=0.05, zero_point=3)
    y = b.input("y", SHAPE, "int8", scale=0.04, zero_point=-5)
    per_channel = b.constant("c", np.arange(-8, 8, dtype=np.int8).reshape(1, 1, 1, 16), scale=0.03, zero_point=1)
    labels: list[str] = []

    def op(label: str, opcode: str, inputs: list[int], shape=SHAPE, quant=(0.06, -2), dtype="int8", **options):
        scale, zero_point = quant if dtype in ("int8", "int16") else (None, 0)
        out = b.tensor(label, shape, dtype, scale=scale, zero_point=zero_point)
        b.operator(opcode, inputs, [out], options)
        labels.append(label)
        return out

    def axes(values):
        return b.constant(f"axes{len(labels)}", np.array(values, np.int32))

    op("ADD", "ADD", [x, y])
    op("SUB", "SUB", [x, y])
    op("SUB (per-channel constant)", "SUB", [x, per_channel])
    op("SQUARED_DIFFERENCE", "SQUARED_DIFFERENCE", [x, y], quant=(0.2, -128))
    high = op("MAXIMUM", "MAXIMUM", [x, y], quant=(0.05, 3))
    op("MINIMUM (per-channel)", "MINIMUM", [x, per_channel], quant=(0.05, 3))
    magnitude = op("ABS", "ABS", [high], quant=(0.05, -128))
    op("RSQRT", "RSQRT", [magnitude], quant=(0.1, -128))
    op("ADD_N (3 inputs)", "ADD_N", [x, x, x], quant=(0.15, 3))
    for opcode, quant in (("MEAN", (0.05, 3)), ("SUM", (5.0, 3)), ("REDUCE_MAX", (0.05, 3))):
        op(f"{opcode} axes (1, 2)", opcode, [x, axes([1, 2])], shape=(1, 1, 1, 16), quant=quant, keep_dims=True)
    op("REDUCE_MIN axis 3", "REDUCE_MIN", [x, axes([3])], shape=(1, 16, 16), quant=(0.05, 3))
    op("ARG_MAX axis 3", "ARG_MAX", [x, axes([3])], shape=(1, 16, 16), dtype="int32", output_type="int32")
    op("ARG_MIN axis 1", "ARG_MIN", [x, axes([1])], shape=(1, 16, 16), dtype="int32", output_type="int32")
    op("MUL", "MUL", [x, y], quant=(0.25, 1))
    x16 = b.input("x16", SHAPE, "int16", scale=0.0005, zero_point=0)
    y16 = b.input("y16", SHAPE, "int16", scale=0.0004, zero_point=0)
    for opcode, quant in (("ADD", (0.0009, 0)), ("SUB", (0.0009, 0)), ("MUL", (0.0065, 0))):
        op(f"{opcode} 16x8", opcode, [x16, y16], quant=quant, dtype="int16")
    op("MEAN 16x8 axes (1, 2)", "MEAN", [x16, axes([1, 2])], shape=(1, 1, 1, 16), quant=(0.0005, 0), dtype="int16",
       keep_dims=True)
    for index in range(2, len(b.tensors)):
        if b.tensors[index].data is None and index not in (x16, y16):
            b.output(index)
    return b.build(), labels


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="mps2_an385")
    args = parser.parse_args()
    data, labels = chain_model()
    deployment = prepare(data, "arithmetic_speed", args.board)
    inputs = random_inputs(deployment.graph, seed=0)
    result = run(deployment, inputs)
    exact = all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))
    print(f"board {args.board}, int8 {SHAPE} (elements: the larger of the operator's input and output), "
          f"outputs {'equal to' if exact else 'DIFFER from'} TFLM's")
    print(f"{'operator':<28} {'kernel':<24} {'elements':>9} {'instructions':>13} {'instr/element':>14}")
    calls = deployment.compiled.calls
    for op, label, count in zip(deployment.graph.operators, labels, result.step_instructions or [], strict=True):
        elements = max(deployment.graph.tensors[t].num_elements for t in (op.inputs[0], op.outputs[0]))
        print(f"{label:<28} {calls[op.index].function:<24} {elements:>9,} {count:>13,} {count / elements:>14.2f}")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/arithmetic_speed.py"))
