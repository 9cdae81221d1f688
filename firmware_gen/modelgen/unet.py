"""A seeded, calibrated U-Net decoder block: the convolution family and resampling operators of issue 15 together.

    input 12x12x3 -> conv 3x3 (skip, 12x12x8) -> conv 3x3 / 2 (6x6x16) -> TRANSPOSE_CONV 3x3 / 2 (12x12x8)
    -> CONCATENATION with the skip (12x12x16) -> conv 1x1 (12x12x8)
    -> RESIZE_BILINEAR (half-pixel centers) + RESIZE_NEAREST_NEIGHBOR to 24x24 -> ADD -> conv 3x3 (24x24x2)
"""

from __future__ import annotations

import numpy as np

from firmware_gen.modelgen.calibrated import Activation, CalibratedBuilder, calibration_images

CALIBRATION_IMAGES = 8


def transpose_conv_forward(values: np.ndarray, weights: np.ndarray, stride: int) -> np.ndarray:
    """Float TRANSPOSE_CONV with SAME padding: weights (O, kh, kw, I); output (B, H * stride, W * stride, O)."""
    batches, height, width, _ = values.shape
    _, kernel_h, kernel_w, _ = weights.shape
    canvas = np.zeros((batches, (height - 1) * stride + kernel_h, (width - 1) * stride + kernel_w, weights.shape[0]))
    for fy in range(kernel_h):
        for fx in range(kernel_w):
            canvas[:, fy:fy + (height - 1) * stride + 1:stride, fx:fx + (width - 1) * stride + 1:stride] += (
                values @ weights[:, fy, fx, :].T)
    top, left = max(kernel_h - stride, 0) // 2, max(kernel_w - stride, 0) // 2
    return canvas[:, top:top + height * stride, left:left + width * stride]


class SpatialBuilder(CalibratedBuilder):
    """CalibratedBuilder with the layers of the U-Net block."""

    def transpose_conv(self, x: Activation, out_channels: int, kernel: int, stride: int, like: Activation,
                       name: str = "transpose_conv", spread: float = 1.5, mean: float = 0.5) -> Activation:
        """SAME padding, per-channel weights, a bias; the output quantized as `like` (to be concatenated with it)."""
        weights = self.rng.normal(0.0, 1.0, (out_channels, kernel, kernel, x.values.shape[3]))
        w, b, real = self._quantized_weights(name, x, weights, 0, lambda v, k: transpose_conv_forward(v, k, stride),
                                             spread, mean)
        y = self._fixed(name, real, like.scale, like.zero_point)
        shape = self.model.constant(self._name(f"{name}/output_shape"), np.asarray(y.shape, dtype=np.int32))
        self.model.operator("TRANSPOSE_CONV", [shape, w, x.index, b], [y.index],
                            {"padding": "SAME", "stride_h": stride, "stride_w": stride})
        return y

    def resize(self, x: Activation, size: tuple[int, int], opcode: str, half_pixel_centers: bool = False,
               name: str = "resize") -> Activation:
        """Calibration values resized by nearest rows and columns (they only set later layers' ranges)."""
        rows = np.minimum((np.arange(size[0]) * x.values.shape[1]) // size[0], x.values.shape[1] - 1)
        cols = np.minimum((np.arange(size[1]) * x.values.shape[2]) // size[1], x.values.shape[2] - 1)
        sizes = self.model.constant(self._name(f"{name}/size"), np.asarray(size, dtype=np.int32))
        return self._moved(opcode, [x.index, sizes], x, x.values[:, rows][:, :, cols], name,
                           {"half_pixel_centers": half_pixel_centers})


def unet_block(seed: int = 0) -> bytes:
    graph = SpatialBuilder(name="unet_block", seed=seed)
    x = graph.input("input", calibration_images(graph.rng, CALIBRATION_IMAGES, 12, 12, 3))
    skip = graph.conv2d(x, 8, kernel=3, name="encoder")
    down = graph.conv2d(skip, 16, kernel=3, stride=2, name="down")
    up = graph.transpose_conv(down, 8, kernel=3, stride=2, like=skip, name="up")
    fused = graph.conv2d(graph.concatenate([skip, up], axis=3, name="joined"), 8, kernel=1, name="fuse")
    smooth = graph.resize(fused, (24, 24), "RESIZE_BILINEAR", half_pixel_centers=True, name="bilinear")
    blocky = graph.resize(fused, (24, 24), "RESIZE_NEAREST_NEIGHBOR", name="nearest")
    joined = graph.add(smooth, blocky, name="upsampled")
    graph.output(graph.conv2d(joined, 2, kernel=3, activation="NONE", name="head", mean=0.0))
    return graph.build()
