"""MobileNetV1 with seeded random weights and calibrated int8 quantization (person_detect's topology)."""

from __future__ import annotations

from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images

# (pointwise output channels at alpha 1, depthwise stride) of the 13 depthwise-separable blocks
_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
           (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]
CALIBRATION_IMAGES = 8


def mobilenet_v1(alpha: float = 0.25, input_size: int = 96, channels: int = 3, num_classes: int = 2,
                 seed: int = 0) -> bytes:
    """conv 3x3/2, 13 x (depthwise 3x3 + pointwise 1x1), all ReLU6; average pool; 1x1 conv classifier;
    reshape; softmax. int8 activations, per-channel int8 weights, int32 biases."""
    graph = CalibratedBuilder(name=f"mobilenet_v1_{alpha:g}_{input_size}", seed=seed)
    images = calibration_images(graph.rng, CALIBRATION_IMAGES, input_size, input_size, channels)
    x = graph.input("input", images)
    x = graph.conv2d(x, _width(32, alpha), kernel=3, stride=2, name="conv_0")
    for block, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = graph.depthwise_conv2d(x, kernel=3, stride=stride, name=f"block_{block}/depthwise")
        x = graph.conv2d(x, _width(filters, alpha), kernel=1, name=f"block_{block}/pointwise")
    x = graph.average_pool(x, size=x.shape[1], name="avg_pool")
    x = graph.conv2d(x, num_classes, kernel=1, activation="NONE", name="logits", spread=2.0, mean=0.0)
    x = graph.reshape(x, (1, num_classes), name="logits_flat")
    graph.output(graph.softmax(x, name="probabilities"))
    return graph.build()


def _width(channels: int, alpha: float) -> int:
    return max(int(channels * alpha), 1)
