"""`validate --dataset --reference FLOAT.tflite`: the float model the int8 one was quantized from, run by LiteRT
(PyPI `ai-edge-litert`, an optional extra: `pip install 'firmware-gen[reference]'`), so that the dataset report
also gives the quantization error, as ST's `stedgeai validate` does.

The reference must take float32 inputs of the quantized model's input shapes and give outputs of its output
shapes (float32, or quantized: then dequantized); anything else is refused in one line before any sample runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from firmware_gen.errors import ToolchainError, UserError
from firmware_gen.frontend.ir import Graph

INSTALL_HINT = "pip install 'firmware-gen[reference]' (ai-edge-litert)"


def _interpreter(path: str) -> Any:
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        raise ToolchainError(f"--reference runs the float model with LiteRT: {INSTALL_HINT}") from None
    try:
        # The builtin kernels without the XNNPACK delegate: no delegate's notice on stderr, the same numbers each run.
        interpreter = Interpreter(model_path=path, num_threads=1,
                                  experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        interpreter.allocate_tensors()
    except (ValueError, RuntimeError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise UserError(f"--reference {path}: LiteRT cannot load it ({reason})") from None
    return interpreter


def _check_side(path: str, side: str, details: list[dict], graph: Graph, indices: list[int]) -> None:
    """The reference's inputs (or outputs) against the quantized model's, by count and shape."""
    if len(details) != len(indices):
        raise UserError(f"--reference {path}: has {len(details)} {side}s; the quantized model has {len(indices)}")
    for number, (detail, index) in enumerate(zip(details, indices, strict=True)):
        ours = list(graph.tensors[index].shape)
        theirs = [int(d) for d in detail["shape"]]
        if theirs != ours:
            raise UserError(f"--reference {path}: {side} {number} ('{detail['name']}') has shape {theirs}; the "
                            f"quantized model's {side} {number} ({graph.tensors[index].describe()}) has {ours}")
        if side == "input" and np.dtype(detail["dtype"]) != np.float32:
            raise UserError(f"--reference {path}: input {number} ('{detail['name']}') is "
                            f"{np.dtype(detail['dtype'])}; a float reference takes float32 inputs")


@dataclass
class ReferenceModel:
    """A loaded float model whose inputs and outputs match the quantized model's."""

    path: str
    interpreter: Any

    def run(self, samples: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
        """Float outputs (dequantized when the reference's are quantized) of each sample's float inputs."""
        inputs, outputs = self.interpreter.get_input_details(), self.interpreter.get_output_details()
        results = []
        for sample in samples:
            for detail, values in zip(inputs, sample, strict=True):
                self.interpreter.set_tensor(detail["index"], values.astype(np.float32).reshape(detail["shape"]))
            self.interpreter.invoke()
            results.append([_as_float(detail, self.interpreter.get_tensor(detail["index"])) for detail in outputs])
        return results


def _as_float(detail: dict, values: np.ndarray) -> np.ndarray:
    scale, zero_point = detail["quantization"]
    if np.issubdtype(values.dtype, np.integer) and scale:
        return (values.astype(np.float64) - zero_point) * scale
    return values.astype(np.float64)


def load_reference(path: str, graph: Graph) -> ReferenceModel:
    """The float model at `path`, checked against the quantized `graph`: one-line errors for what does not match."""
    interpreter = _interpreter(path)
    _check_side(path, "input", interpreter.get_input_details(), graph, graph.inputs)
    _check_side(path, "output", interpreter.get_output_details(), graph, graph.outputs)
    return ReferenceModel(path, interpreter)
