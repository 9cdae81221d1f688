"""Small named synthetic int8 graphs for end-to-end tests that must run anywhere (no shared model files)."""

from __future__ import annotations

from collections.abc import Callable

from firmware_gen.modelgen.attention import attention_block
from firmware_gen.modelgen.calibrated import Activation, CalibratedBuilder, calibration_images
from firmware_gen.modelgen.mobilenet import mobilenet_v1
from firmware_gen.modelgen.mobilenet_v2 import mobilenet_v2
from firmware_gen.modelgen.mobilenet_v3 import mobilenet_v3_block
from firmware_gen.modelgen.unet import unet_block

CALIBRATION_IMAGES = 8


def _start(name: str, seed: int, height: int, width: int, channels: int,
           dtype: str = "int8") -> tuple[CalibratedBuilder, Activation]:
    graph = CalibratedBuilder(name=name, seed=seed)
    images = calibration_images(graph.rng, CALIBRATION_IMAGES, height, width, channels)
    return graph, graph.input("input", images, dtype=dtype)


def _tiny_cnn(seed: int) -> CalibratedBuilder:
    graph, x = _start("tiny_cnn", seed, 16, 16, 3)
    x = graph.conv2d(x, 8, kernel=3, stride=2, name="conv")
    x = graph.depthwise_conv2d(x, kernel=3, name="depthwise")
    x = graph.average_pool(x, size=2, name="pool")
    x = graph.reshape(x, (1, 4 * 4 * 8), name="flatten")
    x = graph.fully_connected(x, 4, name="fc")
    graph.output(graph.softmax(x, name="probabilities"))
    return graph


def tiny_cnn(seed: int = 0) -> bytes:
    """16x16x3 -> conv 3x3/2 -> depthwise 3x3 -> average pool 2x2 -> reshape -> FC -> softmax (4 classes)."""
    return _tiny_cnn(seed).build()


def tiny_cnn_pair(seed: int = 0) -> tuple[bytes, bytes]:
    """(tiny_cnn int8, the float model it quantizes): a float reference and its int8 twin."""
    graph = _tiny_cnn(seed)
    return graph.build(), graph.build_float_twin()


def residual_block(seed: int = 0) -> bytes:
    """A ResNet-style block: conv -> (conv 3x3 -> conv 3x3) + (1x1 conv shortcut) -> ADD with ReLU."""
    graph, x = _start("residual_block", seed, 12, 12, 4)
    stem = graph.conv2d(x, 8, kernel=3, activation="RELU", name="stem")
    branch = graph.conv2d(stem, 8, kernel=3, activation="RELU", name="branch_a")
    branch = graph.conv2d(branch, 8, kernel=3, activation="NONE", name="branch_b", mean=0.0)
    shortcut = graph.conv2d(stem, 8, kernel=1, activation="NONE", name="shortcut", mean=0.0)
    graph.output(graph.add(branch, shortcut, activation="RELU", name="join"))
    return graph.build()


def every_op(seed: int = 0) -> bytes:
    """Each of the 17 supported operators at least once, from a float32 input to a float32 output."""
    graph, x = _start("every_op", seed, 8, 8, 3, dtype="float32")
    x = graph.quantize(x, name="quantized")                                          # QUANTIZE
    x = graph.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], name="padded")                # PAD -> 10x10x3
    x = graph.conv2d(x, 8, kernel=3, padding="VALID", name="conv")                  # CONV_2D -> 8x8x8
    x = graph.depthwise_conv2d(x, kernel=3, stride=2, name="depthwise")             # DEPTHWISE_CONV_2D -> 4x4x8
    pooled = graph.max_pool(x, size=2, name="max_pool")                             # MAX_POOL_2D -> 2x2x8
    averaged = graph.average_pool(x, size=2, name="avg_pool")                       # AVERAGE_POOL_2D -> 2x2x8
    summed = graph.add(pooled, averaged, name="sum")                                # ADD
    gate = graph.logistic(summed, name="gate")                                      # LOGISTIC
    gated = graph.mul(summed, gate, name="gated")                                   # MUL
    flipped = graph.transpose(gated, (0, 2, 1, 3), name="transposed")               # TRANSPOSE
    joined = graph.concatenate([gated, flipped], axis=3, name="joined")             # CONCATENATION -> 2x2x16
    x = graph.mean(joined, axes=(1, 2), keep_dims=True, name="mean")                # MEAN -> 1x1x16
    x = graph.squeeze(x, dims=(1, 2), name="squeezed")                              # SQUEEZE -> 16
    x = graph.fully_connected(x, 6, name="fc")                                      # FULLY_CONNECTED -> 6
    x = graph.reshape(x, (1, 2, 3), name="reshaped")                                # RESHAPE -> 2x3
    x = graph.softmax(x, name="probabilities")                                      # SOFTMAX
    graph.output(graph.dequantize(x, name="output"))                                # DEQUANTIZE
    return graph.build()


def small_mobilenet() -> bytes:
    """MobileNetV1 alpha 0.25 on 32x32x3: all 28 layers and the full weights, at 1/9 of the compute."""
    return mobilenet_v1(alpha=0.25, input_size=32, channels=3, num_classes=3, seed=1)


def small_mobilenet_v2() -> bytes:
    """MobileNetV2 alpha 0.35 on 96x96x3 cut after 4 of its 17 blocks (a stride-2 block with its PAD, a residual
    ADD), a 128-wide last convolution and 10 classes: the full model's first stages, where its RAM peak is."""
    return mobilenet_v2(alpha=0.35, input_size=96, num_classes=10, blocks=4, head_channels=128, seed=1)


SYNTHETIC_MODELS: dict[str, Callable[[], bytes]] = {
    "tiny_cnn": tiny_cnn,
    "residual_block": residual_block,
    "every_op": every_op,
    "small_mobilenet": small_mobilenet,
    "small_mobilenet_v2": small_mobilenet_v2,  # inverted residual blocks (issue 24)
    "mobilenet_v3_block": mobilenet_v3_block,  # activations (issue 15)
    # convolution family, resampling, matrix (issue 15)
    "unet_block": unet_block,
    "attention_block": attention_block,
}
