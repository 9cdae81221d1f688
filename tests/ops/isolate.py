"""One operator of a real model as a model of its own, with the same shapes, quantization, options and constants."""

from __future__ import annotations

from pathlib import Path

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder


def isolated_operator(graph: Graph, op: Operator) -> bytes:
    builder = ModelBuilder(f"{graph.name}_op{op.index}")
    new_index: dict[int, int] = {}
    for index in op.inputs:
        tensor = graph.tensors[index]
        q = tensor.quantization
        quant = {"scale": list(q.scales), "zero_point": list(q.zero_points)} if q else {}
        if tensor.is_constant:
            new_index[index] = builder.constant(tensor.name, tensor.data, axis=q.axis if q else 0, **quant)
        else:
            new_index[index] = builder.input(tensor.name, tensor.shape, tensor.dtype.label, **quant)
    for index in op.outputs:
        tensor = graph.tensors[index]
        q = tensor.quantization
        quant = {"scale": list(q.scales), "zero_point": list(q.zero_points)} if q else {}
        new_index[index] = builder.tensor(tensor.name, tensor.shape, tensor.dtype.label, **quant)
        builder.output(new_index[index])
    builder.operator(op.opcode, inputs=[new_index[i] for i in op.inputs], outputs=[new_index[i] for i in op.outputs],
                     options=op.options)
    return builder.build()


def operators_of(path: Path, opcodes: set[str]) -> list[tuple[str, bytes]]:
    """(label, single-operator model) for every operator of the model whose opcode is in `opcodes`."""
    graph = read_model(path.read_bytes(), path.name)
    return [(f"{path.stem}:{op.index}:{op.opcode}", isolated_operator(graph, op))
            for op in graph.operators if op.opcode in opcodes]
