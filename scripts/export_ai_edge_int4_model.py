"""Writes tests/fixtures/ai_edge_quantizer/w4a8_cnn.tflite: a small float CNN (modelgen's float twin of a calibrated
graph: 3x3 conv, 3x3 depthwise, 1x1 conv, FULLY_CONNECTED) quantized by Google's ai-edge-quantizer with a static
recipe: int8 activations, 4-bit weights for CONV_2D (per channel) and FULLY_CONNECTED (per tensor, as TFLite Micro
requires), int8 for the rest (its policy has no 4-bit static DEPTHWISE_CONV_2D). Not part of the test suite:
ai-edge-quantizer (0.10.0, no TensorFlow needed) is installed apart, e.g.

    pip install --target /tmp/aeq ai-edge-quantizer
    PYTHONPATH=/tmp/aeq .venv/bin/python scripts/export_ai_edge_int4_model.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema
from ai_edge_quantizer import quantizer, recipe_manager
from ai_edge_quantizer.qtyping import QuantGranularity
from ai_edge_quantizer.recipe import TFLOperationName

from firmware_gen.modelgen.calibrated import CalibratedBuilder

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ai_edge_quantizer" / "w4a8_cnn.tflite"
SIGNATURE = "serving_default"


def with_signature(model: bytes) -> bytes:
    """The model with a SignatureDef naming its inputs and outputs, which the quantizer's calibration looks up."""
    root = schema.ModelT.InitFromPackedBuf(bytearray(model), 0)
    graph = root.subgraphs[0]

    def tensor_maps(indices) -> list:
        maps = []
        for index in indices:
            entry = schema.TensorMapT()
            entry.name, entry.tensorIndex = graph.tensors[index].name, int(index)
            maps.append(entry)
        return maps

    signature = schema.SignatureDefT()
    signature.signatureKey, signature.subgraphIndex = SIGNATURE, 0
    signature.inputs, signature.outputs = tensor_maps(graph.inputs), tensor_maps(graph.outputs)
    root.signatureDefs = [signature]
    builder = flatbuffers.Builder(1024)
    builder.Finish(root.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def float_cnn(rng: np.random.Generator) -> bytes:
    builder = CalibratedBuilder("w4a8_cnn", seed=1)
    x = builder.input("x", rng.normal(0.0, 1.0, (16, 12, 12, 3)))
    x = builder.conv2d(x, 8, kernel=3, stride=2)
    x = builder.depthwise_conv2d(x, kernel=3)
    x = builder.conv2d(x, 16, kernel=1)
    x = builder.reshape(x, (1, 6 * 6 * 16))
    builder.output(builder.fully_connected(x, 10))
    return with_signature(builder.build_float_twin())


def w4a8_recipe() -> list:
    manager = recipe_manager.RecipeManager()
    manager.add_static_config(regex=".*", operation_name=TFLOperationName.ALL_SUPPORTED, activation_num_bits=8,
                              weight_num_bits=8)
    manager.add_static_config(regex=".*", operation_name=TFLOperationName.CONV_2D, activation_num_bits=8,
                              weight_num_bits=4)
    manager.add_static_config(regex=".*", operation_name=TFLOperationName.FULLY_CONNECTED, activation_num_bits=8,
                              weight_num_bits=4, weight_granularity=QuantGranularity.TENSORWISE)
    return manager.get_quantization_recipe()


def main() -> None:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "float.tflite"
        source.write_bytes(float_cnn(rng))
        model = quantizer.Quantizer(str(source))
        model.load_quantization_recipe(w4a8_recipe())
        samples = [{"x": rng.normal(0.0, 1.0, (1, 12, 12, 3)).astype(np.float32)} for _ in range(8)]
        result = model.quantize(model.calibrate({SIGNATURE: samples}))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(result.quantized_model)
    print(f"wrote {OUT} ({len(result.quantized_model)} bytes)")


if __name__ == "__main__":
    main()
