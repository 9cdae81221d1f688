"""MobileNetV2 as keras.applications builds it, with seeded random weights and calibrated int8 quantization.

The layers of `keras.applications.MobileNetV2(alpha, input_shape)` with batch norms folded, as TFLite operators:
a 3x3/2 stem (SAME), 17 inverted residual blocks (1x1 expansion + ReLU6 except in block 0; a depthwise 3x3 + ReLU6,
in a stride-2 block keras' ZeroPadding2D as a PAD then a VALID depthwise; a linear 1x1 projection; ADD where the
stride is 1 and the channels match), a 1x1 convolution + ReLU6, global average pooling (MEAN), the classifier
(FULLY_CONNECTED) and SOFTMAX. Channels are rounded as keras rounds them. `explicit_pad=False` writes the stride-2
depthwise layers SAME instead, without PAD (as TF-slim's MobileNetV2 is written): on even sizes, the same arithmetic.
"""

from __future__ import annotations

from firmware_gen.modelgen.calibrated import Activation, CalibratedBuilder, calibration_images

# (projection channels at alpha 1, stride, expansion) of the 17 inverted residual blocks
BLOCKS = [(16, 1, 1),
          (24, 2, 6), (24, 1, 6),
          (32, 2, 6), (32, 1, 6), (32, 1, 6),
          (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6),
          (96, 1, 6), (96, 1, 6), (96, 1, 6),
          (160, 2, 6), (160, 1, 6), (160, 1, 6),
          (320, 1, 6)]
CALIBRATION_IMAGES = 8


def make_divisible(value: float, divisor: int = 8) -> int:
    """keras' `_make_divisible`: the nearest multiple of `divisor`, at least `divisor`, never 10 % below `value`."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def last_channels(alpha: float) -> int:
    """The width of the last 1x1 convolution: 1280, widened with alpha only above 1 (keras' rule)."""
    return make_divisible(1280 * alpha) if alpha > 1.0 else 1280


def correct_pad(size: tuple[int, int], kernel: int = 3) -> list[tuple[int, int]]:
    """keras' `correct_pad` before a stride-2 layer, as the (before, after) pairs of a 4-D PAD."""
    rows, cols = ((kernel // 2 - (1 - s % 2), kernel // 2) for s in size)
    return [(0, 0), rows, cols, (0, 0)]


def mobilenet_v2(alpha: float = 0.35, input_size: int = 96, num_classes: int = 1000, blocks: int = len(BLOCKS),
                 head_channels: int | None = None, explicit_pad: bool = True, seed: int = 0) -> bytes:
    """MobileNetV2 at width `alpha` on `input_size`^2 x 3 images. `blocks` keeps only the first blocks (a small
    model for tests); `head_channels` replaces the last convolution's width (default: keras' `last_channels`)."""
    if not 1 <= blocks <= len(BLOCKS):
        raise ValueError(f"blocks must be 1..{len(BLOCKS)}, not {blocks}")
    graph = CalibratedBuilder(name=f"mobilenet_v2_{alpha:g}_{input_size}", seed=seed)
    x = graph.input("input", calibration_images(graph.rng, CALIBRATION_IMAGES, input_size, input_size, 3))
    x = graph.conv2d(x, make_divisible(32 * alpha), kernel=3, stride=2, name="Conv1")
    for block, (filters, stride, expansion) in enumerate(BLOCKS[:blocks]):
        x = inverted_residual(graph, x, make_divisible(int(filters * alpha)), stride, expansion, f"block_{block}",
                              explicit_pad)
    x = graph.conv2d(x, head_channels or last_channels(alpha), kernel=1, name="Conv_1")
    x = graph.mean(x, axes=(1, 2), keep_dims=False, name="global_average_pooling")
    x = graph.fully_connected(x, num_classes, name="predictions")
    graph.output(graph.softmax(x, name="probabilities"))
    return graph.build()


def inverted_residual(graph: CalibratedBuilder, x: Activation, filters: int, stride: int, expansion: int,
                      name: str, explicit_pad: bool = True) -> Activation:
    """keras' `_inverted_res_block`: expand (unless 1), depthwise, project; the residual ADD where it fits."""
    inputs = x
    channels = x.shape[3]
    if expansion != 1:
        x = graph.conv2d(x, expansion * channels, kernel=1, name=f"{name}/expand")
    padded = stride == 2 and explicit_pad
    if padded:
        x = graph.pad(x, correct_pad(x.shape[1:3]), name=f"{name}/pad")
    x = graph.depthwise_conv2d(x, kernel=3, stride=stride, padding="VALID" if padded else "SAME",
                               name=f"{name}/depthwise")
    x = graph.conv2d(x, filters, kernel=1, activation="NONE", name=f"{name}/project", mean=0.0)
    if stride == 1 and channels == filters:
        x = graph.add(inputs, x, name=f"{name}/add")
    return x
