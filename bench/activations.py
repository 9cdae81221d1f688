"""Instructions per element of the issue-15 activation kernels on a QEMU board (-icount shift=0: exact counts).

One model chains the operators on a 32x32x16 int8 tensor (16,384 elements; LOG_SOFTMAX rows of 16), built once,
run once, its output checked against TFLM; each step's instructions are divided by the element count. With
--int16, the issue-12 int16 kernels (16x8 models: zero points 0; SOFTMAX rows of 16) instead.

    python bench/activations.py [--board mps2_an385] [--int16]
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
from firmware_gen.target.cross_build import build_firmware

SHAPE = (1, 32, 32, 16)
# opcode, options, output quantization (None: an int32 output, no quantization)
CHAIN = [("HARD_SWISH", {}, (0.04, -10)), ("RELU", {}, (0.04, -128)), ("LEAKY_RELU", {"alpha": 0.1}, (0.04, 0)),
         ("TANH", {}, (1 / 128, 0)), ("ELU", {}, (0.02, 0)), ("PRELU", {}, (0.03, 0)),
         ("LOG_SOFTMAX", {}, (16 / 256, 127)), ("CAST", {"in_data_type": "int8", "out_data_type": "int32"}, None)]
CHAIN_16X8 = [("LEAKY_RELU", {"alpha": 0.1}, (0.0004, 0)), ("TANH", {}, (2.0**-15, 0)),
              ("LOGISTIC", {}, (2.0**-15, 0)), ("SOFTMAX", {"beta": 1.0}, (2.0**-15, 0))]


def chain_model(chain: list, dtype: str = "int8") -> bytes:
    builder = ModelBuilder("activation_chain")
    previous = builder.input("x", SHAPE, dtype, scale=0.05 if dtype == "int8" else 0.0002, zero_point=0)
    for k, (opcode, options, quantization) in enumerate(chain):
        if quantization is None:
            result = builder.tensor(f"y{k}", SHAPE, "int32")
        else:
            result = builder.tensor(f"y{k}", SHAPE, dtype, scale=quantization[0], zero_point=quantization[1])
        inputs = [previous]
        if opcode == "PRELU":  # one slope per channel, as the converter writes it
            inputs.append(builder.constant("alpha", np.arange(16, dtype=np.int8) - 8, scale=0.02, zero_point=0))
        builder.operator(opcode, inputs, [result], options)
        previous = result
    builder.output(previous)
    return builder.build()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="mps2_an385")
    parser.add_argument("--int16", action="store_true", help="the int16 (16x8) kernels")
    arguments = parser.parse_args()
    board, chain = arguments.board, CHAIN_16X8 if arguments.int16 else CHAIN
    data = chain_model(chain, "int16" if arguments.int16 else "int8")
    graph = read_model(data, "activation_chain")
    elements = int(np.prod(SHAPE))
    with tempfile.TemporaryDirectory() as tmp:
        generate(graph, Path(tmp) / "model")
        inputs = random_inputs(graph, seed=0)
        result = run_model(build_firmware(Path(tmp) / "model", board, Path(tmp) / "fw"), inputs, timeout=300)
    expected = run_tflm(data, inputs, len(graph.tensors)).outputs[0]
    print(f"{board}, {elements} elements, bit-exact with TFLM: "
          f"{np.array_equal(result.outputs[0].ravel(), np.asarray(expected).ravel())}")
    for (opcode, _, _), instructions in zip(chain, result.step_instructions, strict=True):
        print(f"  {opcode:12s} {instructions:>10,} instructions  {instructions / elements:7.2f} per element")


if __name__ == "__main__":
    main()
